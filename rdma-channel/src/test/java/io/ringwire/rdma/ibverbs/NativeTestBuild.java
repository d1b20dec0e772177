package io.ringwire.rdma.ibverbs;

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
 * {@code <infiniband/verbs.h>}. Without gcc or the header the calling test fails and says what to
 * install: these tests are the only check of the provider's native side on machines without RDMA.
 */
final class NativeTestBuild
{
    static final String INSTALL = "install gcc and libibverbs-dev (apt-get install gcc libibverbs-dev; " +
        ".ci/run installs them)";

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
            fail("gcc is not installed (" + ex.getMessage() + "): " + INSTALL);
            return;
        }
        final String compilerOutput = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(compile.waitFor(120, TimeUnit.SECONDS), "gcc did not finish within 120 s");
        if (compile.exitValue() != 0)
        {
            if (compilerOutput.contains("infiniband/verbs.h"))
            {
                fail("<infiniband/verbs.h> is missing: " + INSTALL + "\n" + compilerOutput);
            }
            fail("gcc failed on " + source + ":\n" + compilerOutput);
        }
    }
}
