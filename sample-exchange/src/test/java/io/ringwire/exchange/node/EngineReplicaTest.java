package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.SimulatedClients;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.JournaledEngine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The running engine with its digest and snapshots kept off its thread (what it does on four CPUs
 * or more, forced here), with and without the journaller ahead of it (eight CPUs or more, forced
 * too): over real messaging with the gateway, market data and simulated clients,
 * the replica writes the snapshots while they trade, every order is answered, and a restart from
 * the replica's newest snapshot and the journal after it reaches the books and the output digest
 * the engine (its digest kept by the digest's thread) ended with.
 *
 * <p>Thread layout: {@link InProcessRoles}'s, plus the engine's journaller, digest and replica
 * threads, which back off.
 */
@Tag("system")
class EngineReplicaTest extends InProcessRolesBase
{
    @ParameterizedTest(name = "journaller on its own thread: {0}")
    @ValueSource(booleans = { false, true })
    void aReplicaWritesTheSnapshotsWhileTheEngineTradesAndARestartFromThemReachesTheSameState(final boolean journaller)
        throws Exception
    {
        final Path journal = directory.resolve("journal");
        final EngineConfig base = ExchangeDemo.engineConfig(4, 2);
        final EngineConfig config = new EngineConfig(base.instruments(), base.maxOrders(), base.maxAccounts(), 1_000);
        openRoles(2, 4, 4_000);
        roles.start(journal, config, 1 << 20, new EngineThreads(journaller, true, true));
        final EngineNode engine = roles.engine;
        assertTrue(engine.threads().replica() && engine.threads().digest());
        roles.await(() -> engine.snapshotsTaken() >= 3, "three snapshots written by the replica");
        roles.drain();

        final AtomicLongArray counters = roles.clients.counters();
        assertEquals(counters.get(SimulatedClients.NEW_ORDERS), counters.get(SimulatedClients.ACKS),
            "every new order acknowledged");
        assertEquals(0, counters.get(SimulatedClients.DUPLICATE_ACKS));
        assertTrue(roles.failures.isEmpty(), roles.failures.toString());
        assertNull(engine.backgroundFailure(), "the journaller's, the digest's and the replica's threads");
        assertTrue(engine.digestedMessages() > 0, "the digest was kept on its own thread");
        final String digest = engine.digest();
        final long applied = engine.engine().applied();
        final String books = engine.engine().engine().booksDigest();
        roles.close();

        try (JournaledEngine restarted = JournaledEngine.open(journal, null, EngineOutput.NONE, 1 << 20))
        {
            assertTrue(restarted.recovery().fromSequence() >= 3_000, "the restart began at the replica's newest " +
                "snapshot: " + restarted.recovery());
            assertEquals(applied, restarted.applied());
            assertEquals(books, restarted.engine().booksDigest(), "the same books");
            assertEquals(digest, restarted.digest(), "the same output digest");
        }
        assertEquals(digest, JournaledEngine.replay(journal).digest(), "and replay's from the journal alone");
    }
}
