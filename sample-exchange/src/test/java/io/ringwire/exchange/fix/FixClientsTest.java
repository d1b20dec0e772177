package io.ringwire.exchange.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's simulated FIX members against the door, the gateway and the engine: every order is
 * acknowledged once, every lot bought is sold, and cancels and replaces target orders they know
 * to be live, so a refused one is a race with a fill on its way back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FixClientsTest
{
    @TempDir
    Path directory;

    @Test
    void simulatedFixMembersAreAcknowledgedOnceBalanceTheirFillsAndCancelLiveOrders() throws Exception
    {
        try (FixExchange exchange = new FixExchange(directory.resolve("door"));
            FixClients clients = new FixClients(new InetSocketAddress("127.0.0.1", exchange.port),
                FixDoorTest.DOOR_COMP_ID, List.of(new FixClients.Login(FixExchange.MEMBER_A, FixExchange.PASSWORD_A),
                new FixClients.Login(FixExchange.MEMBER_B, FixExchange.PASSWORD_B)), 1, 1_000, 400, 7))
        {
            clients.connect();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!clients.isConnected() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertTrue(clients.isConnected());
            clients.startSending();
            Thread.sleep(2_000);
            assertTrue(clients.quiesce(10_000), "every new order acknowledged");
            final AtomicLongArray c = clients.counters();
            // Both sides of every fill are these clients' members: the two reports come apart in time.
            final long fillsBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (c.get(FixClients.BOUGHT) != c.get(FixClients.SOLD) && System.nanoTime() < fillsBy)
            {
                Thread.sleep(10);
            }
            assertTrue(c.get(FixClients.NEW_ORDERS) > 100, "the flow ran: " + c);
            assertEquals(c.get(FixClients.NEW_ORDERS), c.get(FixClients.ACKS), c.toString());
            assertEquals(0, c.get(FixClients.DUPLICATE_ACKS), c.toString());
            assertTrue(c.get(FixClients.FILLS) > 0, "they traded: " + c);
            assertEquals(c.get(FixClients.BOUGHT), c.get(FixClients.SOLD), "both sides of every fill: " + c);
            assertTrue(c.get(FixClients.CANCELS) > 0, c.toString());
            // A refused cancel is a race with a fill already on its way back: a few in a hundred requests.
            assertTrue(c.get(FixClients.CANCEL_REJECTS) * 20 <= c.get(FixClients.SENT),
                "cancels and replaces target live orders: " + c);
            assertEquals(c.get(FixClients.ACKS), clients.orderToAck().getTotalCount());
            final org.HdrHistogram.Histogram[] stages = exchange.door.stages();
            for (int i = 0; i < FixDoor.STAGES.length; i++)
            {
                assertTrue(stages[i].getTotalCount() > 0, "the door timed " + FixDoor.STAGES[i]);
            }
            assertEquals(c.get(FixClients.NEW_ORDERS), stages[0].getTotalCount(),
                "every new order carried its send time to the door");
        }
    }
}
