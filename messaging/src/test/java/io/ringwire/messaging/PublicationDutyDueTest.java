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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a publication's duty cycle has work: into memory logs with its subscriber connected, only at
 * its next completion reap or slow pass (a cycle before then does nothing, so a thread that owns many
 * publications does not walk their duty each cycle), at once while a subscriber is away, and every
 * cycle where frames complete in the completion queue. Counters are copied whether or not the duty
 * was due.
 */
class PublicationDutyDueTest
{
    private static final int STREAM = 14;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void aMemoryLogPublicationsDutyWaitsForItsNextReapAndIsDueAtOnceOnceItsSubscriberGoes()
    {
        final MessagingContext context = context(directory);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
        final Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
        Publication publication = null;
        try
        {
            publication = connected(context, "shm", subscription);
            long nowNs = Math.max(System.nanoTime(), publication.dutyDueNs());
            publication.doWork(nowNs);
            final long dueNs = publication.dutyDueNs();
            assertTrue(dueNs > nowNs && dueNs <= nowNs + Publication.LOG_COMPLETION_POLL_INTERVAL_NS,
                "next due " + (dueNs - nowNs) + " ns after a cycle that ran, within the reap interval");

            assertTrue(publication.offer(message, 0, 32) > 0, "an offer into the connected subscriber's log");
            assertEquals(0, publication.doWork(dueNs - 1), "a cycle before the duty is due does nothing");
            assertEquals(dueNs, publication.dutyDueNs(), "a cycle before it leaves the due time");
            assertEquals(1, publication.counters().messagesSent.get(), "counters copied while the duty waits");

            subscription.close();
            nowNs = dueNs;
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (publication.isConnected() && System.nanoTime() < deadline)
            {
                publication.doWork(nowNs);
                nowNs = Math.max(nowNs, publication.dutyDueNs());
            }
            assertFalse(publication.isConnected(), "the closed subscriber found by the duty (its reaps or liveness)");
            assertEquals(nowNs, publication.dutyDueNs(), "due at every cycle while its subscriber is away");
        }
        finally
        {
            CloseHelper.quietCloseAll(publication, subscription);
        }
    }

    @Test
    void aSubscriberCutByTheOwnerBetweenCyclesMakesTheDutyDueAtOnce() throws InterruptedException
    {
        final MessagingContext context = context(directory);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
        final Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
        Publication publication = null;
        try
        {
            final Publication connected = publication = connected(context, "shm", subscription);
            // The subscriber stays alive but reads nothing: its ring fills, and it holds the
            // publication back at every look of the duty.
            await(() -> connected.offer(message, 0, 32) == Publication.BACK_PRESSURED, WAIT, "the ring full", () ->
            {
                connected.doWork();
                subscription.doWork();
            });
            final long heldSinceNs = System.nanoTime();
            while (System.nanoTime() - heldSinceNs < 4 * PublicationDestinations.MIN_BLOCKING_NS)
            {
                publication.doWork();
                subscription.doWork();
                Thread.sleep(1);
            }
            final long nowNs = Math.max(System.nanoTime(), publication.dutyDueNs());
            publication.doWork(nowNs);
            final long dueNs = publication.dutyDueNs();
            assertFalse(publication.dutyDue(dueNs - 1), "not due before its time while connected");

            assertEquals(1, publication.disconnectSlowestSubscriber(), "the owner cuts it between cycles");
            assertTrue(publication.dutyDue(dueNs - 1), "due at once: the cut one's reconnection is driven");
            publication.doWork(dueNs - 1);
            assertEquals(dueNs - 1, publication.dutyDueNs(), "due every cycle while its subscriber is away");
        }
        finally
        {
            CloseHelper.quietCloseAll(publication, subscription);
        }
    }

    @Test
    void aPublicationWhoseFramesCompleteInItsQueueHasItsDutyDueEveryCycle()
    {
        final MessagingContext context = context(directory);
        final Subscription subscription = Subscription.open(context, channel("socket", 0), STREAM);
        Publication publication = null;
        try
        {
            publication = connected(context, "socket", subscription);
            final long nowNs = Math.max(System.nanoTime(), publication.dutyDueNs());
            publication.doWork(nowNs);
            assertEquals(nowNs, publication.dutyDueNs(), "due again at the next cycle");
        }
        finally
        {
            CloseHelper.quietCloseAll(publication, subscription);
        }
    }

    private static Publication connected(final MessagingContext context, final String provider,
        final Subscription subscription)
    {
        final Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
            STREAM);
        await(() -> subscription.imageCount() == 1 && publication.isConnected(), WAIT, "the connection", () ->
        {
            subscription.poll((buffer, offset, length, header) -> { }, 10);
            publication.doWork();
        });
        return publication;
    }
}
