package io.ringwire.messaging.system;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.ringwire.messaging.system.ChildSupport.*;

/**
 * Child program of {@link ZeroAllocationSystemTest}: a publisher whose offering thread measures its
 * own allocation over {@code measured} messages once this JVM is in steady state (the second of two
 * such windows in a row, see {@link AllocationWindow}), then keeps offering until told to exit, so the subscriber's process
 * can measure its own window at its own time.
 *
 * <p>Arguments ({@code key=value}): provider, port, seed, warmUp, measured, timeoutMs.
 *
 * <p>Prints {@code CONNECTED session=}, then {@code WINDOW free= allocated= jit= steady= warmUpMs=
 * messagesPerSecond= detail=<the window's trace>}, then {@code DONE sent=}; or {@code RESULT fail
 * <why>}.
 */
public final class AllocatingPublisherProcess
{
    private static volatile long sent;
    private static volatile boolean failed;

    private AllocatingPublisherProcess()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final Map<String, String> arguments = arguments(args);
        final String provider = required(arguments, "provider");
        final int port = Integer.parseInt(required(arguments, "port"));
        final long seed = Long.parseLong(required(arguments, "seed"));
        final long warmUp = Long.parseLong(required(arguments, "warmUp"));
        final long measured = Long.parseLong(required(arguments, "measured"));
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(required(arguments, "timeoutMs")));
        watchStdin();

        final SequencedOffers offers = new SequencedOffers(MessageLengths.named("mixed", seed), seed, 0, 8192);
        final AllocationWindow window = new AllocationWindow();
        final long[] warmUpNs = { 0 };
        final MessagingContext context = new MessagingContext().conclude();
        try (Publication publication = Publication.open(context, SystemTestSettings.channel(provider, port), 1))
        {
            if (!publication.awaitConnected(SystemTestSettings.patient(Duration.ofSeconds(30))))
            {
                say("RESULT fail not connected: " + publication.lastConnectionError());
                return;
            }
            say("CONNECTED session=" + publication.sessionId());
            final Thread offering = Thread.currentThread();
            final Thread watcher = new Thread(
                () -> warmUpNs[0] = window.awaitSteadyState(offering, () -> sent, warmUp, timeoutNs / 2, () -> failed),
                "steady-state-watcher");
            watcher.setDaemon(true);
            watcher.start();

            final long deadline = System.nanoTime() + timeoutNs;
            boolean measuring = false;
            boolean windowDone = false;
            int windows = 0;
            long measuredFrom = 0;
            long windowStartNs = 0;
            while (!exitRequested())
            {
                if (!measuring && window.steady() && offers.firstAttempt())
                {
                    measuring = true;
                    measuredFrom = offers.sequence();
                    window.start();
                }
                final long result = offers.offerNext(publication);
                final int sequence = offers.sequence();
                if (result > 0)
                {
                    sent = sequence;
                }
                else if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
                {
                    failed = true;
                    say("RESULT fail offer of message " + sequence + " returned " + result + "; " + publication);
                    return;
                }
                else if (System.nanoTime() - deadline > 0)
                {
                    failed = true;
                    say("RESULT fail stopped at message " + sequence + ": time limit");
                    return;
                }
                if (measuring && !windowDone)
                {
                    window.sample(sequence);
                    if (sequence - measuredFrom == measured && ++windows == 1)
                    {
                        window.finish(); // the first of two windows in a row: see AllocationWindow
                        measuredFrom = sequence;
                        windowStartNs = System.nanoTime();
                        window.start();
                    }
                    else if (sequence - measuredFrom == measured)
                    {
                        window.finish();
                        windowDone = true;
                        final long elapsedNs = System.nanoTime() - windowStartNs;
                        watcher.join();
                        say("WINDOW free=" + window.allocationFree() + " allocated=" + window.allocated() + " jit=" +
                            window.jitRan() + " steady=" + (warmUpNs[0] >= 0) +
                            " warmUpMs=" + TimeUnit.NANOSECONDS.toMillis(warmUpNs[0]) +
                            " messagesPerSecond=" + (long)(measured * 1e9 / elapsedNs) + " detail=" + window);
                    }
                }
                if (result < 0)
                {
                    Thread.yield();
                }
            }
            say("DONE sent=" + offers.sequence());
        }
    }
}
