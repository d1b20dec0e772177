package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.cm.Identity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine whose open fails after it started some of its helpers' threads (the journaller's
 * thread cannot start, as when the process is out of threads) leaves nothing behind: the helpers
 * that started end, the node's duty cycle runs on as before an open, and open succeeds once threads
 * start again (the failed one let go of the journal and the engine's lock).
 *
 * <p>Thread layout: the test's thread drives the node; the helpers' threads back off when idle
 * (the journaller spins only where the CPUs were counted for it).
 */
class EngineNodeOpenFailureTest
{
    @TempDir
    Path directory;

    @Test
    @Timeout(120)
    void aHelperThreadThatCannotStartLeavesNothingRunningAndOpenWorksOnceThreadsStartAgain() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final Map<String, Identity> identities = new HashMap<>();
        layout.identities().forEach(name -> identities.put(name, Identity.generate(name)));
        final MessagingContext engineSide = RoleContexts.context(directory, identities, List.of(ExchangeLayout.ENGINE),
            List.of(ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA), 10_000, 0);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(5, 1_000, 1_000), 50_000, 100, 0);
        final List<Thread> started = new CopyOnWriteArrayList<>();
        try (EngineNode node = new EngineNode(engineSide, layout, directory.resolve("journal"), config, new RunFlag(),
            1 << 20, EngineThreads.ALL))
        {
            node.helperThreads(runnable ->
            {
                if (started.size() == 2)
                {
                    throw new OutOfMemoryError("unable to create native thread (the test's third helper)");
                }
                final Thread thread = new Thread(runnable);
                started.add(thread);
                return thread;
            });
            assertThrows(OutOfMemoryError.class, node::open);
            assertEquals(2, started.size(), "the replica's and the digest's threads started first");
            for (final Thread thread : started)
            {
                thread.join(10_000);
                assertFalse(thread.isAlive(), thread.getName() + " still runs after the open failed");
            }
            for (int i = 0; i < 10_000; i++)
            {
                node.doWork(); // as before an open: no helper taken for running beside an engine
            }
            assertNull(node.backgroundFailure());

            started.clear();
            node.helperThreads(runnable ->
            {
                final Thread thread = new Thread(runnable);
                started.add(thread);
                return thread;
            });
            node.open();
            assertEquals(3, started.size(), "the replica's, the digest's and the journaller's threads");
            for (int i = 0; i < 1_000; i++)
            {
                node.doWork();
            }
            assertNull(node.backgroundFailure());
            assertTrue(started.stream().allMatch(Thread::isAlive), "the helpers run");
        }
        for (final Thread thread : started)
        {
            thread.join(10_000);
            assertFalse(thread.isAlive(), thread.getName() + " still runs after close");
        }
    }
}
