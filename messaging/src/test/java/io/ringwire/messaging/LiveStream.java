package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;

import java.time.Duration;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One publication's numbered messages into one subscription, both driven by the test thread, for
 * tests that attack a live stream: each 64-byte message carries its sequence number and a pattern
 * derived from it, and the subscriber checks every byte, so a lost, repeated, reordered or altered
 * message is counted.
 */
final class LiveStream
{
    private static final int LENGTH = 64;

    private final Publication publication;
    private final Subscription subscription;
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
    private final FragmentHandler handler;
    private long sent;
    private long received;
    private long outOfOrder;
    private long damaged;

    LiveStream(final Publication publication, final Subscription subscription)
    {
        this.publication = publication;
        this.subscription = subscription;
        this.handler = (buffer, offset, length, header) ->
        {
            if (length != LENGTH || buffer.getLong(offset) != received)
            {
                outOfOrder++;
            }
            for (int i = Long.BYTES; i < length; i += Long.BYTES)
            {
                damaged += buffer.getLong(offset + i) == pattern(buffer.getLong(offset), i) ? 0 : 1;
            }
            received++;
        };
    }

    private static long pattern(final long sequence, final int index)
    {
        return sequence * 0x9E37_79B9_7F4A_7C15L ^ index;
    }

    /** Waits until the publication is connected and the subscription has its image. */
    void connect()
    {
        await(() -> publication.isConnected() && subscription.imageCount() == 1, Duration.ofSeconds(10),
            "the publication's connection", this::pollBoth);
    }

    /** One duty round for both ends. */
    void pollBoth()
    {
        subscription.poll(handler, 10);
        publication.doWork();
    }

    /** Sends {@code count} more messages, polling as it goes, and waits until all have arrived. */
    void send(final int count)
    {
        offer(count, true);
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (received != sent)
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after 10 s waiting for every message sent so far: " + received + " of " + sent +
                    " received; " + state());
            }
            pollBoth();
        }
    }

    /**
     * Offers up to {@code count} more messages without polling the subscription, so that they stay
     * in flight (unacknowledged) until it polls again; stops at the first back-pressure.
     */
    void sendWithoutPolling(final int count)
    {
        offer(count, false);
    }

    private void offer(final int count, final boolean poll)
    {
        final long target = sent + count;
        while (sent < target)
        {
            message.putLong(0, sent);
            for (int i = Long.BYTES; i < LENGTH; i += Long.BYTES)
            {
                message.putLong(i, pattern(sent, i));
            }
            final long result = publication.offer(message, 0, LENGTH);
            if (result > 0)
            {
                sent++;
            }
            else
            {
                assertTrue(result == Publication.BACK_PRESSURED, "offer " + sent + " returned " + result);
                if (!poll)
                {
                    return;
                }
            }
            if (poll)
            {
                subscription.poll(handler, 10);
            }
        }
    }

    /** @return what happened to the connection, for a failure's message. */
    private String state()
    {
        return "publication connects=" + publication.counters().connects.get() + " disconnects=" +
            publication.counters().disconnects.get() + " liveness timeouts=" + publication.counters().livenessTimeouts.get() +
            "; subscription images opened=" + subscription.counters().imagesOpened.get() + " closed=" +
            subscription.counters().imagesClosed.get() + " liveness timeouts=" +
            subscription.counters().livenessTimeouts.get();
    }

    /** Every message arrived once, in order and intact, over one connection that never closed. */
    void assertNothingLostAndNoReconnect()
    {
        assertNothingLostAndNoReconnect(0);
    }

    /**
     * As {@link #assertNothingLostAndNoReconnect()}, beside {@code otherImages} images of other
     * publications that the subscription opened and closed meanwhile.
     */
    void assertNothingLostAndNoReconnect(final int otherImages)
    {
        assertEquals(sent, received, "messages delivered");
        assertEquals(0, outOfOrder, "messages out of order, lost or of the wrong length");
        assertEquals(0, damaged, "8-byte words of message payload altered");
        assertEquals(1, publication.counters().connects.get(), "the publication connected once");
        assertEquals(0, publication.counters().disconnects.get(), "and never reconnected");
        assertEquals(1 + otherImages, subscription.counters().imagesOpened.get(), "one image, and the others'");
        assertEquals(otherImages, subscription.counters().imagesClosed.get(), "only the others' closed");
    }
}
