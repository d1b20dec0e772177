package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.JournaledEngine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A clean stop of an engine with the journaller ahead of it: requests the journal took while the
 * engine was not applying them (its output held back, or its thread behind) are applied before
 * the engine reports its digest, so that digest is the one replay of the journal gives.
 *
 * <p>Thread layout: {@link InProcessRoles}'s, plus the engine's journaller (and digest and replica)
 * threads, which back off; the engine's own thread is stopped part way and the test's thread finishes it.
 */
@Tag("system")
class EngineStopTest extends InProcessRolesBase
{
    @ParameterizedTest(name = "digest and replica on threads of their own: {0}")
    @ValueSource(booleans = { false, true })
    void aStoppedEngineAppliesWhatTheJournalTookSoItsDigestIsReplays(final boolean helpers) throws Exception
    {
        final Path journal = directory.resolve("journal");
        openRoles(2, 4, 4_000);
        roles.start(journal, ExchangeDemo.engineConfig(4, 2), 1 << 20, new EngineThreads(true, helpers, helpers));
        final EngineNode engine = roles.engine;
        roles.await(() -> engine.engine().applied() >= 500, "500 requests applied");

        // The engine's thread stops while the gateway and clients go on: the journaller takes and
        // journals what arrives, and it waits in the engine's ring.
        roles.stopEngineThread();
        roles.await(engine::journaledWaiting, "a journaled request the engine has not applied");
        roles.stopThreads();
        final long appliedAtStop = engine.engine().applied();

        final int finished = engine.finishJournaled();
        final long applied = engine.engine().applied();
        assertFalse(engine.journaledWaiting(), "nothing journaled is left unapplied");
        for (int i = 0; i < 100; i++)
        {
            engine.doWork(); // the requests subscription's housekeeping; nothing more is taken
        }
        assertEquals(applied, engine.engine().applied(), "no request taken after the finish");
        final String digest = engine.digest();
        roles.close();

        final JournaledEngine.Replay replay = JournaledEngine.replay(journal);
        assertEquals(replay.records(), applied, "the engine applied every request the journal holds");
        assertEquals(replay.digest(), digest, "the engine's digest is replay's");
        assertTrue(finished > 0 && applied > appliedAtStop, "the finish applied what waited: " + finished);
    }
}
