package io.ringwire.rdma.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child process of a lab test: its stdout and stderr, merged, are read line by line on a daemon
 * thread, echoed with a name prefix, kept as a transcript, and handed to the test through
 * {@link #awaitLine}. Every wait is bounded; {@link #close()} kills the process.
 */
final class LabProcess implements AutoCloseable
{
    private static final String END = "\u0000end of output";

    private final String name;
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = new ArrayList<>();

    private LabProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        Thread.ofPlatform().daemon().name("lab-" + name + "-output").start(this::pump);
    }

    static LabProcess start(final String name, final List<String> command) throws IOException
    {
        return new LabProcess(name, new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void pump()
    {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                System.out.println("[" + name + "] " + line);
                synchronized (transcript)
                {
                    transcript.add(line);
                }
                lines.add(line);
            }
        }
        catch (final IOException ex)
        {
            lines.add("(output failed: " + ex + ")");
        }
        finally
        {
            lines.add(END);
        }
    }

    String name()
    {
        return name;
    }

    /**
     * Waits for the next line starting with one of {@code prefixes}, skipping others.
     *
     * @return the line.
     * @throws AssertionError when the process ends or the timeout passes first.
     */
    String awaitLine(final Duration timeout, final String... prefixes) throws InterruptedException
    {
        final String line = pollLine(timeout, prefixes);
        if (null == line)
        {
            throw new AssertionError(name + ": no line starting with " + List.of(prefixes) + " within " +
                timeout.toSeconds() + " s; last output:\n" + tail(30));
        }
        return line;
    }

    /**
     * As {@link #awaitLine}, but returns null when the timeout passes first.
     *
     * @throws AssertionError when the process ends first.
     */
    String pollLine(final Duration timeout, final String... prefixes) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (null == line)
            {
                return null;
            }
            if (END.equals(line))
            {
                lines.add(END); // later waits see the end too
                throw new AssertionError(name + " ended (exit " + exitCodeOrNull() + ") before a line starting with " +
                    List.of(prefixes) + "; last output:\n" + tail(30));
            }
            for (final String prefix : prefixes)
            {
                if (line.startsWith(prefix))
                {
                    return line;
                }
            }
        }
    }

    /**
     * @return the first line printed so far that starts with {@code prefix}, or null. Does not wait
     *         and does not consume lines.
     */
    String printed(final String prefix)
    {
        synchronized (transcript)
        {
            for (final String line : transcript)
            {
                if (line.startsWith(prefix))
                {
                    return line;
                }
            }
        }
        return null;
    }

    void send(final String line) throws IOException
    {
        final OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        in.flush();
    }

    /**
     * @return the exit status, waiting up to {@code timeout}.
     * @throws AssertionError when it is still running then.
     */
    int awaitExit(final Duration timeout) throws InterruptedException
    {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            throw new AssertionError(name + " still running after " + timeout.toSeconds() + " s; last output:\n" + tail(30));
        }
        return process.exitValue();
    }

    private Integer exitCodeOrNull()
    {
        try
        {
            return process.waitFor(2, TimeUnit.SECONDS) ? process.exitValue() : null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    String tail(final int count)
    {
        synchronized (transcript)
        {
            return String.join("\n", transcript.subList(Math.max(0, transcript.size() - count), transcript.size()));
        }
    }

    @Override
    public void close()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
