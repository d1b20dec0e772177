package io.ringwire.messaging.system;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.ringwire.messaging.system.ChildSupport.*;

/**
 * Child program: a publisher of {@link TestMessages}. Connects (to several subscribers when given
 * several ports), optionally waits for {@code go}, offers {@code count} messages in sequence
 * (retrying back-pressure), reports, then keeps the publication alive ({@code doWork}) until told
 * to exit, so the subscribers can drain.
 *
 * <p>Arguments ({@code key=value}): provider, ports (comma-separated), stream, seed, source (this
 * publisher's number), count, sizes (mixed, small, large; large needs maxPayload and maxMessage),
 * ring, waitForGo, announce (print {@code SENDING seq=} before each message), pauseMicros (pause
 * after each message, still doing the publication's duty work), timeoutMs, idle (see
 * {@link ChildSupport#idleStrategy}).
 *
 * <p>Prints {@code CONNECTED session= maxPayload=}, optionally {@code SENDING seq= length=},
 * {@code DISCONNECTED seq= reason=} at the first NOT_CONNECTED, then {@code DONE sent=
 * backPressured= notConnected= adminAction= elapsedMs= session=} or {@code RESULT fail <why>}.
 */
public final class PublisherProcess
{
    private PublisherProcess()
    {
    }

    public static void main(final String[] args)
    {
        final Map<String, String> arguments = arguments(args);
        final String provider = required(arguments, "provider");
        final String ports = required(arguments, "ports");
        final int stream = Integer.parseInt(arguments.getOrDefault("stream", "1"));
        final long seed = Long.parseLong(required(arguments, "seed"));
        final int source = Integer.parseInt(arguments.getOrDefault("source", "0"));
        final int count = Integer.parseInt(required(arguments, "count"));
        final String ring = arguments.get("ring");
        final MessageLengths lengths = MessageLengths.named(arguments.getOrDefault("sizes", "mixed"), seed,
            Integer.parseInt(arguments.getOrDefault("maxPayload", "0")),
            Integer.parseInt(arguments.getOrDefault("maxMessage", "0")));
        final boolean waitForGo = Boolean.parseBoolean(arguments.getOrDefault("waitForGo", "false"));
        final boolean announce = Boolean.parseBoolean(arguments.getOrDefault("announce", "false"));
        final long pauseNs = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(arguments.getOrDefault("pauseMicros", "0")));
        // timeoutMs is meant for a real machine; the lab's emulated CPU scales it (ringwire.test.wait.scale).
        final long timeoutNs = SystemTestSettings.patient(
            Duration.ofMillis(Long.parseLong(arguments.getOrDefault("timeoutMs", "120000")))).toNanos();
        watchStdin();

        final StringBuilder endpoints = new StringBuilder();
        for (final String port : ports.split(","))
        {
            endpoints.append(endpoints.isEmpty() ? "" : ",").append("127.0.0.1:").append(port);
        }
        final String channel = "ringwire:" + provider + "?endpoint=" + endpoints + (null == ring ? "" : "|ring=" + ring);
        final MessagingContext context = new MessagingContext().conclude();
        final IdleStrategy idle = idleStrategy(arguments);
        try (Publication publication = Publication.open(context, channel, stream))
        {
            final Duration connectWait = SystemTestSettings.patient(Duration.ofSeconds(20));
            if (!publication.awaitConnected(connectWait))
            {
                say("RESULT fail not connected within " + connectWait.toSeconds() + " s: " +
                    publication.lastConnectionError());
                return;
            }
            say("CONNECTED session=" + publication.sessionId() + " maxPayload=" + publication.maxPayloadLength());
            while (waitForGo && !goReceived() && !exitRequested())
            {
                idle.idle(publication.doWork());
            }
            int maxLength = 0;
            for (int sequence = 0; sequence < count; sequence++)
            {
                maxLength = Math.max(maxLength, lengths.lengthOf(source, sequence));
            }
            final SequencedOffers offers = new SequencedOffers(lengths, seed, source, Math.max(maxLength, 64));
            long backPressured = 0;
            long notConnected = 0;
            long adminAction = 0;
            final long startNs = System.nanoTime();
            final long deadline = startNs + timeoutNs;
            while (offers.sequence() < count && !exitRequested())
            {
                if (announce && offers.firstAttempt())
                {
                    say("SENDING seq=" + offers.sequence() + " length=" + offers.nextLength());
                }
                final long result = offers.offerNext(publication);
                if (result > 0)
                {
                    idle.reset();
                    final long pauseEnd = System.nanoTime() + pauseNs;
                    while (pauseNs > 0 && System.nanoTime() - pauseEnd < 0 && !exitRequested())
                    {
                        idle.idle(publication.doWork());
                    }
                    continue;
                }
                if (result == Publication.BACK_PRESSURED)
                {
                    backPressured++;
                }
                else if (result == Publication.NOT_CONNECTED)
                {
                    if (0 == notConnected++)
                    {
                        say("DISCONNECTED seq=" + offers.sequence() + " reason=" + publication.lastConnectionError());
                    }
                }
                else if (result == Publication.ADMIN_ACTION)
                {
                    adminAction++;
                }
                else
                {
                    say("RESULT fail offer of message " + offers.sequence() + " returned " + result);
                    return;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    say("RESULT fail only " + offers.sequence() + " of " + count + " messages offered within " +
                        TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms; " + publication);
                    return;
                }
                idle.idle(0);
            }
            say("DONE sent=" + offers.sequence() + " backPressured=" + backPressured + " notConnected=" + notConnected +
                " adminAction=" + adminAction + " elapsedMs=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) +
                " session=" + publication.sessionId());
            while (!exitRequested())
            {
                idle.idle(publication.doWork());
            }
        }
    }
}
