package io.ringwire.exchange.engine;

import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.journal.ChildJvm;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A second engine in the first's own process is refused without opening the lock file again:
 * closing that channel would drop the process's lock, and an engine in another process could then
 * start on the same journal.
 */
class EngineLockTest
{
    @TempDir
    Path directory;

    @Test
    void aSecondEngineInTheFirstsProcessLeavesItsLockKeepingEnginesOfOtherProcessesOut() throws Exception
    {
        try (EngineLock ignored = EngineLock.take(directory))
        {
            final IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> EngineLock.take(directory));
            assertTrue(refused.getMessage().contains("another engine runs on the journal"), refused.getMessage());

            final String probe = probe();
            assertTrue(probe.startsWith("REFUSED"), "another process: " + probe);
        }
        assertEquals("TAKEN", probe(), "the engine gone, another process takes the lock");
    }

    @Test
    void aReplayIsRefusedWhileAnEngineHoldsTheJournalBeforeItsWriterOpensIt() throws Exception
    {
        final OrderFlow flow = new OrderFlow(78, 2, 1, 10, 1_000, 20, 512);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(2, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 1_000, 50, 0);
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            for (int i = 0; i < 10; i++)
            {
                engine.accept(request, 0, flow.next(request, 0));
            }
        }
        // An engine recovering holds its engine lock alone: the journal's own lock comes with its writer.
        try (EngineLock ignored = EngineLock.take(directory))
        {
            final IllegalStateException here = assertThrows(IllegalStateException.class,
                () -> JournaledEngine.replay(directory));
            assertTrue(here.getMessage().contains("an engine runs on the journal"), here.getMessage());

            final String elsewhere = ChildJvm.firstLine(EngineLockProbe.class, List.of("REPLAYED", "REFUSED"),
                directory.toString(), "replay");
            assertTrue(elsewhere.startsWith("REFUSED an engine runs on the journal"), "another process: " + elsewhere);
        }
        assertEquals("TAKEN", probe(), "the check gave the lock back");
        assertEquals(10, JournaledEngine.replay(directory).records(), "no engine: the journal replays");
    }

    /** @return what {@link EngineLockProbe} said in a process of its own. */
    private String probe() throws IOException, InterruptedException
    {
        return ChildJvm.firstLine(EngineLockProbe.class, List.of("TAKEN", "REFUSED"), directory.toString());
    }
}
