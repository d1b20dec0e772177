package io.ringwire.messaging;

import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A shm publication whose owner only offers and never runs its duty cycle: a refused offer reads
 * its subscriber's credit from the publication's own region (the subscriber stores it there) and
 * runs the duty cycle every so many refusals, so the publication takes messages again as soon as
 * its subscriber has read, and learns that a subscriber closed without its owner's help.
 */
class MemoryLogOfferOnlyTest
{
    private static final int STREAM = 12;
    private static final int LENGTH = 64;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void aPublicationThatOnlyOffersGoesOnOnceItsSubscriberReadsAndLearnsWhenItCloses()
    {
        final MessagingContext context = context(directory);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
        final Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
        Publication publication = null;
        try
        {
            publication = Publication.open(context, channel("shm", subscription.endpoint().getPort()), STREAM);
            final Publication connected = publication;
            await(() -> subscription.imageCount() == 1 && connected.isConnected(), WAIT, "the connection", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 10);
                connected.doWork();
            });

            final long sent = fill(publication, message);
            assertTrue(sent > 0, "the ring took messages before it was full");
            final long[] received = new long[1];
            final FragmentHandler count = (buffer, offset, length, header) -> received[0]++;
            await(() -> received[0] == sent, WAIT, "the subscriber reading all " + sent,
                () -> subscription.poll(count, 256));
            assertTrue(publication.offer(message, 0, LENGTH) > 0, "admitted again on the credit the subscriber stored");

            fill(publication, message);
            subscription.close();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            long result;
            while ((result = publication.offer(message, 0, LENGTH)) == Publication.BACK_PRESSURED &&
                System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(Publication.NOT_CONNECTED, result, "the subscriber's close learnt by offers alone");
        }
        finally
        {
            CloseHelper.quietCloseAll(publication, subscription);
        }
    }

    /** Offers until the subscriber's ring is full: returns the messages it took. */
    private static long fill(final Publication publication, final UnsafeBuffer message)
    {
        long sent = 0;
        long result;
        while ((result = publication.offer(message, 0, LENGTH)) > 0)
        {
            sent++;
        }
        assertEquals(Publication.BACK_PRESSURED, result, "a full ring back-pressures");
        return sent;
    }
}
