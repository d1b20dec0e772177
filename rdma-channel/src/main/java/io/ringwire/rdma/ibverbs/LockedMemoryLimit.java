package io.ringwire.rdma.ibverbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The locked-memory limit ({@code RLIMIT_MEMLOCK}, {@code ulimit -l}) as {@code /proc/self/limits}
 * shows it. Registering memory pins it, and the kernel counts pinned pages against this limit
 * (unless the process has CAP_IPC_LOCK): a low limit makes {@code ibv_reg_mr} fail with ENOMEM or
 * EPERM.
 *
 * <p>Threading: stateless; any thread.
 */
public final class LockedMemoryLimit
{
    /** The value for "unlimited". */
    public static final long UNLIMITED = Long.MAX_VALUE;
    /** The value when the limit could not be read. */
    public static final long UNKNOWN = -1;

    private static final String LINE_PREFIX = "Max locked memory";
    private static final Path SELF_LIMITS = Path.of("/proc/self/limits");

    private LockedMemoryLimit()
    {
    }

    /**
     * @return this process's soft limit in bytes, {@link #UNLIMITED}, or {@link #UNKNOWN}.
     */
    public static long current()
    {
        return read(SELF_LIMITS);
    }

    /**
     * @param limitsFile a file in the format of {@code /proc/<pid>/limits}.
     * @return the soft limit in bytes, {@link #UNLIMITED}, or {@link #UNKNOWN} when unreadable.
     */
    public static long read(final Path limitsFile)
    {
        try
        {
            return parse(Files.readString(limitsFile));
        }
        catch (final IOException | RuntimeException ex)
        {
            return UNKNOWN;
        }
    }

    /**
     * @param limits the text of a {@code /proc/<pid>/limits} file.
     * @return the soft limit in bytes, {@link #UNLIMITED}, or {@link #UNKNOWN} when the line is missing.
     */
    public static long parse(final String limits)
    {
        for (final String line : limits.split("\n"))
        {
            if (line.startsWith(LINE_PREFIX))
            {
                final String[] fields = line.substring(LINE_PREFIX.length()).trim().split("\\s+");
                if (fields.length == 0)
                {
                    return UNKNOWN;
                }
                if (fields[0].equals("unlimited"))
                {
                    return UNLIMITED;
                }
                try
                {
                    return Long.parseLong(fields[0]);
                }
                catch (final NumberFormatException ex)
                {
                    return UNKNOWN;
                }
            }
        }
        return UNKNOWN;
    }

    /**
     * @param bytes a limit from {@link #read} or {@link #parse}.
     * @return "unlimited", "unknown", or e.g. "8388608 bytes (8 MiB)".
     */
    public static String describe(final long bytes)
    {
        if (bytes == UNLIMITED)
        {
            return "unlimited";
        }
        if (bytes < 0)
        {
            return "unknown";
        }
        return bytes + " bytes (" + humanBytes(bytes) + ")";
    }

    /**
     * @param bytes a size.
     * @return e.g. "64 KiB", "8 MiB", "1.5 GiB".
     */
    public static String humanBytes(final long bytes)
    {
        final String[] units = { "bytes", "KiB", "MiB", "GiB", "TiB" };
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1)
        {
            value /= 1024;
            unit++;
        }
        if (unit == 0)
        {
            return bytes + " bytes";
        }
        return value == Math.rint(value) ? (long)value + " " + units[unit] : String.format("%.1f %s", value, units[unit]);
    }
}
