package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A second opener of a journal in the writer's own process, or a replay's check there, is refused
 * without opening the lock file again: closing that channel would drop the process's lock on it, and
 * another process could then open the journal beside the writer.
 */
class JournalLockTest
{
    @TempDir
    Path directory;

    @Test
    void aSecondOpenerAndAReplaysCheckInTheWritersProcessLeaveItsLockKeepingOtherProcessesOut() throws Exception
    {
        try (Journal journal = Journal.open(new JournalContext().directory(directory).conclude()))
        {
            assertThrows(IllegalStateException.class, () -> Journal.open(new JournalContext().directory(directory)
                .conclude()));
            final IllegalStateException check = assertThrows(IllegalStateException.class,
                () -> JournalDirectory.requireNoWriter(directory));
            assertTrue(check.getMessage().contains("open for appending in this process"), check.getMessage());

            final String probe = probe();
            assertTrue(probe.startsWith("REFUSED"), "another process: " + probe);
            assertEquals(0, journal.append(new UnsafeBuffer(new byte[8]), 0, 8));
        }
        assertEquals("OPENED", probe(), "the writer gone, another process opens it");
        assertDoesNotThrow(() -> JournalDirectory.requireNoWriter(directory));
    }

    /** @return what {@link JournalLockProbe} said in a process of its own. */
    private String probe() throws IOException, InterruptedException
    {
        return ChildJvm.firstLine(JournalLockProbe.class, List.of("OPENED", "REFUSED"), directory.toString());
    }
}
