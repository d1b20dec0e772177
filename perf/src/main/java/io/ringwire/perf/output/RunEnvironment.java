package io.ringwire.perf.output;

import io.ringwire.perf.host.GcActivity;
import io.ringwire.rdma.host.OnlineCpus;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where a run ran, for its {@code summary.json}: a figure without its machine and revision cannot be
 * compared with another.
 *
 * @param gitRevision    {@code git rev-parse HEAD} in the clone ({@link #repository()}), or "unknown".
 * @param jvmVersion     {@code Runtime.version()} with the VM's name and vendor.
 * @param jvmArguments   the JVM's input flags.
 * @param cpuModel       the first "model name" of /proc/cpuinfo, or "unknown".
 * @param onlineCores    CPUs online.
 * @param kernel         /proc/sys/kernel/osrelease (what {@code uname -r} prints), else os.version.
 * @param gcCount        collections so far, all collectors.
 * @param gcTimeMs       their accumulated time, ms (pauses and, for concurrent collectors, cycles).
 */
public record RunEnvironment(
    String gitRevision,
    String jvmVersion,
    List<String> jvmArguments,
    String cpuModel,
    int onlineCores,
    String kernel,
    long gcCount,
    long gcTimeMs)
{
    /** What a value nobody could read is given as. */
    public static final String UNKNOWN = "unknown";
    /** The clone the run belongs to, as the launcher (and Maven's test runs) name it. */
    public static final String REPOSITORY_PROP = "ringwire.repo.dir";
    private static final long GIT_TIMEOUT_MS = 5_000;

    /**
     * Reads this machine and JVM now (GC figures are the totals since the JVM started).
     *
     * @return the environment.
     */
    public static RunEnvironment capture()
    {
        final GcActivity gc = GcActivity.now();
        return new RunEnvironment(readGitRevision(), Runtime.version() + " (" + System.getProperty("java.vm.name") +
            ", " + System.getProperty("java.vm.vendor") + ")",
            List.copyOf(ManagementFactory.getRuntimeMXBean().getInputArguments()), readCpuModel(),
            OnlineCpus.count(), readKernel(), gc.collections(), gc.timeMs());
    }

    /**
     * @return the clone {@value #REPOSITORY_PROP} names, absolute; the working directory where it is
     *         not set (a command run from elsewhere than the clone would otherwise write its results,
     *         and read its revision, there).
     */
    public static Path repository()
    {
        return Path.of(System.getProperty(REPOSITORY_PROP, "")).toAbsolutePath();
    }

    private static String readGitRevision()
    {
        try
        {
            final Process git = new ProcessBuilder("git", "rev-parse", "HEAD").directory(repository().toFile())
                .redirectErrorStream(true).start();
            git.getOutputStream().close();
            if (!git.waitFor(GIT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                git.destroyForcibly();
                return UNKNOWN;
            }
            final String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return git.exitValue() == 0 && output.matches("[0-9a-f]{40,64}") ? output : UNKNOWN;
        }
        catch (final IOException ex)
        {
            return UNKNOWN;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return UNKNOWN;
        }
    }

    private static String readCpuModel()
    {
        for (final String line : readLines(Path.of("/proc/cpuinfo")))
        {
            if (line.startsWith("model name"))
            {
                final int colon = line.indexOf(':');
                return colon < 0 ? UNKNOWN : line.substring(colon + 1).trim();
            }
        }
        return UNKNOWN;
    }

    private static String readKernel()
    {
        final List<String> release = readLines(Path.of("/proc/sys/kernel/osrelease"));
        return release.isEmpty() ? System.getProperty("os.version", UNKNOWN) : release.getFirst().trim();
    }

    private static List<String> readLines(final Path file)
    {
        try
        {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException | RuntimeException ex)
        {
            return List.of();
        }
    }
}
