package io.ringwire.rdma.vm;

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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The host's settings for the lab's guest reach its job: the guest boots with no environment, so
 * {@code softroce-lab.sh run} writes the ones it passes into the results share and stage 2 sources
 * them. Runs the script's own functions with bash on this host; boots nothing, and never executes
 * the rendered stage 2 (it powers the machine off).
 */
class SoftRoceLabGuestEnvTest
{
    private static final Path LAB = Path.of("src/test/vm/softroce-lab.sh").toAbsolutePath();

    @TempDir
    Path tempDir;

    @Test
    void theJdkDirectoryAndNamedJobKnobsArePassedQuotedAndNothingElse() throws Exception
    {
        final Path guestEnv = tempDir.resolve("guest-env");
        final Result written = bash(Map.of("RINGWIRE_VM_JDK", "/opt/jdk 25's", "RINGWIRE_VM_PASS_ENV",
            "IBV_ROUNDTRIPS\nPEER_TIMEOUT LAT_SIZE", "LAT_SIZE", "64", "IBV_ROUNDTRIPS", "7", "NOT_PASSED", "x"),
            functions() + "write_guest_env \"$1\"", guestEnv.toString());
        assertEquals(0, written.code, written.output);

        // What the guest's job sees: a clean environment, the file sourced, lib-rxe.sh's default for the JDK.
        final Result seen = bash(Map.of(), ". \"$1\"; printf '%s|%s|%s|%s|%s' " +
            "\"${RINGWIRE_VM_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}\" \"$IBV_ROUNDTRIPS\" " +
            "\"${PEER_TIMEOUT-unset}\" \"$LAT_SIZE\" \"${NOT_PASSED-unset}\"", guestEnv.toString());
        assertEquals("/opt/jdk 25's|7|unset|64|unset", seen.output);
    }

    @Test
    void withNothingSetTheGuestGetsAnEmptyFileUnderTheScriptsOwnStrictMode() throws Exception
    {
        // The lab's Maven jobs run the script with none of the settings in their environment.
        final Path guestEnv = tempDir.resolve("guest-env");
        final Result written = bash(Map.of(), functions() + "write_guest_env \"$1\"", guestEnv.toString());
        assertEquals(0, written.code, written.output);
        assertEquals("", Files.readString(guestEnv));
    }

    @Test
    void aPassedNameThatIsNotAVariableOrIsTheGuestsOwnIsRefused() throws Exception
    {
        final Result notAName = bash(Map.of("RINGWIRE_VM_PASS_ENV", "IBV_ROUNDTRIPS;reboot"),
            functions() + "write_guest_env \"$1\"", tempDir.resolve("guest-env").toString());
        assertEquals(1, notAName.code, notAName.output);
        assertTrue(notAName.output.contains("RINGWIRE_VM_PASS_ENV: 'IBV_ROUNDTRIPS;reboot' is not a variable name"),
            notAName.output);

        final Result own = bash(Map.of("RINGWIRE_VM_PASS_ENV", "IBV_ROUNDTRIPS RESULTS", "RESULTS", "/tmp"),
            functions() + "write_guest_env \"$1\"", tempDir.resolve("guest-env").toString());
        assertEquals(1, own.code, own.output);
        assertTrue(own.output.contains("RINGWIRE_VM_PASS_ENV: RESULTS is the guest's own"), own.output);
    }

    @Test
    void aPassedPatternIsANameNotAGlob() throws Exception
    {
        final Path guestEnv = tempDir.resolve("guest-env");
        Files.writeString(tempDir.resolve("IBV_MATCHED"), "");
        final Result refused = bash(Map.of("RINGWIRE_VM_PASS_ENV", "IBV_*", "IBV_MATCHED", "1"),
            "cd \"$(dirname \"$1\")\"; " + functions() + "write_guest_env \"$1\"", guestEnv.toString());
        assertEquals(1, refused.code, refused.output);
        assertTrue(refused.output.contains("'IBV_*' is not a variable name"), refused.output);
    }

    @Test
    void stageTwoSourcesThePassedSettingsBeforeItRunsTheJob() throws Exception
    {
        final Path stage2 = tempDir.resolve("stage2");
        final Result rendered = bash(Map.of(), functions() + "write_stage2 \"$1\"", stage2.toString());
        assertEquals(0, rendered.code, rendered.output);
        final List<String> lines = Files.readAllLines(stage2);
        final int env = lines.indexOf(". /run/ringwire-vm/env");
        final int passed = lines.indexOf("[ -r \"$RESULTS/guest-env\" ] && . \"$RESULTS/guest-env\"");
        final int job = indexOfStart(lines, "RINGWIRE_VM_RESULTS=$RESULTS timeout");
        assertTrue(env >= 0 && passed > env && job > passed, "env " + env + ", guest-env " + passed + ", job " + job);
        assertEquals(0, bash(Map.of(), "bash -n \"$1\"", stage2.toString()).code, "stage 2 parses");
    }

    @Test
    void everyJobTakesItsJdkFromTheSetting() throws IOException
    {
        final Path jobs = LAB.getParent().resolve("jobs");
        for (final String script : List.of("lib-rxe.sh", "rxe-smoke.sh"))
        {
            final String text = Files.readString(jobs.resolve(script));
            assertTrue(text.contains("JDK=${RINGWIRE_VM_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"), script);
        }
    }

    /** The lab script's definitions, without the command dispatch at its end. */
    private static String functions() throws IOException
    {
        final String script = Files.readString(LAB);
        final int dispatch = script.indexOf("\ncase \"${1:-}\" in\n");
        assertTrue(dispatch > 0, "the script ends in its command dispatch");
        return script.substring(0, dispatch) + "\n";
    }

    private static int indexOfStart(final List<String> lines, final String prefix)
    {
        for (int i = 0; i < lines.size(); i++)
        {
            if (lines.get(i).startsWith(prefix))
            {
                return i;
            }
        }
        return -1;
    }

    private record Result(int code, String output)
    {
    }

    private static Result bash(final Map<String, String> env, final String script, final String arg) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of("bash", "-c", script, "lab", arg));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        builder.environment().putAll(env);
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "bash finished");
        return new Result(process.exitValue(), output);
    }
}
