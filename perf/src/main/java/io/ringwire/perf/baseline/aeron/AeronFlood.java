package io.ringwire.perf.baseline.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.PaddedCount;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPinning;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Aeron IPC's rows of {@code perf throughput}: what Aeron's own IPC throughput test runs (an embedded
 * media driver, an exclusive publication on {@code aeron:ipc}, one thread offering as fast as back
 * pressure allows, one thread polling) on the CPUs and window of the RingWire flood it stands beside.
 * Two kinds of work a message:
 * <ul>
 *   <li>{@link Work#RAW}: the sender offers a buffer of the message's length as it is, the receiver
 *   counts it: Aeron's floor.</li>
 *   <li>{@link Work#PROBE}: the same work RingWire's flood does a message, the SBE
 *   {@code LatencyProbe} claimed and encoded in place on the sender ({@code tryClaim}), decoded,
 *   validated and checked for its sequence on the receiver. Neither side reads a clock a message,
 *   as RingWire's flood reads none: both count messages, not latencies.</li>
 * </ul>
 * The driver runs SHARED and sleeps 1 ms when idle (an IPC publication writes the subscriber's log
 * itself; the conductor only moves the publication's limit), with Aeron's default 64 MiB term, so
 * the limit never waits on it.
 *
 * <p>Threading: {@link #run} on the control thread; the sender and receiver on threads of their own,
 * joined before it returns.
 */
public final class AeronFlood
{
    /** What each message costs besides the transport. */
    public enum Work
    {
        /** A buffer offered as it is and counted. */
        RAW,
        /** The SBE probe encoded in place, decoded and checked, as RingWire's flood does. */
        PROBE
    }

    /**
     * What the window held.
     *
     * @param messages received in the window.
     * @param bytes    payload bytes received in it.
     * @param windowNs its length, ns.
     */
    public record Window(long messages, long bytes, long windowNs)
    {
    }

    private static final int STREAM_ID = 1003;
    private static final int FRAGMENT_LIMIT = 64;
    private static final long JOIN_TIMEOUT_MS = 30_000;

    private AeronFlood()
    {
    }

    /**
     * @param work         what each message costs besides the transport.
     * @param size         bytes per message (a probe is at least {@link LatencyProbeCodec#MIN_LENGTH}).
     * @param shmDirectory the benchmark's shm directory: the Aeron directory goes beside it.
     * @param cpuPlan      where the ends run (the pinger's CPU sends, the ponger's receives).
     * @param warmupNs     unmeasured flooding first.
     * @param measureNs    the measured window.
     * @param err          where warnings go.
     * @return what the receiver counted in the window.
     */
    public static Window run(final Work work, final int size, final String shmDirectory, final CpuPlan cpuPlan,
        final long warmupNs, final long measureNs, final PrintStream err)
    {
        final int length = work == Work.PROBE ? LatencyProbeCodec.messageLength(size) : size;
        final Path directory = AeronIpcSide.directory(shmDirectory);
        final MediaDriver driver = AeronIpcSide.launchDriver(directory);
        Aeron aeron = null;
        try
        {
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(directory.toString())
                .preTouchMappedMemory(true));
            final Subscription subscription = aeron.addSubscription(AeronIpcSide.CHANNEL, STREAM_ID);
            final ExclusivePublication publication = aeron.addExclusivePublication(AeronIpcSide.CHANNEL, STREAM_ID);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!publication.isConnected() || subscription.imageCount() == 0)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new IllegalStateException("aeron-ipc flood: not connected within 10 s");
                }
                LockSupport.parkNanos(1_000_000);
            }
            final Receiver receiver = new Receiver(subscription, work, cpuPlan.ponger(err));
            final Sender sender = new Sender(publication, work, length, cpuPlan.pinger(err));
            final Thread receiving = new Thread(receiver, "aeron-flood-receiver");
            final Thread sending = new Thread(sender, "aeron-flood-sender");
            receiving.setDaemon(true);
            sending.setDaemon(true);
            receiving.start();
            sending.start();
            LockSupport.parkNanos(warmupNs);
            final long fromCount = receiver.messages.get();
            final long fromBytes = receiver.bytes.get();
            final long fromNs = System.nanoTime();
            LockSupport.parkNanos(measureNs);
            final long toCount = receiver.messages.get();
            final long toBytes = receiver.bytes.get();
            final long toNs = System.nanoTime();
            sender.stop = true;
            receiver.stop = true;
            join(sending);
            join(receiving);
            if (null != sender.failure || null != receiver.failure)
            {
                // A receiver that failed stops polling, and its sender then reads back pressure: the
                // receiver's failure is the cause.
                throw new IllegalStateException("aeron-ipc flood: " + (null != receiver.failure ? "receiver: " +
                    receiver.failure : "sender: " + sender.failure));
            }
            return new Window(toCount - fromCount, toBytes - fromBytes, toNs - fromNs);
        }
        finally
        {
            CloseHelper.quietCloseAll(aeron, driver);
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(JOIN_TIMEOUT_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("aeron-ipc flood: interrupted", ex);
        }
        if (thread.isAlive())
        {
            throw new IllegalStateException("aeron-ipc flood: " + thread.getName() + " did not end");
        }
    }

    private static void pin(final String role, final ThreadPlan plan)
    {
        if (CpuPlan.UNPINNED != plan.cpu())
        {
            final String failure = ThreadPinning.pinCurrentThread(plan.cpu());
            if (null != failure)
            {
                plan.warnings().println("warning: aeron-ipc " + role + " not pinned to cpu " + plan.cpu() + ": " +
                    failure);
            }
        }
    }

    private static void idle(final ThreadPlan plan)
    {
        if (plan.yieldWhenIdle())
        {
            Thread.yield();
        }
        else
        {
            Thread.onSpinWait();
        }
    }

    /** Offers until stopped: a buffer as it is, or a probe claimed and encoded in place. */
    private static final class Sender implements Runnable
    {
        private final ExclusivePublication publication;
        private final Work work;
        private final int length;
        private final ThreadPlan plan;
        private final UnsafeBuffer raw;
        private final AeronProbeWriter probes;
        private final DirectBuffer padding;
        private final int paddingLength;
        volatile boolean stop;
        String failure;

        Sender(final ExclusivePublication publication, final Work work, final int length, final ThreadPlan plan)
        {
            this.publication = publication;
            this.work = work;
            this.length = length;
            this.plan = plan;
            this.raw = AeronIpcSide.messageBuffer(length);
            this.probes = new AeronProbeWriter(publication, length);
            this.paddingLength = LatencyProbeCodec.paddingLength(Math.max(length, LatencyProbeCodec.MIN_LENGTH));
            this.padding = LatencyProbeCodec.zeroPadding(paddingLength);
        }

        @Override
        public void run()
        {
            pin("sender", plan);
            long sequence = 0;
            int refusals = 0;
            while (!stop)
            {
                final long result = work == Work.RAW ? publication.offer(raw, 0, length) :
                    probes.tryWrite(length, sequence, 0, padding, paddingLength);
                if (result > 0)
                {
                    sequence++;
                    refusals = 0;
                }
                else if (result == ExclusivePublication.BACK_PRESSURED || result == ExclusivePublication.ADMIN_ACTION)
                {
                    if ((++refusals & SpinningTask.CLOCK_CHECK_MASK) == 0 && refusals > 1 << 24)
                    {
                        failure = "back-pressured " + refusals + " times in a row";
                        return;
                    }
                    idle(plan);
                }
                else
                {
                    failure = "offer returned " + result;
                    return;
                }
            }
        }
    }

    /**
     * Polls until stopped: counts each message, or decodes and checks each probe first. A message
     * longer than the publication's largest payload arrives in fragments, reassembled first, so a
     * message is counted (and a probe decoded) once, whole.
     */
    private static final class Receiver implements Runnable, FragmentHandler
    {
        private final Subscription subscription;
        private final Work work;
        private final ThreadPlan plan;
        private final LatencyProbeCodec codec = new LatencyProbeCodec();
        private final FragmentAssembler assembler = new FragmentAssembler(this);
        final PaddedCount messages = new PaddedCount();
        final PaddedCount bytes = new PaddedCount();
        volatile boolean stop;
        private long expectedSequence;
        String failure;

        Receiver(final Subscription subscription, final Work work, final ThreadPlan plan)
        {
            this.subscription = subscription;
            this.work = work;
            this.plan = plan;
        }

        @Override
        public void run()
        {
            pin("receiver", plan);
            while (!stop && null == failure)
            {
                if (subscription.poll(assembler, FRAGMENT_LIMIT) == 0)
                {
                    idle(plan);
                }
            }
        }

        @Override
        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            if (work == Work.PROBE)
            {
                final int decoded = codec.decode(buffer, offset, length);
                if (decoded < 0 || codec.sequence() != expectedSequence)
                {
                    failure = "probe " + expectedSequence + ": " + (decoded < 0 ? LatencyProbeCodec.describe(decoded) :
                        "sequence " + codec.sequence());
                    return;
                }
                expectedSequence++;
            }
            bytes.lazySet(bytes.get() + length);
            messages.lazySet(messages.get() + 1);
        }
    }
}
