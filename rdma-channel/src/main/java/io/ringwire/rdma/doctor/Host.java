package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.IbverbsInventory;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The machine as the checks see it: files under a root directory ({@code /} normally; a fake tree
 * of {@code proc/} and {@code sys/} in tests), the RDMA devices, and the shared-library cache.
 * Absolute paths given to {@link #read} are resolved under the root.
 *
 * <p>Threading: one thread.
 */
public final class Host
{
    private static final long LDCONFIG_TIMEOUT_MS = 10_000;

    private final Path root;
    private final Supplier<IbverbsInventory.Snapshot> rdmaScan;
    private final Supplier<String> libraryCache;
    private final boolean scansRdma;
    private IbverbsInventory.Snapshot rdma;
    private String libraries;

    private Host(final Path root, final Supplier<IbverbsInventory.Snapshot> rdmaScan,
        final Supplier<String> libraryCache, final boolean scansRdma)
    {
        this.root = root;
        this.rdmaScan = rdmaScan;
        this.libraryCache = libraryCache;
        this.scansRdma = scansRdma;
    }

    /**
     * @return this machine: files from {@code /}, devices through libibverbs, libraries from {@code ldconfig -p}.
     */
    public static Host local()
    {
        return new Host(Path.of("/"), IbverbsInventory::scan, Host::ldconfig, true);
    }

    /**
     * @param root         where {@code proc/} and {@code sys/} are.
     * @param rdmaScan     the RDMA devices.
     * @param libraryCache what {@code ldconfig -p} would print ("" when unknown).
     * @return a host for tests or for a captured tree.
     */
    public static Host of(final Path root, final Supplier<IbverbsInventory.Snapshot> rdmaScan,
        final Supplier<String> libraryCache)
    {
        return new Host(root, rdmaScan, libraryCache, true);
    }

    /**
     * @param root where a captured {@code proc/} and {@code sys/} are.
     * @return a host whose files are read under {@code root} and whose RDMA devices and library cache are
     *         unknown: libibverbs and ldconfig only see the machine they run on, which is not the one captured.
     */
    public static Host captured(final Path root)
    {
        return new Host(root, () -> IbverbsInventory.Snapshot.unavailable(
            "RDMA devices are scanned on the live machine only (--root given)"), () -> "", false);
    }

    /**
     * @return whether {@link #rdma()} lists this host's devices; false for a captured tree.
     */
    public boolean scansRdma()
    {
        return scansRdma;
    }

    /**
     * @return the root directory files are read under.
     */
    public Path root()
    {
        return root;
    }

    /**
     * @param absolutePath e.g. "/proc/meminfo".
     * @return the path under the root.
     */
    public Path path(final String absolutePath)
    {
        return root.resolve(absolutePath.startsWith("/") ? absolutePath.substring(1) : absolutePath);
    }

    /**
     * @param absolutePath e.g. "/proc/self/limits".
     * @return its text, or empty when absent or unreadable.
     */
    public Optional<String> read(final String absolutePath)
    {
        try
        {
            return Optional.of(Files.readString(path(absolutePath)));
        }
        catch (final IOException | RuntimeException ex)
        {
            return Optional.empty();
        }
    }

    /**
     * @param absolutePath a file or directory.
     * @return whether it exists under the root.
     */
    public boolean exists(final String absolutePath)
    {
        return Files.exists(path(absolutePath));
    }

    /**
     * @param absoluteDirectory e.g. "/sys/devices/system/cpu".
     * @return the names in it, sorted; empty when absent.
     */
    public List<String> list(final String absoluteDirectory)
    {
        try (Stream<Path> entries = Files.list(path(absoluteDirectory)))
        {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
        catch (final IOException | RuntimeException ex)
        {
            return List.of();
        }
    }

    /**
     * @return the RDMA devices (scanned once).
     */
    public IbverbsInventory.Snapshot rdma()
    {
        if (null == rdma)
        {
            rdma = rdmaScan.get();
        }
        return rdma;
    }

    /**
     * @return the shared-library cache listing (read once), "" when unknown.
     */
    public String libraryCache()
    {
        if (null == libraries)
        {
            libraries = libraryCache.get();
        }
        return libraries;
    }

    private static String ldconfig()
    {
        // One run at most: the usual paths are often one binary (usrmerge), and a listing that hangs once
        // would hang again at the next of them.
        String ldconfig = "ldconfig";
        for (final String path : List.of("/sbin/ldconfig", "/usr/sbin/ldconfig"))
        {
            if (Files.isExecutable(Path.of(path)))
            {
                ldconfig = path;
                break;
            }
        }
        return outputOf(List.of(ldconfig, "-p"), LDCONFIG_TIMEOUT_MS).orElse("");
    }

    /**
     * Runs a command with its output going to a file, so a command that hangs (a stale NFS mount under
     * the library path) is stopped at the timeout rather than leaving the reader blocked on a pipe.
     *
     * @param command   the command and its arguments.
     * @param timeoutMs how long it may run.
     * @return its output, or empty when it could not start, failed, or ran past the timeout.
     */
    static Optional<String> outputOf(final List<String> command, final long timeoutMs)
    {
        Path output = null;
        Process process = null;
        try
        {
            output = Files.createTempFile("ringwire-doctor-", ".out");
            process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(output.toFile()).start();
            if (process.waitFor(timeoutMs, TimeUnit.MILLISECONDS) && process.exitValue() == 0)
            {
                return Optional.of(new String(Files.readAllBytes(output), StandardCharsets.UTF_8));
            }
            return Optional.empty();
        }
        catch (final IOException | RuntimeException ex)
        {
            return Optional.empty();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        finally
        {
            if (null != process && process.isAlive())
            {
                process.destroyForcibly();
            }
            if (null != output)
            {
                try
                {
                    Files.deleteIfExists(output);
                }
                catch (final IOException ex)
                {
                    // a temporary file left in the temp directory harms nothing
                }
            }
        }
    }
}
