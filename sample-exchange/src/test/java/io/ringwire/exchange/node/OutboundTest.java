package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.cm.Identity;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a role's way out does with messages while its subscriber is not there, over real shm
 * messaging: a plain one drops them (and counts them), one made to hold while disconnected keeps
 * them and sends them, in order, once a subscriber connects.
 */
class OutboundTest
{
    private static final int MESSAGES = 100;

    @TempDir
    Path directory;

    private ExchangeLayout layout;
    private MessagingContext context;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void context() throws Exception
    {
        layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        context = ExchangeDemo.context(layout, directory.resolve("shm"), "");
    }

    @AfterEach
    void close()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    @Test
    void aPlainOutboundDropsAndCountsWhatItSendsWhileNoSubscriberIsConnected()
    {
        final Outbound outbound = new Outbound(add(Publication.open(context, layout.engineRequestsPublication(),
            ExchangeLayout.REQUESTS_STREAM)));
        for (int i = 0; i < MESSAGES; i++)
        {
            assertFalse(outbound.send(message(i), 0, Long.BYTES), "dropped");
        }
        assertEquals(MESSAGES, outbound.dropped());
        assertFalse(outbound.isBehind());
    }

    @Test
    void anOutboundHoldingWhileDisconnectedSendsEverythingInOrderOnceItsSubscriberComes() throws Exception
    {
        final Outbound outbound = Outbound.holdingWhileDisconnected(add(Publication.open(context,
            layout.engineRequestsPublication(), ExchangeLayout.REQUESTS_STREAM)));
        for (int i = 0; i < MESSAGES; i++)
        {
            assertTrue(outbound.send(message(i), 0, Long.BYTES), "kept");
            outbound.doWork();
        }
        assertTrue(outbound.isBehind(), "waiting for a subscriber");
        assertEquals(0, outbound.dropped());
        assertEquals(MESSAGES, outbound.backlogMessages(), "every message waits");

        final Subscription subscription = add(Subscription.open(context, layout.engineRequestsSubscription(),
            ExchangeLayout.REQUESTS_STREAM));
        final List<Long> received = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.size() < MESSAGES)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("received " + received.size() + " of " + MESSAGES);
            }
            outbound.doWork();
            subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 16);
        }
        outbound.doWork();
        subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 16);
        assertEquals(MESSAGES, received.size(), "each once");
        for (int i = 0; i < MESSAGES; i++)
        {
            assertEquals(i, received.get(i), "in order");
        }
        assertFalse(outbound.isBehind());
        assertEquals(0, outbound.dropped());
        assertEquals(0, outbound.backlogMessages(), "none waits once sent");
    }

    @Test
    void clearingTheBacklogCountsWhatWaitedAsDropped()
    {
        final Outbound outbound = Outbound.holdingWhileDisconnected(add(Publication.open(context,
            layout.engineRequestsPublication(), ExchangeLayout.REQUESTS_STREAM)));
        for (int i = 0; i < MESSAGES; i++)
        {
            assertTrue(outbound.send(message(i), 0, Long.BYTES), "kept");
        }
        assertEquals(MESSAGES, outbound.backlogMessages());

        assertEquals(MESSAGES, outbound.clearBacklog());
        assertEquals(MESSAGES, outbound.dropped());
        assertEquals(0, outbound.backlogMessages());
        assertFalse(outbound.isBehind());
    }

    @Test
    void theBacklogsAgeIsTheOldestWaitingMessagesNotTheTimeSinceItWasLastEmpty() throws Exception
    {
        // Rings of 4 KiB: a few messages fill the publication's window, and the rest wait.
        final Map<String, Identity> identities = new HashMap<>();
        layout.identities().forEach(name -> identities.put(name, Identity.generate(name)));
        final MessagingContext small = RoleContexts.context(directory.resolve("small"), identities,
            layout.identities(), layout.identities(), 10_000, 4096);
        final Outbound outbound = new Outbound(add(Publication.open(small, layout.engineRequestsPublication(),
            ExchangeLayout.REQUESTS_STREAM)));
        final Subscription subscription = add(Subscription.open(small, layout.engineRequestsSubscription(),
            ExchangeLayout.REQUESTS_STREAM));
        RoleContexts.await(outbound::isConnected, java.time.Duration.ofSeconds(30), "the subscriber connected",
            () ->
            {
                outbound.doWork();
                subscription.poll((buffer, offset, length, header) -> { }, 16);
            });
        final UnsafeBuffer message = new UnsafeBuffer(new byte[200]);
        int sent = 0;
        while (!outbound.isBehind())
        {
            assertTrue(outbound.send(message, 0, message.capacity()));
            sent++;
        }
        TimeUnit.MILLISECONDS.sleep(200);
        final int later = 60;
        final long laterQueuedAfterNs = System.nanoTime();
        for (int i = 0; i < later; i++)
        {
            assertTrue(outbound.send(message, 0, message.capacity()));
        }
        assertTrue(outbound.backlogAgeNs(System.nanoTime()) >= TimeUnit.MILLISECONDS.toNanos(200),
            "the first message waits from before the pause");

        // Drain until only later messages wait (the backlog never empties meanwhile).
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (outbound.backlogMessages() > later - 10)
        {
            assertTrue(System.nanoTime() - deadline < 0, "drained to " + outbound.backlogMessages());
            subscription.poll((buffer, offset, length, header) -> { }, 1);
            outbound.doWork();
        }
        final long nowNs = System.nanoTime();
        assertTrue(outbound.isBehind(), "still behind: its backlog was never empty (sent " + sent + " first)");
        final long age = outbound.backlogAgeNs(nowNs);
        assertTrue(age <= nowNs - laterQueuedAfterNs + TimeUnit.MILLISECONDS.toNanos(1),
            "the oldest waiting message was queued after the 200 ms pause: age " + age / 1_000 + " us, " +
            (nowNs - laterQueuedAfterNs) / 1_000 + " us since");
    }

    private static UnsafeBuffer message(final long value)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Long.BYTES]);
        buffer.putLong(0, value);
        return buffer;
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }
}
