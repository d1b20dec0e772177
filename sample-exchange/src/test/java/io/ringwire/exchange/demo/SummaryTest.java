package io.ringwire.exchange.demo;

import io.ringwire.exchange.fix.FixClients;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-process demo's checks on the clients' counters fail a run for what the process demo's
 * checks fail it for: an order reported both filled and canceled, an engine report received twice.
 */
class SummaryTest
{
    private final AtomicLongArray fix = new AtomicLongArray(FixClients.LOGONS + 1);

    /** @return the counters of a run that passes: ten orders acknowledged once, five bought and sold. */
    private static AtomicLongArray honest()
    {
        final AtomicLongArray clients = new AtomicLongArray(SimulatedClients.DUE_WHILE_LOST + 1);
        clients.set(SimulatedClients.NEW_ORDERS, 10);
        clients.set(SimulatedClients.ACKS, 10);
        clients.set(SimulatedClients.BOUGHT, 5);
        clients.set(SimulatedClients.SOLD, 5);
        return clients;
    }

    @Test
    void anOrderFilledAndCanceledOrAReportReceivedTwiceFailsTheRun()
    {
        assertTrue(Summary.clientsConserved(honest(), fix));

        final AtomicLongArray filledAndCanceled = honest();
        filledAndCanceled.set(SimulatedClients.FILLED_AND_CANCELED, 1);
        assertFalse(Summary.clientsConserved(filledAndCanceled, fix));

        final AtomicLongArray twice = honest();
        twice.set(SimulatedClients.DUPLICATE_SEQUENCES, 1);
        assertFalse(Summary.clientsConserved(twice, fix));

        final AtomicLongArray unbalanced = honest();
        unbalanced.set(SimulatedClients.SOLD, 4);
        assertFalse(Summary.clientsConserved(unbalanced, fix), "fills balance still counts");
    }
}
