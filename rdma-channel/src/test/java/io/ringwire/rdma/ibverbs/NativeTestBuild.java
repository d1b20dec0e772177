package io.ringwire.rdma.ibverbs;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Compiles the C sources under {@code src/test/c} with gcc against the installed
 * {@code <infiniband/verbs.h>}. These tests are the only check of the provider's native side on
 * machines without RDMA, so where they cannot build they say what to install: under
 * {@code ./ringwire test}, which installs gcc and libibverbs-dev first and then sets
 * {@value #REQUIRE_PROP}, the calling test fails; under a plain {@code mvn verify} on a machine
 * without them it is skipped with that reason, since a test asserts what the machine's state
 * implies, not that it has a package.
 */
final class NativeTestBuild
{
    /** Set by {@code ./ringwire test}: the packages are there, so a missing one is a failure. */
    static final String REQUIRE_PROP = "ringwire.test.require.native";
    static final String INSTALL = "install gcc and libibverbs-dev (apt-get install gcc libc6-dev libibverbs-dev; " +
        "./ringwire test installs them)";

    private NativeTestBuild()
    {
    }

    /**
     * @param name a file in {@code src/test/c}.
     * @return its path.
     */
    static Path source(final String name)
    {
        final Path relative = Path.of("src/test/c", name);
        if (Files.isRegularFile(relative))
        {
            return relative.toAbsolutePath();
        }
        final String repo = System.getProperty("ringwire.repo.dir");
        final Path fromRepo = Path.of(null == repo ? "." : repo, "rdma-channel", relative.toString());
        if (Files.isRegularFile(fromRepo))
        {
            return fromRepo;
        }
        return fail("cannot find " + relative + " (working directory " + Path.of("").toAbsolutePath() + ")");
    }

    private static void missing(final String reason)
    {
        if (Boolean.getBoolean(REQUIRE_PROP))
        {
            fail(reason);
        }
        Assumptions.abort(reason);
    }

    /**
     * Runs {@code gcc -std=gnu11 -Wall -Wextra -Werror [options] -o output source}.
     *
     * @param source  the C file.
     * @param output  what to produce.
     * @param options extra gcc options (e.g. -shared -fPIC).
     */
    static void compile(final Path source, final Path output, final String... options) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of("gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror"));
        command.addAll(List.of(options));
        command.addAll(List.of("-o", output.toString(), source.toString()));
        final Process compile;
        try
        {
            compile = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            missing("gcc is not installed (" + ex.getMessage() + "): " + INSTALL);
            return;
        }
        final String compilerOutput = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(compile.waitFor(120, TimeUnit.SECONDS), "gcc did not finish within 120 s");
        if (compile.exitValue() != 0)
        {
            if (compilerOutput.contains("infiniband/verbs.h") || compilerOutput.contains("stdio.h") ||
                compilerOutput.contains("stdlib.h"))
            {
                missing("C headers are missing: " + INSTALL + "\n" + compilerOutput);
            }
            fail("gcc failed on " + source + ":\n" + compilerOutput);
        }
    }
}
