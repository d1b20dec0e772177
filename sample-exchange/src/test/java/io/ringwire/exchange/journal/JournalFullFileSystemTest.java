package io.ringwire.exchange.journal;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A journal on a file system that fills up, a real one: a 512 KiB tmpfs mounted in a mount
 * namespace of the child process's own ({@link JournalFullFileSystemProcess}), so nothing is
 * mounted where anything else sees it. Runs where {@code unshare} and {@code mount} are allowed
 * (root, as the CI machine and the lab run); elsewhere it is skipped, saying why.
 */
@Tag("system")
class JournalFullFileSystemTest
{
    @TempDir
    Path directory;

    @Test
    void aRecordTheFullFileSystemHasNoRoomForIsRefusedWithNothingWrittenAndTheJournalGoesOnOnceThereIsRoom()
        throws Exception
    {
        final Path unshare = Path.of("/usr/bin/unshare");
        Assumptions.assumeTrue(Files.isExecutable(unshare), "needs util-linux's unshare");
        final Path mountPoint = Files.createDirectory(directory.resolve("small"));
        final List<String> command = new ArrayList<>(List.of(unshare.toString(), "--mount", "sh", "-c",
            "mount -t tmpfs -o size=512k tmpfs \"$0\" || { echo NOMOUNT; exit 0; }; exec \"$@\"",
            mountPoint.toString()));
        command.addAll(ChildJvm.command(JournalFullFileSystemProcess.class, mountPoint.toString(), "60"));
        final Path stderr = directory.resolve("stderr");
        final Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        if (!process.waitFor(240, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            fail("the child did not finish in 240 s: " + Files.readString(stderr));
        }
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        final String err = Files.readString(stderr);
        Assumptions.assumeFalse(out.contains("NOMOUNT") || (out.isEmpty() && err.startsWith("unshare:")),
            "cannot mount a tmpfs in a mount namespace here: " + out + " " + err);
        assertEquals(0, process.exitValue(), "the child failed:\n" + out + "\n" + err);
        assertTrue(out.startsWith("OK rounds=60 refused=120"), out + "\n" + err);
    }
}
