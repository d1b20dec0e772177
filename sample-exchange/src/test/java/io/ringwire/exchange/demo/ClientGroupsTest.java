package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-process exchange with its clients dealt into groups, each on a thread of its own, as a
 * machine with CPUs to spare runs it (forced here, whatever this machine has): every group trades
 * its share of the rate, every new order is acknowledged once over all of them, and the counters
 * they add up to balance.
 *
 * <p>Thread layout: {@link ThreadLayout#SEPARATE} with three client groups; on a small machine
 * the threads beyond its CPUs back off.
 */
class ClientGroupsTest
{
    @TempDir
    Path journal;

    @Test
    void clientsDealtIntoGroupsOnThreadsOfTheirOwnEachTradeAndTogetherBalance() throws Exception
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        try (InProcessExchange exchange = InProcessExchange.open(
            InProcessExchange.Run.of("shm", 5, 4, 3_000).withSeedAndJournal(7, journal), ThreadLayout.SEPARATE, 3))
        {
            final String threads = exchange.start(failure::set);
            assertTrue(threads.contains("clients group 1 of 3 (2 clients)") &&
                threads.contains("clients group 3 of 3 (1 clients)"), threads);
            // Each group trades a while (its logons first, however long a loaded machine takes).
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (exchange.clients().groups().stream().anyMatch(group ->
                group.counters().get(SimulatedClients.NEW_ORDERS) <= 100) && System.nanoTime() - deadline < 0)
            {
                TimeUnit.MILLISECONDS.sleep(50);
            }
            exchange.stop();
            assertNull(failure.get());

            assertEquals(3, exchange.clients().groups().size());
            for (final SimulatedClients group : exchange.clients().groups())
            {
                assertTrue(group.counters().get(SimulatedClients.NEW_ORDERS) > 100,
                    "each group traded: " + group.counters());
            }
            final AtomicLongArray total = exchange.clients().counters();
            long newOrders = 0;
            for (final SimulatedClients group : exchange.clients().groups())
            {
                newOrders += group.counters().get(SimulatedClients.NEW_ORDERS);
            }
            assertEquals(newOrders, total.get(SimulatedClients.NEW_ORDERS), "the groups' counters add up");
            assertEquals(total.get(SimulatedClients.NEW_ORDERS), total.get(SimulatedClients.ACKS),
                "every new order acknowledged: " + total);
            assertEquals(0, total.get(SimulatedClients.DUPLICATE_ACKS));
            assertEquals(0, total.get(SimulatedClients.DUPLICATE_SEQUENCES));
            assertEquals(total.get(SimulatedClients.BOUGHT), total.get(SimulatedClients.SOLD));
            long highest = 0;
            for (final SimulatedClients group : exchange.clients().groups())
            {
                highest = Math.max(highest, group.counters().get(SimulatedClients.MAX_SEQUENCE));
            }
            assertEquals(highest, total.get(SimulatedClients.MAX_SEQUENCE), "the highest sequence, not a sum");
            assertTrue(highest > 0 && highest <= exchange.engine().engine().engine().engineSequence());
        }
    }
}
