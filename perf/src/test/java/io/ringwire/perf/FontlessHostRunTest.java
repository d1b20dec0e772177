package io.ringwire.perf;

import io.ringwire.perf.output.ResultsWriter;
import io.ringwire.perf.testing.ChildJvm;
import io.ringwire.perf.testing.MiniJson;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code ringwire perf rtt} on a host without fonts: a child JVM runs it in a mount namespace whose
 * font directories are empty tmpfs mounts, so AWT cannot draw a string there. The run must still
 * print its JSON, write every file that needs no font, skip the plots with one line that says why
 * and what to install, and exit 0.
 *
 * <p>Needs root and {@code unshare} (util-linux) to mount in a namespace of its own. Where it cannot,
 * it is skipped with the reason, except under {@code ./ringwire test} (CI), which sets
 * {@value #REQUIRE_PROP} and so turns the skip into a failure, as the native tests do.
 */
@Tag("system")
class FontlessHostRunTest
{
    /** Set by {@code ./ringwire test}: the host can run every system test, so one that cannot fails. */
    private static final String REQUIRE_PROP = "ringwire.test.require.native";
    /** Where fontconfig finds its configuration and Debian's fonts: the reproduction hides both. */
    private static final List<String> FONT_DIRECTORIES = List.of("/usr/share/fonts", "/etc/fonts");
    private static final long RUN_TIMEOUT_S = 120;

    @TempDir
    Path directory;

    @Test
    @SuppressWarnings("unchecked")
    void anRttRunWithoutFontsWritesEveryFileButThePlotsSaysSoOnceAndExitsZero() throws Exception
    {
        requireMountNamespace(Files.createDirectories(directory.resolve("probe")));
        final Path results = directory.resolve("results");
        final Path stdout = directory.resolve("stdout");
        final Path stderr = directory.resolve("stderr");

        final Process run = new ProcessBuilder(withoutFonts(List.of("rtt", "--provider", "bare", "--messages",
            "2000", "--warmup", "1000", "--json", "--allow-oversubscribe", "--shm-dir",
            directory.resolve("shm").toString(), "--out", results.toString())))
            .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        run.getOutputStream().close();
        if (!run.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS))
        {
            run.destroyForcibly();
            fail("perf rtt without fonts did not end within " + RUN_TIMEOUT_S + " s; stderr:\n" + read(stderr));
        }

        final String err = read(stderr);
        assertEquals(0, run.exitValue(), err);
        final Map<String, Object> json = (Map<String, Object>)MiniJson.parse(read(stdout));
        assertEquals("rtt", json.get("benchmark"), "the JSON is printed");
        final List<String> skipped = err.lines().filter(line -> line.contains("plots skipped")).toList();
        assertEquals(1, skipped.size(), err);
        assertTrue(skipped.getFirst().startsWith("rtt: plots skipped: AWT cannot draw text on this host ("), err);
        assertTrue(skipped.getFirst().endsWith("; install a font for them (Debian: apt-get install fontconfig " +
            "fonts-dejavu-core)"), err);
        assertFalse(err.contains("failed") || err.contains("Exception"), err);
        for (final String file : List.of("bare-raw.hdr", "bare-raw.hgrm", ResultsWriter.SUMMARY_JSON,
            ResultsWriter.RESULTS_MD))
        {
            assertTrue(Files.size(results.resolve(file)) > 0, file + " is written");
        }
        try (Stream<Path> files = Files.list(results))
        {
            assertEquals(List.of(), files.map(file -> file.getFileName().toString())
                .filter(name -> name.endsWith(".png")).toList(), "no plot is left behind, not even an empty one");
        }
        assertFalse(read(results.resolve(ResultsWriter.RESULTS_MD)).contains(".png"), "results.md links no plot");
    }

    /**
     * The JDK caches what fontconfig answered under {@code user.home} (.java/fonts), naming font files
     * that may lie outside the hidden directories, so the child gets a home of its own.
     *
     * @return {@code unshare -m sh -c 'mount ... && exec java ... PerfMain args'}.
     */
    private List<String> withoutFonts(final List<String> perfArguments) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of("unshare", "-m", "sh", "-c",
            mounts() + " && exec \"$0\" \"$@\""));
        command.addAll(ChildJvm.javaWithThisJvmsOptions("-Duser.home="));
        command.add("-Duser.home=" + Files.createDirectories(directory.resolve("home")));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PerfMain.class.getName());
        command.addAll(perfArguments);
        return command;
    }

    private static String mounts()
    {
        final List<String> mounts = new ArrayList<>();
        for (final String fonts : FONT_DIRECTORIES)
        {
            if (Files.isDirectory(Path.of(fonts)))
            {
                mounts.add("mount -t tmpfs none " + fonts);
            }
        }
        return mounts.isEmpty() ? "true" : String.join(" && ", mounts);
    }

    /**
     * Skips, with the reason, where a mount namespace cannot be made; fails instead under
     * {@value #REQUIRE_PROP} where the process is root (a user who is not skips either way).
     */
    private static void requireMountNamespace(final Path probeDirectory) throws Exception
    {
        final String reason = mountNamespaceUnavailableReason(probeDirectory);
        if (null == reason)
        {
            return;
        }
        // The property says the packages are there; a user who is not root still cannot run this.
        if (Boolean.getBoolean(REQUIRE_PROP) && Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"),
            "unix:uid")))
        {
            fail(reason + " (" + REQUIRE_PROP + " is set, so this test must run)");
        }
        Assumptions.abort(reason);
    }

    private static String mountNamespaceUnavailableReason(final Path probeDirectory) throws Exception
    {
        final Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (!Integer.valueOf(0).equals(uid))
        {
            return "hiding the fonts needs root to mount in a namespace of its own (uid is " + uid + ")";
        }
        final Process probe;
        try
        {
            probe = new ProcessBuilder("unshare", "-m", "mount", "-t", "tmpfs", "none", probeDirectory.toString())
                .redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            return "unshare is not installed (" + ex.getMessage() + "): apt-get install util-linux mount";
        }
        final String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!probe.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS) || probe.exitValue() != 0)
        {
            return "cannot mount in a new mount namespace here (" + output + "): it needs CAP_SYS_ADMIN, " +
                "e.g. a privileged container";
        }
        return null;
    }

    private static String read(final Path file) throws IOException
    {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
