package io.ringwire.perf.oneway;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.output.ProgressLine;
import io.ringwire.perf.rtt.MessagingPeer;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * Runs one one-way transfer through messaging on this host: opens a receiving side (its
 * subscription) and a sending side whose publication connects to it, on 127.0.0.1 like rtt's
 * {@link MessagingPeer}s, then runs an {@link OneWaySender} and an {@link OneWayReceiver} on the
 * CPUs {@link CpuPlan} chose (the pinger's CPU sends, the ponger's receives). The control thread
 * waits, prints a progress line on stderr once a second for runs longer than
 * {@link ProgressLine#QUIET_NS}, and for a flood samples the receiver's counters at the start and end
 * of the measured window.
 *
 * <p>Threading: the control thread; the two ends on threads of their own, joined before it returns.
 */
public final class OneWayRun
{
    private static final long PROGRESS_EVERY_MS = 1000;
    private static final long JOIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    /**
     * What one run measured.
     *
     * @param latency      receive minus send stamp, ns, per measured message.
     * @param dueLatency   receive minus due time, ns (empty without a rate).
     * @param achievedRate the measured messages' arrival rate, per second (latency runs).
     * @param windowCount  messages received in the measured window (floods).
     * @param windowBytes  payload bytes received in it (floods).
     * @param windowNs     its length, ns (floods).
     */
    public record Outcome(Histogram latency, Histogram dueLatency, double achievedRate, long windowCount,
        long windowBytes, long windowNs)
    {
    }

    private final String label;
    private final CpuPlan cpuPlan;
    private final PrintStream err;
    private final MessagingPeer receiveSide;
    private final MessagingPeer sendSide;

    private OneWayRun(final String label, final String provider, final String shmDirectory, final int size,
        final CpuPlan cpuPlan, final PrintStream err)
    {
        this.label = label;
        this.cpuPlan = cpuPlan;
        this.err = err;
        final String secret = MessagingPeer.newSecret();
        receiveSide = MessagingPeer.open(provider, shmDirectory, secret, size);
        MessagingPeer opened = null;
        try
        {
            opened = MessagingPeer.open(provider, shmDirectory, secret, size);
            opened.connectTo(receiveSide.port());
            final MessagingPeer sender = opened;
            MessagingPeer.driveUntil(
                () -> sender.driveConnection() + receiveSide.subscription.poll((b, o, l, h) -> { }, 16) +
                    receiveSide.subscription.doWork(),
                () -> sender.publication.isConnected() && receiveSide.subscription.imageCount() == 1,
                () -> label + ": not connected within " + TimeUnit.NANOSECONDS.toSeconds(
                    MessagingPeer.CONNECT_TIMEOUT_NS) + " s: sending side " + sender.connectionState());
        }
        catch (final RuntimeException ex)
        {
            receiveSide.close();
            if (null != opened)
            {
                opened.close();
            }
            throw ex;
        }
        sendSide = opened;
    }

    /**
     * Sends {@code warmup + messages} probes paced as asked and records their one-way latency.
     *
     * @param label        the run, for progress and failures ("shm messaging").
     * @param provider     shm, socket, roce or ibverbs.
     * @param shmDirectory the shm provider's directory.
     * @param size         bytes per message (at least a probe).
     * @param cpuPlan      where the ends run.
     * @param pacing       {@link OneWaySender.Pacing#ONE_IN_FLIGHT} or {@link OneWaySender.Pacing#OPEN_LOOP}.
     * @param warmup       unrecorded messages.
     * @param messages     recorded messages.
     * @param rate         messages per second, for the open loop.
     * @param err          where progress goes.
     * @return the histograms and the achieved rate.
     */
    public static Outcome latency(final String label, final String provider, final String shmDirectory, final int size,
        final CpuPlan cpuPlan, final OneWaySender.Pacing pacing, final long warmup, final long messages,
        final long rate, final PrintStream err)
    {
        final OneWayRun run = new OneWayRun(label, provider, shmDirectory, size, cpuPlan, err);
        try
        {
            final OneWayReceiver receiver = new OneWayReceiver(run.receiveSide, cpuPlan.ponger(err), warmup);
            final OneWaySender sender = new OneWaySender(run.sendSide, cpuPlan.pinger(err), pacing,
                warmup + messages, rate, receiver.receivedCounter());
            final Thread[] threads = run.start(sender, receiver);
            final ProgressLine progress = new ProgressLine(label, "messages received", warmup + messages, err);
            while (threads[0].isAlive() || threads[1].isAlive())
            {
                run.join(threads, PROGRESS_EVERY_MS, sender);
                progress.update(receiver.received());
            }
            run.check(sender, receiver);
            return new Outcome(receiver.latency(), receiver.dueLatency(), receiver.achievedRatePerSecond(), 0, 0, 0);
        }
        finally
        {
            run.close();
        }
    }

    /**
     * Sends as fast as back pressure allows: unmeasured for {@code warmupNs}, then counts what the
     * receiver got over {@code measureNs}.
     *
     * @param label        the run, for progress and failures.
     * @param provider     the transport.
     * @param shmDirectory the shm provider's directory.
     * @param size         bytes per message.
     * @param cpuPlan      where the ends run.
     * @param warmupNs     unmeasured time first.
     * @param measureNs    the measured window.
     * @param err          where progress goes.
     * @return the window's counts.
     */
    public static Outcome flood(final String label, final String provider, final String shmDirectory, final int size,
        final CpuPlan cpuPlan, final long warmupNs, final long measureNs, final PrintStream err)
    {
        final OneWayRun run = new OneWayRun(label, provider, shmDirectory, size, cpuPlan, err);
        try
        {
            final OneWayReceiver receiver = new OneWayReceiver(run.receiveSide, cpuPlan.ponger(err), Long.MAX_VALUE);
            final OneWaySender sender = new OneWaySender(run.sendSide, cpuPlan.pinger(err),
                OneWaySender.Pacing.FLOOD, 0, 0, receiver.receivedCounter());
            final Thread[] threads = run.start(sender, receiver);
            final long startNs = System.nanoTime();
            sleepUntil(startNs + warmupNs, threads);
            final long fromCount = receiver.received();
            final long fromBytes = receiver.bytes();
            final long fromNs = System.nanoTime();
            long nextProgressNs = fromNs + TimeUnit.MILLISECONDS.toNanos(PROGRESS_EVERY_MS);
            while (System.nanoTime() < fromNs + measureNs && threads[1].isAlive())
            {
                sleepUntil(Math.min(nextProgressNs, fromNs + measureNs), threads);
                if (System.nanoTime() >= nextProgressNs && measureNs + warmupNs > ProgressLine.QUIET_NS)
                {
                    final long nowNs = System.nanoTime();
                    err.printf("%s: %,d msgs in %.0f s, %,.0f msgs/s%n", label, receiver.received() - fromCount,
                        (nowNs - fromNs) / 1e9, ThroughputArithmetic.perSecond(receiver.received() - fromCount,
                        nowNs - fromNs));
                    nextProgressNs += TimeUnit.MILLISECONDS.toNanos(PROGRESS_EVERY_MS);
                }
            }
            final long toCount = receiver.received();
            final long toBytes = receiver.bytes();
            final long toNs = System.nanoTime();
            sender.stop();
            while (threads[0].isAlive() || threads[1].isAlive())
            {
                run.join(threads, PROGRESS_EVERY_MS, sender);
            }
            run.check(sender, receiver);
            return new Outcome(receiver.latency(), receiver.dueLatency(), 0, toCount - fromCount,
                toBytes - fromBytes, toNs - fromNs);
        }
        finally
        {
            run.close();
        }
    }

    private Thread[] start(final OneWaySender sender, final OneWayReceiver receiver)
    {
        final Thread receiverThread = new Thread(receiver, "oneway-receiver");
        final Thread senderThread = new Thread(sender, "oneway-sender");
        receiverThread.setDaemon(true);
        senderThread.setDaemon(true);
        receiverThread.start();
        senderThread.start();
        return new Thread[] { senderThread, receiverThread };
    }

    /**
     * Waits up to {@code millis} for both ends; stops the sender when the receiver ended first (it
     * failed), and gives up on ends that outlive {@link #JOIN_TIMEOUT_NS} after that.
     */
    private void join(final Thread[] threads, final long millis, final OneWaySender sender)
    {
        try
        {
            threads[1].join(millis);
            if (!threads[1].isAlive())
            {
                sender.stop();
                threads[0].join(TimeUnit.NANOSECONDS.toMillis(JOIN_TIMEOUT_NS));
                if (threads[0].isAlive())
                {
                    throw new IllegalStateException(label + ": the sender did not end after the receiver did");
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            sender.stop();
            throw new IllegalStateException(label + ": interrupted", ex);
        }
    }

    private void check(final OneWaySender sender, final OneWayReceiver receiver)
    {
        if (null != sender.failure())
        {
            throw new IllegalStateException(label + ": sender failed: " + sender.failure());
        }
        if (null != receiver.failure())
        {
            throw new IllegalStateException(label + ": receiver failed: " + receiver.failure());
        }
    }

    private static void sleepUntil(final long deadlineNs, final Thread[] threads)
    {
        long remainingNs;
        while ((remainingNs = deadlineNs - System.nanoTime()) > 0 && threads[1].isAlive())
        {
            try
            {
                threads[1].join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNs)));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", ex);
            }
        }
    }

    private void close()
    {
        sendSide.close();
        receiveSide.close();
    }
}
