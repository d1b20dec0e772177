package io.ringwire.exchange.engine;

import io.ringwire.exchange.journal.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
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

    /** @return what {@link EngineLockProbe} said in a process of its own. */
    private String probe() throws IOException, InterruptedException
    {
        return ChildJvm.firstLine(EngineLockProbe.class, List.of("TAKEN", "REFUSED"), directory.toString());
    }
}
