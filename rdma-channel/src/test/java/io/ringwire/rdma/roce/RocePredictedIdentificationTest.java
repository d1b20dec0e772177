package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Random;
import java.util.function.BooleanSupplier;

import static io.ringwire.rdma.roce.ScriptedRelay.Action.CORRUPT_BLIND;
import static io.ringwire.rdma.roce.ScriptedRelay.Action.PASS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The receiver that predicts IP IDs ({@value RoceProvider#ICRC_CHECK_PROP}=predicted), fed through a
 * {@link ScriptedRelay} that stamps each packet's ICRC with the ID a sender's socket would give it:
 * which IDs it accepts and which it drops as unverified.
 */
@ExtendWith(PredictedIcrc.class)
class RocePredictedIdentificationTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int REGION = 64 * 1024;
    /** Each write is one packet, long enough for the blind corruption's offset. */
    private static final int WRITE = 256;

    private Endpoint requester;
    private Endpoint responder;
    private ScriptedRelay relay;
    private MemoryRegion source;
    private MemoryRegion target;

    /**
     * Connects the pair through the relay.
     *
     * @param firstIdentification the ID of each way's first packet (the priming ACKs come first), or
     *                            -1 for a sender whose every packet carries ID 0.
     */
    private void connect(final int firstIdentification)
    {
        final RdmaConfig config = new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0").mtu(1024)
            .ackTimeoutUs(2000).peerTimeoutMs(5000);
        requester = new Endpoint(config.conclude(), 64, 64);
        responder = new Endpoint(config.conclude(), 64, 64);
        relay = new ScriptedRelay(requester.device.address(), responder.device.address());
        if (firstIdentification >= 0)
        {
            relay.countIdentifications(firstIdentification);
        }
        source = requester.domain.allocateRegion(REGION, Access.LOCAL_WRITE);
        target = responder.domain.allocateRegion(REGION, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        relay.connect(requester.queuePair, responder.queuePair);
    }

    @AfterEach
    void close()
    {
        CloseHelper.quietCloseAll(requester, responder, relay);
    }

    private void drive(final BooleanSupplier condition, final String what)
    {
        relay.drive(requester, responder, condition, what, TIMEOUT);
    }

    private long responderCount(final int counter)
    {
        return responder.device.counters().get(counter);
    }

    /** Posts {@code count} one-packet writes of random bytes, waits for them, and returns what was sent. */
    private byte[] writeAndAwait(final int count)
    {
        final byte[] bytes = new byte[count * WRITE];
        new Random(count).nextBytes(bytes);
        source.buffer().putBytes(0, bytes);
        final long executedBefore = responderCount(DeviceCounters.REQUESTS_EXECUTED);
        for (int i = 0; i < count; i++)
        {
            final int offset = i * WRITE;
            assertEquals(PostResult.OK, requester.queuePair.postWrite(i, source, offset, WRITE,
                target.address() + offset, target.rkey(), SendFlags.SIGNALED));
            drive(() -> responderCount(DeviceCounters.REQUESTS_EXECUTED) == executedBefore + offset / WRITE + 1,
                "write " + i);
        }
        return bytes;
    }

    private byte[] landed(final int length)
    {
        final byte[] bytes = new byte[length];
        target.buffer().getBytes(0, bytes);
        return bytes;
    }

    @Test
    void aCorruptionThatImitatesIdZeroIsDroppedWhereTheSenderNumbersItsPacketsAndTheResendLands()
    {
        // The requester's three priming ACKs carry the first IDs; its first write, the one corrupted,
        // carries the ID that the corruption turns into ID 0.
        final int corruptedIndex = RoceReceiver.RESYNC_RUN;
        connect(ScriptedRelay.BLIND_ID_ERROR - corruptedIndex);
        relay.script((towards, index, p) -> towards && index == corruptedIndex ? CORRUPT_BLIND : PASS);

        final byte[] sent = writeAndAwait(4);

        assertArrayEquals(sent, landed(sent.length), "the corrupted copy never lands; its resend does");
        assertEquals(0, responderCount(DeviceCounters.ICRC_ERRORS), responder.device.counters().toString());
        assertEquals(RoceReceiver.RESYNC_RUN + 1, responderCount(DeviceCounters.ICRC_UNVERIFIED),
            "the priming ACKs that taught the sequence, and the corrupted write: " + responder.device.counters());
    }

    @Test
    void aSenderWhoseEveryPacketCarriesIdZeroIsAcceptedFromItsFirstPacket()
    {
        connect(-1);
        final byte[] sent = writeAndAwait(4);

        assertArrayEquals(sent, landed(sent.length));
        assertEquals(0, responderCount(DeviceCounters.ICRC_UNVERIFIED), responder.device.counters().toString());
        assertEquals(0, responderCount(DeviceCounters.ICRC_ERRORS), responder.device.counters().toString());
    }

    @Test
    void aNumberedSequenceThatWrapsThroughIdZeroIsAcceptedThroughout()
    {
        connect(0xFFF0);
        final byte[] sent = writeAndAwait(24);

        assertArrayEquals(sent, landed(sent.length));
        assertEquals(RoceReceiver.RESYNC_RUN, responderCount(DeviceCounters.ICRC_UNVERIFIED),
            "only the priming ACKs, which taught the sequence: " + responder.device.counters());
        assertEquals(0, responderCount(DeviceCounters.ICRC_ERRORS), responder.device.counters().toString());
    }
}
