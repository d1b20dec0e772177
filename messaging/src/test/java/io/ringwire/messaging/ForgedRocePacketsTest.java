package io.ringwire.messaging;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.roce.RoceForger;
import io.ringwire.rdma.roce.RoceProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static io.ringwire.rdma.roce.RoceForger.psnPlus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A live roce stream shrugs off packets forged by a local process without privileges, one that
 * knows everything that matters (the queue pair numbers, the PSNs in flight, the ring's address and
 * rkey) but cannot send from the peer's UDP port: ACKs, RNR NAKs and every kind of NAK with PSNs
 * inside and outside the outstanding window, at both queue pairs (the publisher's, which sends the
 * frames, and the subscriber's, which sends credit), and in-sequence RDMA WRITEs into the ring, sent
 * from the peer's own address and from another. Each is dropped and counted as foreign; the
 * stream loses nothing, alters nothing and never reconnects. Runs with the receiver seeing the
 * real IP header where it may (auto) and predicting IDs (predicted).
 */
class ForgedRocePacketsTest
{
    private static final int STREAM = 41;
    private static final int ROUNDS = 40;
    /** ACK (unlimited credit), RNR NAK, NAK: PSN sequence error, invalid request, remote access, remote operational. */
    private static final int[] SYNDROMES = { 0x1F, 0x21, 0x60, 0x61, 0x62, 0x63 };

    @TempDir
    Path directory;

    @AfterEach
    void restoreIcrcMode()
    {
        System.clearProperty(RoceProvider.ICRC_CHECK_PROP);
    }

    @ParameterizedTest(name = "icrc={0}")
    @ValueSource(strings = { "auto", "predicted" })
    void forgedAcknowledgementsAndForeignWritesLeaveALiveStreamWholeAndAreCountedAsForeign(final String icrc)
    {
        assumeTrue(TestProviders.names().contains("roce"), "roce is not among the providers under test");
        System.setProperty(RoceProvider.ICRC_CHECK_PROP, icrc);
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel("roce", 0), STREAM);
            Publication publication = Publication.open(context, channel("roce", subscription.endpoint().getPort()), STREAM);
            RoceForger sameAddress = new RoceForger("127.0.0.1");
            RoceForger otherAddress = new RoceForger("127.0.0.2"))
        {
            final LiveStream stream = new LiveStream(publication, subscription);
            stream.connect();
            stream.send(2_000);
            final Image image = subscription.images()[0];
            final QueuePair subscriberSide = image.queuePair;
            final QueuePair publisherSide = publication.destinations()[0].queuePair;

            for (int round = 0; round < ROUNDS; round++)
            {
                stream.sendWithoutPolling(64); // frames in flight, unacknowledged at the publisher
                for (final RoceForger forger : List.of(sameAddress, otherAddress))
                {
                    forgeAcknowledgements(forger, publisherSide);
                    forgeAcknowledgements(forger, subscriberSide);
                    // The PSN the subscriber expects once it has read what is in flight, at the ring
                    // offset the next frame takes: on a queue pair that took it, the real frame with
                    // that PSN would then be dropped as a duplicate.
                    final MemoryRegion ring = image.ring();
                    final byte[] garbage = new byte[64];
                    Arrays.fill(garbage, (byte)0x5A);
                    forger.write(subscriberSide, RoceForger.nextRequestPsn(publisherSide),
                        ring.address() + (publication.position() & (ring.length() - 1)), ring.rkey(), garbage);
                }
                stream.send(200);
            }
            final long forged = sameAddress.sent() + otherAddress.sent();
            stream.send(10_000);
            stream.assertNothingLostAndNoReconnect();

            await(() -> deviceCounter(publication, subscription, DeviceCounters.FOREIGN_PACKETS) >= forged,
                Duration.ofSeconds(5), "the foreign packets in the counters file", stream::pollBoth);
            assertEquals(forged, deviceCounter(publication, subscription, DeviceCounters.FOREIGN_PACKETS),
                "every forged packet dropped and counted as foreign, at the device it was sent to");
            assertTrue(publication.counters().device.get(DeviceCounters.FOREIGN_PACKETS) > 0, "at the publisher");
            assertTrue(subscription.counters().device.get(DeviceCounters.FOREIGN_PACKETS) > 0, "at the subscriber");
        }
    }

    /** ACKs and NAKs of every kind at the oldest outstanding PSN, the newest, and far outside the window. */
    private static void forgeAcknowledgements(final RoceForger forger, final QueuePair victim)
    {
        final int oldest = RoceForger.oldestUnacknowledgedPsn(victim);
        final int next = RoceForger.nextRequestPsn(victim);
        for (final int syndrome : SYNDROMES)
        {
            for (final int psn : new int[] { oldest, psnPlus(next, -1), psnPlus(next, 1_000), psnPlus(oldest, -1_000) })
            {
                forger.acknowledge(victim, psn, syndrome);
            }
        }
    }

    private static long deviceCounter(final Publication publication, final Subscription subscription, final int counter)
    {
        return publication.counters().device.get(counter) + subscription.counters().device.get(counter);
    }
}
