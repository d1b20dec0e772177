package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionStatus;
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
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static io.ringwire.rdma.roce.RoceWire.*;
import static io.ringwire.rdma.roce.ScriptedRelay.Action.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * When the responder sends the ACKs its requester asks for ({@link AckCoalescer}), seen on the wire
 * through a {@link ScriptedRelay}: one ACK per 16 PSNs, the delay for what is left, at once for
 * duplicates, NAKs never held, and no stall for a requester whose send queue is smaller than 16.
 * Delays are long where a test must not see the timer, so that a slow machine cannot change what
 * the wire shows.
 */
@ExtendWith(RawIcrcOnly.class)
class RoceAckCoalescingTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int REGION = 256 * 1024;
    private static final long ACK_TIMEOUT_US = 1_000_000;
    /** Longer than any pause of a loaded test machine between two progress rounds. */
    private static final long LONG_DELAY_US = 100_000;

    private Endpoint requester;
    private Endpoint responder;
    private ScriptedRelay relay;
    private MemoryRegion source;
    private MemoryRegion target;

    private static RdmaConfig config(final long ackDelayUs)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0").mtu(1024).ackTimeoutUs(ACK_TIMEOUT_US)
            .ackDelayUs(ackDelayUs).peerTimeoutMs(30_000);
    }

    private void connect(final long ackDelayUs, final int requesterSendDepth)
    {
        requester = new Endpoint(config(ackDelayUs).conclude(), requesterSendDepth, 64);
        responder = new Endpoint(config(ackDelayUs).conclude(), 64, 64);
        relay = new ScriptedRelay(requester.device.address(), responder.device.address());
        source = requester.domain.allocateRegion(REGION, Access.LOCAL_WRITE);
        target = responder.domain.allocateRegion(REGION, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        relay.connect(requester.queuePair, responder.queuePair);
    }

    @AfterEach
    void close()
    {
        CloseHelper.quietCloseAll(requester, responder, relay);
    }

    private void driveOnce()
    {
        relay.pump();
        requester.poll();
        responder.poll();
    }

    private void drive(final BooleanSupplier condition, final String what)
    {
        relay.drive(requester, responder, condition, what, TIMEOUT);
    }

    private int firstPsn()
    {
        return requester.queuePair.localEndpoint().startPsn();
    }

    /** The ACKs (not NAKs) the responder sent, in order, as PSN offsets from the requester's first PSN. */
    private List<Integer> acknowledgedOffsets()
    {
        return relay.seen.stream()
            .filter(s -> !s.towardsResponder() && s.opcode() == ACKNOWLEDGE &&
                (s.syndrome() & AETH_KIND_MASK) == AETH_KIND_ACK)
            .map(s -> psnDistance(s.psn(), firstPsn()))
            .toList();
    }

    private long responderCount(final int counter)
    {
        return responder.device.counters().get(counter);
    }

    @Test
    void oneAckCoversEachSixteenPsnsWhenTheTimerIsFarOff()
    {
        connect(LONG_DELAY_US, 64);
        final int writes = 3 * AckCoalescer.MAX_UNACKNOWLEDGED_PSNS;
        for (int i = 0; i < writes; i++)
        {
            responder.queuePair.postReceive(i, target, 0, 0);
        }
        relay.script((towards, index, p) -> towards ? HOLD : PASS);
        for (int i = 0; i < writes; i++)
        {
            // Each WRITE WITH IMMEDIATE asks for an ACK and ends the responder's receive batch.
            assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(i, source, 0, 8,
                target.address() + 8L * i, target.rkey(), i, i == writes - 1 ? SendFlags.SIGNALED : SendFlags.NONE));
        }
        relay.pump();
        assertEquals(writes, relay.held());
        relay.script((towards, index, p) -> PASS);
        relay.releaseHeld();

        drive(() -> requester.completions.size() == 1, "the last write's completion");
        assertEquals(writes, responder.completions.size());
        assertEquals(List.of(15, 31, 47), acknowledgedOffsets(), "48 requests asking for an ACK, three ACKs");
        assertEquals(CompletionStatus.SUCCESS, requester.completions.getFirst().status());
    }

    @Test
    void aLoneRequestIsAcknowledgedByTheTimerOnceTheDelayHasPassed()
    {
        final long delayUs = 20_000;
        connect(delayUs, 64);
        final long postedNs = System.nanoTime();
        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, source, 0, 64, target.address(), target.rkey(),
            SendFlags.SIGNALED));
        drive(() -> requester.completions.size() == 1, "the write's completion");
        final long elapsedNs = System.nanoTime() - postedNs;

        assertTrue(elapsedNs >= TimeUnit.MICROSECONDS.toNanos(delayUs), "completed after " + elapsedNs + " ns");
        assertEquals(List.of(0), acknowledgedOffsets(), "one ACK");
    }

    @Test
    void aDuplicateIsAcknowledgedAtOnceWithoutWaitingForTheDelay()
    {
        connect(LONG_DELAY_US, 64);
        final AtomicBoolean duplicated = new AtomicBoolean();
        relay.script((towards, index, p) -> towards && !duplicated.getAndSet(true) ? DUPLICATE : PASS);
        source.buffer().setMemory(0, 64, (byte)0x5A);
        final long postedNs = System.nanoTime();
        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, source, 0, 64, target.address(), target.rkey(),
            SendFlags.SIGNALED));
        drive(() -> requester.completions.size() == 1, "the write's completion");
        final long elapsedNs = System.nanoTime() - postedNs;

        assertTrue(elapsedNs < TimeUnit.MICROSECONDS.toNanos(LONG_DELAY_US), "completed after " + elapsedNs + " ns");
        assertEquals(1, responderCount(DeviceCounters.DUPLICATE_REQUESTS));
        assertEquals(1, responderCount(DeviceCounters.REQUESTS_EXECUTED), "executed once");
        assertEquals(List.of(0), acknowledgedOffsets());
    }

    @Test
    void aSequenceNakIsNotHeldAndGoBackNDeliversEveryByteOnce()
    {
        connect(LONG_DELAY_US, 64);
        final AtomicBoolean dropped = new AtomicBoolean();
        relay.script((towards, index, p) ->
            towards && p.opcode() == WRITE_MIDDLE && !dropped.getAndSet(true) ? DROP : PASS);
        responder.queuePair.postReceive(1, target, 0, 0);
        final byte[] payload = new byte[8 * 1024];
        new Random(7).nextBytes(payload);
        source.buffer().putBytes(0, payload);
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(7, source, 0, payload.length,
            target.address(), target.rkey(), 99, SendFlags.SIGNALED));

        drive(() -> requester.completions.size() == 1 && responder.completions.size() == 1, "the message");
        assertEquals(1, responderCount(DeviceCounters.SEQUENCE_NAKS_SENT));
        final ScriptedRelay.Seen firstAnswer = relay.seen.stream().filter(s -> !s.towardsResponder()).findFirst()
            .orElseThrow();
        assertEquals(AETH_NAK_PSN_SEQUENCE_ERROR, firstAnswer.syndrome(), "the NAK goes before any ACK");
        final byte[] landed = new byte[payload.length];
        target.buffer().getBytes(0, landed);
        assertArrayEquals(payload, landed);
        assertEquals(CompletionStatus.SUCCESS, requester.completions.getFirst().status());
        assertEquals(List.of(7), acknowledgedOffsets(), "one ACK of the whole message, by the timer");
    }

    @Test
    void aRequesterWithASmallSendQueueWaitsForTheDelayOnceNotForEveryRun()
    {
        // The longest delay: a loaded machine's pauses are small beside what waiting at every run costs.
        final long delayUs = LONG_DELAY_US;
        final int sendDepth = 4;
        final int writes = 400;
        connect(delayUs, sendDepth);
        final long startNs = System.nanoTime();
        int posted = 0;
        while (posted < writes)
        {
            final int result = requester.queuePair.postWrite(posted, source, 0, 8, target.address() + 8L * posted,
                target.rkey(), SendFlags.SIGNALED);
            if (result == PostResult.OK)
            {
                posted++;
            }
            else
            {
                assertEquals(PostResult.QUEUE_FULL, result);
                driveOnce();
            }
            if (System.nanoTime() - startNs > TIMEOUT.toNanos())
            {
                fail("posted only " + posted + " writes");
            }
        }
        drive(() -> requester.completions.size() == writes, "every write's completion");
        final long elapsedNs = System.nanoTime() - startNs;

        for (final Completion completion : requester.completions)
        {
            assertEquals(CompletionStatus.SUCCESS, completion.status());
        }
        assertEquals(sendDepth, ((RoceQueuePair)responder.queuePair).acknowledgementLimit(),
            "the responder learned the requester's run");
        final List<Integer> acknowledged = acknowledgedOffsets();
        assertEquals(writes / sendDepth, acknowledged.size(), "one ACK per run of " + sendDepth + ": " + acknowledged);
        for (int i = 0; i < acknowledged.size(); i++)
        {
            assertEquals(sendDepth * (i + 1) - 1, acknowledged.get(i), "ACK " + i + " covers a whole run");
        }
        // Waiting for the delay at each of the 100 runs would take 10 s.
        assertTrue(elapsedNs < 30 * TimeUnit.MICROSECONDS.toNanos(delayUs), "took " + elapsedNs / 1_000_000 + " ms");
    }
}
