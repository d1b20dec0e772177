package io.ringwire.perf.rtt;

import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.rdma.config.Settings;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The ponger's child JVM ({@link RttPonger}) seen from the parent: started with this JVM's java
 * binary, class path and JVM flags; spoken to with lines on its stdin and stdout; every wait bounded;
 * killed on close if it has not exited by then. Its stderr goes to ours.
 *
 * <p>Threading: the control thread; a daemon thread reads the child's stdout into a queue.
 */
final class PongerProcess implements AutoCloseable
{
    /**
     * How long the child may take to send a line (its JVM starts, opens a device, connects): in the
     * lab's emulated guest, busy with the round before, a cold JVM opening messaging can take most of
     * a minute.
     */
    static final long LINE_TIMEOUT_MS = 120_000;
    /** How long the child may take to exit once it is done or its stdin closed. */
    static final long EXIT_TIMEOUT_MS = 10_000;

    private static final String END_OF_OUTPUT = "\u0000end of output";

    private final Process process;
    private final Writer toChild;
    private final BlockingQueue<String> linesFromChild = new LinkedBlockingQueue<>();
    /** Whether the child said READY; the control thread only. */
    private boolean ready;

    private PongerProcess(final Process process)
    {
        this.process = process;
        this.toChild = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        final Thread reader = new Thread(this::readLines, "rtt-ponger-process-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@link RttPonger} in a child JVM.
     *
     * @param pongerArguments its arguments.
     * @return the running child.
     * @throws IOException when it cannot be started.
     */
    static PongerProcess start(final List<String> pongerArguments) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + "/bin/java"));
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            // A debugger agent would try to listen on the parent's port a second time.
            if (!argument.startsWith("-agentlib:jdwp") && !argument.startsWith("-Xrunjdwp"))
            {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RttPonger.class.getName());
        command.addAll(pongerArguments);
        return new PongerProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    private void readLines()
    {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                linesFromChild.add(line);
            }
        }
        catch (final IOException ex)
        {
            // The child is gone; awaitLine reports it.
        }
        finally
        {
            linesFromChild.add(END_OF_OUTPUT);
        }
    }

    /**
     * Waits for the child's next line, which must start with {@code prefix}.
     *
     * @param prefix the line's first word.
     * @param what   what the line carries, for messages.
     * @return the line.
     * @throws IllegalStateException when the child reports a failure, exits, says something else or
     *                               stays silent for {@link #LINE_TIMEOUT_MS}.
     */
    String awaitLine(final String prefix, final String what)
    {
        final String line;
        try
        {
            line = linesFromChild.poll(LINE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the ponger process's " + what, ex);
        }
        if (null == line)
        {
            throw new IllegalStateException("the ponger process (pid " + process.pid() + ") sent no " + what +
                " within " + LINE_TIMEOUT_MS + " ms");
        }
        return check(line, prefix, what);
    }

    /**
     * Waits for the child's {@code prefix value} line.
     *
     * @param prefix the line's first word.
     * @param what   what the value is, for messages.
     * @return the value: the rest of the line.
     * @throws IllegalStateException as {@link #awaitLine} does, or when the line has no value.
     */
    String awaitValue(final String prefix, final String what)
    {
        final String line = awaitLine(prefix, what);
        if (line.length() <= prefix.length() + 1)
        {
            throw new IllegalStateException("the ponger process sent '" + line + "' without its " + what);
        }
        return line.substring(prefix.length() + 1);
    }

    /**
     * @return the port the child's {@code LISTEN port} line names.
     * @throws IllegalStateException as {@link #awaitLine} does.
     */
    int awaitListeningPort()
    {
        return RttPonger.port(awaitValue(RttPonger.LISTEN, "listening port"));
    }

    /**
     * What the child reported when its ponger ended well.
     *
     * @param cpu the CPU its ponger ran on, or {@link CpuPlan#UNPINNED}.
     * @param gc  the collections its JVM made while the ponger ran.
     */
    record Done(int cpu, GcActivity gc)
    {
    }

    /**
     * Waits for the child's {@code DONE cpu collections gcTimeMs} line.
     *
     * @return what it reported.
     * @throws IllegalStateException as {@link #awaitLine} does, or when the line is malformed.
     */
    Done awaitDone()
    {
        final String[] fields = awaitValue(RttPonger.DONE, "DONE").trim().split(" ");
        if (fields.length != 3)
        {
            throw new IllegalStateException("the ponger's DONE line has " + fields.length +
                " field(s), not 3 (cpu, collections, GC ms): " + String.join(" ", fields));
        }
        final int cpu = Settings.parseInt(RttPonger.DONE, fields[0], CpuPlan.UNPINNED, Integer.MAX_VALUE,
            "a CPU, or " + CpuPlan.UNPINNED + " for none");
        final long collections = Settings.parseLong(RttPonger.DONE, fields[1], 0, Long.MAX_VALUE, "a count");
        final long timeMs = Settings.parseLong(RttPonger.DONE, fields[2], 0, Long.MAX_VALUE, "milliseconds");
        return new Done(cpu, new GcActivity(collections, timeMs));
    }

    /**
     * Waits for the child's {@code READY} line.
     *
     * @throws IllegalStateException as {@link #awaitLine} does.
     */
    void awaitReady()
    {
        awaitLine(RttPonger.READY, "READY");
        ready = true;
    }

    /**
     * Whether the child said {@code READY}, without waiting: for a caller that must keep working
     * (polling its own side of a connection) while the child gets ready.
     *
     * @return true once the child has said it.
     * @throws IllegalStateException when the child reports a failure, exits or says something else.
     */
    boolean pollReady()
    {
        final String line = ready ? null : linesFromChild.poll();
        if (null != line)
        {
            check(line, RttPonger.READY, "READY");
            ready = true;
        }
        return ready;
    }

    private String check(final String line, final String prefix, final String what)
    {
        if (END_OF_OUTPUT.equals(line))
        {
            linesFromChild.add(END_OF_OUTPUT);
            throw new IllegalStateException("the ponger process (pid " + process.pid() + ") ended before sending " +
                what + exitDescription() + "; its stderr above says why");
        }
        if (line.startsWith(RttPonger.FAILED + " "))
        {
            throw new IllegalStateException("the ponger process failed: " +
                line.substring(RttPonger.FAILED.length() + 1));
        }
        if (!line.equals(prefix) && !line.startsWith(prefix + " "))
        {
            throw new IllegalStateException("the ponger process sent '" + line + "' where its " + what + " (" + prefix +
                " ...) was expected");
        }
        return line;
    }

    /**
     * After the pinger failed: the child's own failure, if it reports one within {@code timeoutMs}.
     *
     * @param timeoutMs how long to wait for it.
     * @return the child's failure message, or null.
     */
    String reportedFailure(final long timeoutMs)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try
        {
            String line;
            while (null != (line = linesFromChild.poll(Math.max(0, deadlineNs - System.nanoTime()),
                TimeUnit.NANOSECONDS)))
            {
                if (END_OF_OUTPUT.equals(line))
                {
                    linesFromChild.add(END_OF_OUTPUT);
                    return null;
                }
                if (line.startsWith(RttPonger.FAILED + " "))
                {
                    return "ponger process: " + line.substring(RttPonger.FAILED.length() + 1);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    private String exitDescription()
    {
        try
        {
            return process.waitFor(1, TimeUnit.SECONDS) ? " (exit code " + process.exitValue() + ")" : "";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * @param line sent to the child's stdin.
     * @throws IOException when the child's stdin is closed.
     */
    void sendLine(final String line) throws IOException
    {
        toChild.write(line);
        toChild.write('\n');
        toChild.flush();
    }

    /**
     * @return whether the child still runs.
     */
    boolean isAlive()
    {
        return process.isAlive();
    }

    /**
     * Closes the child's stdin (it then exits if it has not), waits up to {@link #EXIT_TIMEOUT_MS}
     * for it to exit, and kills it otherwise.
     */
    @Override
    public void close()
    {
        try
        {
            toChild.close();
        }
        catch (final IOException ex)
        {
            // Already gone.
        }
        try
        {
            if (!process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
