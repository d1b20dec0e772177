package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Subscription;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.ringwire.messaging.system.ChildSupport.*;

/**
 * Child program: a verifying subscriber. Listens, reassembles (a {@link FragmentAssembler} whose
 * partial messages are dropped when an image ends), checks every message with a
 * {@link MessageVerifier} and reports.
 *
 * <p>Arguments ({@code key=value}): provider, port (0: any), stream, seed, sources (publishers),
 * count (messages per publisher), sizes (mixed, small, large; large needs maxPayload and
 * maxMessage), startAnywhere (a publisher's first message may have any sequence), pollSleepMicros
 * (sleep after every poll: a slow subscriber), fragmentLimit, timeoutMs, progressEvery (print
 * {@code PROGRESS received= elapsedMs=} every so many messages), idle (see
 * {@link ChildSupport#idleStrategy}).
 *
 * <p>Prints {@code READY port=}, {@code IMAGE session=}, {@code GONE session=}, then
 * {@code RESULT ok received= bytes= elapsedMs= first=} or {@code RESULT fail <why>}, and keeps
 * polling until told to exit.
 */
public final class SubscriberProcess
{
    private SubscriberProcess()
    {
    }

    public static void main(final String[] args)
    {
        final Map<String, String> arguments = arguments(args);
        final String provider = required(arguments, "provider");
        final int port = Integer.parseInt(arguments.getOrDefault("port", "0"));
        final int stream = Integer.parseInt(arguments.getOrDefault("stream", "1"));
        final long seed = Long.parseLong(required(arguments, "seed"));
        final int sources = Integer.parseInt(arguments.getOrDefault("sources", "1"));
        final long count = Long.parseLong(required(arguments, "count"));
        final MessageLengths lengths = MessageLengths.named(arguments.getOrDefault("sizes", "mixed"), seed,
            Integer.parseInt(arguments.getOrDefault("maxPayload", "0")),
            Integer.parseInt(arguments.getOrDefault("maxMessage", "0")));
        final boolean startAnywhere = Boolean.parseBoolean(arguments.getOrDefault("startAnywhere", "false"));
        final long pollSleepNs =
            TimeUnit.MICROSECONDS.toNanos(Long.parseLong(arguments.getOrDefault("pollSleepMicros", "0")));
        final int fragmentLimit = Integer.parseInt(arguments.getOrDefault("fragmentLimit", "256"));
        // timeoutMs is meant for a real machine; the lab's emulated CPU scales it (ringwire.test.wait.scale).
        final long timeoutNs = SystemTestSettings.patient(
            Duration.ofMillis(Long.parseLong(arguments.getOrDefault("timeoutMs", "120000")))).toNanos();
        final long progressEvery = Long.parseLong(arguments.getOrDefault("progressEvery", "0"));
        watchStdin();

        final MessagingContext context = new MessagingContext().conclude();
        final MessageVerifier verifier = new MessageVerifier(seed, lengths, sources, startAnywhere);
        final FragmentAssembler assembler = new FragmentAssembler(verifier);
        final long expected = count * sources;
        final IdleStrategy idle = idleStrategy(arguments);
        try (Subscription subscription = Subscription.open(context, SystemTestSettings.channel(provider, port), stream))
        {
            subscription.availableImageHandler(sessionId -> say("IMAGE session=" + sessionId));
            subscription.unavailableImageHandler(sessionId ->
            {
                assembler.freeSessionBuffer(sessionId);
                say("GONE session=" + sessionId);
            });
            say("READY port=" + subscription.endpoint().getPort());
            final long deadline = System.nanoTime() + timeoutNs;
            long firstMessageNs = 0;
            long lastReceived = 0;
            while (verifier.received() < expected && null == verifier.failure() && !exitRequested())
            {
                final int work = subscription.poll(assembler, fragmentLimit);
                if (verifier.received() != lastReceived)
                {
                    if (0 == lastReceived)
                    {
                        firstMessageNs = System.nanoTime();
                    }
                    if (progressEvery > 0 && verifier.received() / progressEvery != lastReceived / progressEvery)
                    {
                        say("PROGRESS received=" + verifier.received() + " elapsedMs=" +
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstMessageNs));
                    }
                    lastReceived = verifier.received();
                }
                if (pollSleepNs > 0)
                {
                    LockSupport.parkNanos(pollSleepNs);
                }
                else
                {
                    idle.idle(work);
                }
                if (System.nanoTime() - deadline > 0)
                {
                    break;
                }
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstMessageNs);
            if (null != verifier.failure())
            {
                say("RESULT fail " + verifier.failure() + " (after " + verifier.received() + " valid messages)");
            }
            else if (verifier.received() < expected)
            {
                say("RESULT fail only " + verifier.received() + " of " + expected + " messages arrived " +
                    (exitRequested() ? "before the test said exit" : "within " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms") + " " + receivedBySource(verifier, sources));
            }
            else
            {
                say("RESULT ok received=" + verifier.received() + " bytes=" + verifier.bytes() + " elapsedMs=" +
                    elapsedMs + " first=" + verifier.firstSequenceFrom(0));
            }
            while (!exitRequested())
            {
                idle.idle(subscription.poll(assembler, fragmentLimit));
            }
        }
    }

    private static String receivedBySource(final MessageVerifier verifier, final int sources)
    {
        final StringBuilder text = new StringBuilder("by publisher:");
        for (int source = 0; source < sources; source++)
        {
            text.append(' ').append(source).append('=').append(verifier.receivedFrom(source));
        }
        return text.toString();
    }
}
