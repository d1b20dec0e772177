package io.ringwire.exchange.node;

import io.ringwire.exchange.book.OrderTerms;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.SimulatedClients;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request the engine's journal refuses is not applied, and its client hears so: over real
 * messaging with the gateway, market data and simulated clients, the journal's directory is
 * removed while they trade, so from the next segment on every append is refused, and every new
 * order is still acknowledged, the refused ones by a JOURNAL_REFUSED reject: where the engine
 * journals itself, and where a journaller ahead of it hands the refusal to the engine's thread (its
 * prepared next segment, mapped before the directory went, cannot be renamed into place either).
 *
 * <p>Thread layout: {@link InProcessRoles}'s, plus the journaller's thread where it runs (backing off).
 */
@Tag("system")
class JournalRefusalTest extends InProcessRolesBase
{
    private static final int INSTRUMENTS = 4;
    private static final int CLIENTS = 2;

    @ParameterizedTest(name = "journaller on its own thread: {0}")
    @ValueSource(booleans = { false, true })
    void aRequestTheJournalRefusesIsRejectedToItsClient(final boolean journaller) throws Exception
    {
        final Path journal = directory.resolve("journal");
        openRoles(CLIENTS, INSTRUMENTS, 4_000);
        roles.start(journal, ExchangeDemo.engineConfig(INSTRUMENTS, CLIENTS), 64 << 10,
            new EngineThreads(journaller, false, false));
        final EngineNode engine = roles.engine;
        final AtomicLongArray counters = roles.clients.counters();
        roles.await(() -> counters.get(SimulatedClients.NEW_ORDERS) > 1_000, "the clients trading");
        // The journal's next segment cannot be made once its directory is gone: every append from
        // the next roll on is refused.
        ExchangeDemo.deleteQuietly(journal);
        final int refused = SimulatedClients.REJECT_REASONS + OrderTerms.JOURNAL_REFUSED;
        roles.await(() -> counters.get(refused) > 50, "rejects for JOURNAL_REFUSED at the clients");
        roles.drain();

        assertTrue(engine.refused() > 0, "the journal refused appends");
        assertTrue(engine.journalFailures() > 0, "its segments that could not be made, counted");
        assertTrue(engine.refusalsReported() > 0, "the engine sent the rejects");
        final var gatewayCounters = roles.gateway.gateway().counters();
        assertEquals(counters.get(SimulatedClients.NEW_ORDERS), counters.get(SimulatedClients.ACKS),
            "every new order acknowledged, the refused ones by their reject; gateway: forwarded " +
            gatewayCounters.forwarded() + ", routed " + gatewayCounters.routed() + ", for gone sessions " +
            gatewayCounters.reportsForGoneSessions() + ", heartbeat timeouts " + gatewayCounters.heartbeatTimeouts() +
            ", transport losses " + gatewayCounters.transportLosses() + ", send failures " +
            gatewayCounters.sessionSendFailures() + ", engine malformed " + gatewayCounters.engineMalformed() +
            "; engine: refused " + engine.refused() + ", reported " + engine.refusalsReported() + ", applied " +
            engine.engine().applied() + "; clients: sent " + counters.get(SimulatedClients.SENT) + ", logons " +
            counters.get(SimulatedClients.LOGGED_ON) + ", unsent " + counters.get(SimulatedClients.UNSENT));
        assertEquals(0, counters.get(SimulatedClients.DUPLICATE_ACKS));
        assertEquals(counters.get(SimulatedClients.BOUGHT), counters.get(SimulatedClients.SOLD));
        assertTrue(roles.failures.isEmpty(), roles.failures.toString());
    }
}
