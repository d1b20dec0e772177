package io.ringwire.rdma.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Identity and liveness of the processes owning files others read (shm devices, counters files). A
 * process is named by its pid plus its start time, so a pid reused by a later process is not
 * mistaken for the owner.
 *
 * <p>The start time is field 22 of {@code /proc/<pid>/stat}: clock ticks since boot, exact and the
 * same whoever reads it. ({@code ProcessHandle.Info.startInstant()} is derived from the wall-clock
 * boot time, which a clock step can shift between JVMs, so it is not used as an identity.)
 *
 * <p>Threading: stateless. These calls allocate and read files: liveness and setup paths only,
 * never the steady-state hot path.
 */
public final class ProcessIdentity
{
    /** Start time meaning "unknown" ({@code /proc} unreadable): identity checks are then skipped. */
    public static final long UNKNOWN_START_TIME = 0;

    private static final int START_TIME_FIELD_AFTER_COMMAND = 19; // field 22; fields after "(comm)" start at 3
    private static final int STATE_FIELD_AFTER_COMMAND = 0;       // field 3

    private ProcessIdentity()
    {
    }

    /**
     * @return this process's id.
     */
    public static long currentPid()
    {
        return ProcessHandle.current().pid();
    }

    /**
     * @param pid a process id.
     * @return its start time in clock ticks since boot, or {@link #UNKNOWN_START_TIME}.
     */
    public static long startTime(final long pid)
    {
        final String[] fields = statFields(pid);
        if (null == fields || fields.length <= START_TIME_FIELD_AFTER_COMMAND)
        {
            return UNKNOWN_START_TIME;
        }
        try
        {
            return Long.parseLong(fields[START_TIME_FIELD_AFTER_COMMAND]);
        }
        catch (final NumberFormatException ex)
        {
            return UNKNOWN_START_TIME;
        }
    }

    /**
     * Whether the process that owned files under this identity still runs.
     *
     * @param pid               the owner's pid.
     * @param expectedStartTime the owner's start time as it recorded it, or {@link #UNKNOWN_START_TIME}.
     * @return false when no such process runs, it is a zombie, or the pid now names another process.
     */
    public static boolean isAlive(final long pid, final long expectedStartTime)
    {
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive())
        {
            return false;
        }
        final String[] fields = statFields(pid);
        if (null == fields)
        {
            return true; // no /proc: trust ProcessHandle
        }
        final String state = fields[STATE_FIELD_AFTER_COMMAND];
        if (state.equals("Z") || state.equals("X"))
        {
            return false; // exited, not yet reaped by its parent
        }
        if (expectedStartTime == UNKNOWN_START_TIME || fields.length <= START_TIME_FIELD_AFTER_COMMAND)
        {
            return true;
        }
        try
        {
            return Long.parseLong(fields[START_TIME_FIELD_AFTER_COMMAND]) == expectedStartTime;
        }
        catch (final NumberFormatException ex)
        {
            return true;
        }
    }

    private static String[] statFields(final long pid)
    {
        final String stat;
        try
        {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
        // The command name is in parentheses and may itself hold spaces or parentheses.
        final int commandEnd = stat.lastIndexOf(')');
        if (commandEnd < 0 || commandEnd + 2 >= stat.length())
        {
            return null;
        }
        return stat.substring(commandEnd + 2).trim().split(" ");
    }
}
