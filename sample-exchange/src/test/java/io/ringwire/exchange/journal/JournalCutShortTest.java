package io.ringwire.exchange.journal;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A segment cut short under the journal by another hand: the append whose store meets the cut is
 * refused, what it stored before the cut is zeroed, and the journal opened again goes on. The fault
 * reaches the append as an error only while the JVM runs it interpreted (compiled, it may end the
 * process), so a child JVM runs it with {@code -Xint} ({@link JournalCutShortProcess}).
 */
@Tag("system")
class JournalCutShortTest
{
    @TempDir
    Path directory;

    @Test
    void anAppendMeetingASegmentCutShortIsRefusedAndWhatItStoredBeforeTheCutIsZeroed() throws Exception
    {
        final Path stderr = directory.resolve("stderr");
        final Process process = new ProcessBuilder(ChildJvm.command(List.of("-Xint"), JournalCutShortProcess.class,
            directory.resolve("journal").toString())).redirectError(stderr.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            fail("the child did not finish in 120 s: " + Files.readString(stderr));
        }
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        final String err = Files.readString(stderr);
        assertEquals(0, process.exitValue(), "the child failed:\n" + out + "\n" + err);
        assertTrue(out.startsWith("OK records=13"), out + "\n" + err);
    }
}
