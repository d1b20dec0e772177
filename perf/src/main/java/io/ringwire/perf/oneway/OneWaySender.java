package io.ringwire.perf.oneway;

import io.ringwire.messaging.Publication;
import io.ringwire.perf.host.PaddedCount;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.MessagingPeer;
import io.ringwire.perf.rtt.ProbeSender;
import org.agrona.DirectBuffer;

/**
 * The sending end of a one-way run through messaging. Each message is a {@code LatencyProbe}
 * claimed straight in the publication ({@code tryClaim}), stamped with the clock read just before
 * the claim (so waiting out back pressure counts as latency, as a caller of send sees it) and,
 * with a rate, with its due time in the echo timestamp field.
 *
 * <p>Three ways to pace: {@link Pacing#ONE_IN_FLIGHT} sends the next message once the receiver
 * counted the previous one (the unloaded one-way latency, the two ends share memory so no return
 * path is needed); {@link Pacing#OPEN_LOOP} sends message {@code i} at {@code start + i / rate},
 * whether or not earlier ones arrived; {@link Pacing#FLOOD} sends as fast as back pressure allows
 * until {@link #stop()}, for throughput, and reads no clock a message (its probes' send stamps
 * are 0: the flood's receiver records no latency). A run ends with a probe of sequence
 * {@link LatencyProbeCodec#STOP_SEQUENCE}.
 *
 * <p>Threading: {@link #run()} on the sender thread; {@link #stop()} from the control thread; the
 * failure is read after the sender thread ended.
 */
public final class OneWaySender implements Runnable
{
    /** How the sender paces its messages. */
    public enum Pacing
    {
        /** The next message once the previous one was received. */
        ONE_IN_FLIGHT,
        /** Each message when due, at a fixed rate. */
        OPEN_LOOP,
        /** As fast as back pressure allows, until stopped. */
        FLOOD
    }

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Refusals or waits between duty cycles (credits, heartbeats); a duty cycle may cost a system call. */
    private static final int DUTY_MASK = 63;

    private final Publication publication;
    private final ThreadPlan plan;
    private final Pacing pacing;
    private final long messages;
    private final long ratePerSecond;
    private final PaddedCount receivedCount;
    private final ProbeSender sender;
    private final DirectBuffer zeroPadding;
    private final int messageLength;
    private final int paddingLength;
    private volatile boolean stopRequested;
    /** Written with release order (no fence a message: the flood measures the transport, not the harness). */
    private final PaddedCount sentCount = new PaddedCount();
    private String failure;
    /** Claims refused so far; the sender thread only. */
    private int refusedClaims;

    /**
     * @param peer          the sending side, connected.
     * @param plan          where the thread runs and how it idles.
     * @param pacing        how messages are paced.
     * @param messages      messages to send (warm-up included); ignored by {@link Pacing#FLOOD}.
     * @param ratePerSecond messages due per second, for {@link Pacing#OPEN_LOOP}.
     * @param receivedCount what the receiver counted, for {@link Pacing#ONE_IN_FLIGHT}.
     */
    OneWaySender(final MessagingPeer peer, final ThreadPlan plan, final Pacing pacing, final long messages,
        final long ratePerSecond, final PaddedCount receivedCount)
    {
        this.publication = peer.publication;
        this.plan = plan;
        this.pacing = pacing;
        this.messages = messages;
        this.ratePerSecond = ratePerSecond;
        this.receivedCount = receivedCount;
        this.messageLength = peer.messageLength;
        this.paddingLength = LatencyProbeCodec.paddingLength(messageLength);
        this.zeroPadding = LatencyProbeCodec.zeroPadding(paddingLength);
        this.sender = new ProbeSender(peer, this::onRefusedClaim);
    }

    @Override
    public void run()
    {
        OneWayThreads.pin("sender", plan);
        final long startNs = System.nanoTime();
        long sequence = 0;
        while (null == failure && !stopRequested && (pacing == Pacing.FLOOD || sequence < messages))
        {
            long dueNs = 0;
            if (pacing == Pacing.OPEN_LOOP)
            {
                // Whole seconds and the rest apart, so a long run at a high rate cannot overflow.
                dueNs = startNs + sequence / ratePerSecond * NANOS_PER_SECOND +
                    sequence % ratePerSecond * NANOS_PER_SECOND / ratePerSecond;
                while (System.nanoTime() < dueNs)
                {
                    Thread.onSpinWait();
                }
            }
            else if (pacing == Pacing.ONE_IN_FLIGHT && !awaitReceived(sequence))
            {
                break;
            }
            // A flood counts messages, not latencies: a clock read a message would be the harness's cost.
            send(sequence, pacing == Pacing.FLOOD ? ProbeSender.CLOCK_NOT_READ : System.nanoTime(), dueNs);
            sequence++;
            sentCount.lazySet(sequence);
        }
        if (null == failure)
        {
            send(LatencyProbeCodec.STOP_SEQUENCE, System.nanoTime(), 0);
        }
    }

    /**
     * Asks a {@link Pacing#FLOOD} run (or any run) to end after the message being sent.
     */
    void stop()
    {
        stopRequested = true;
    }

    /**
     * @return messages sent so far, the stop probe not counted.
     */
    long sent()
    {
        return sentCount.get();
    }

    /**
     * @return null when every message was committed, else what failed.
     */
    String failure()
    {
        return failure;
    }

    private boolean awaitReceived(final long count)
    {
        final long sinceNs = System.nanoTime();
        int spins = 0;
        while (receivedCount.get() < count)
        {
            if (stopRequested)
            {
                return false;
            }
            if ((++spins & SpinningTask.CLOCK_CHECK_MASK) == 0 &&
                System.nanoTime() - sinceNs > SpinningTask.PEER_SILENCE_TIMEOUT_NS)
            {
                failure = "the receiver did not count message " + (count - 1) + " within " +
                    SpinningTask.PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms";
                return false;
            }
            if ((spins & DUTY_MASK) == 0)
            {
                publication.doWork();
            }
            OneWayThreads.idle(plan);
        }
        return true;
    }

    /**
     * @param sendNs the clock read before the claim, or {@link ProbeSender#CLOCK_NOT_READ} (a flood's
     *               probes then carry a send stamp of 0).
     */
    private void send(final long sequence, final long sendNs, final long dueNs)
    {
        failure = sender.send(messageLength, sequence, ProbeSender.CLOCK_NOT_READ == sendNs ? 0 : sendNs, dueNs,
            zeroPadding, paddingLength, sendNs);
    }

    /**
     * Between refused claims: now and then a duty cycle, which returns credits and sends heartbeats,
     * then an idle as the plan says.
     */
    private void onRefusedClaim()
    {
        if ((++refusedClaims & DUTY_MASK) == 0)
        {
            publication.doWork();
        }
        OneWayThreads.idle(plan);
    }
}
