package io.ringwire.messaging.system;

import io.ringwire.rdma.RdmaConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A child JVM running one of this package's programs, talking to the test in lines: it prints
 * {@code KEY k=v ...} lines on stdout (collected here by a daemon thread) and reads
 * commands from stdin ({@code exit}; stdin's end also makes it exit, so a dying test leaves no
 * orphan). Stderr goes to a file whose tail failure messages quote. {@link #close()} kills it.
 */
final class ChildProcess implements AutoCloseable
{
    /** Flags every child needs (agrona's Unsafe access, native access), as surefire's argLine has. */
    static final List<String> JVM_FLAGS = List.of(
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow",
        "-Xms64m", "-Xmx768m", "-XX:+UseSerialGC");

    private final String name;
    private final Process process;
    private final Path stderrFile;
    private final Path countersDirectory;
    private final List<String> transcript = new ArrayList<>();
    /** When each transcript line arrived, in ms since the child started (diagnostics show them). */
    private final List<Long> arrivalMs = new ArrayList<>();
    private final Map<String, Integer> cursors = new HashMap<>();
    private boolean outputEnded;
    private final long startedNs = System.nanoTime();

    private ChildProcess(final String name, final Process process, final Path stderrFile,
        final Path countersDirectory)
    {
        this.name = name;
        this.process = process;
        this.stderrFile = stderrFile;
        this.countersDirectory = countersDirectory;
        final Thread reader = new Thread(this::readStdout, "child-stdout-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} in a new JVM with this JVM's class path.
     *
     * @param name      for messages and the stderr file.
     * @param directory where the stderr file goes.
     * @param settings  messaging settings passed as system properties.
     * @param mainClass the child program.
     * @param arguments its {@code key=value} arguments.
     * @return the running child.
     */
    static ChildProcess start(final String name, final Path directory, final SystemTestSettings settings,
        final Class<?> mainClass, final String... arguments)
    {
        final String java = ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(JVM_FLAGS);
        command.addAll(settings.systemProperties());
        command.addAll(deviceProperties());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(arguments));
        final Path stderrFile = directory.resolve(name + ".stderr");
        try
        {
            final Process process = new ProcessBuilder(command).redirectError(stderrFile.toFile()).start();
            return new ChildProcess(name, process, stderrFile, settings.countersDirectory());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start child " + name + ": " + command, ex);
        }
    }

    /**
     * What this JVM was told about the RDMA device and the JIT that a child must be told the same:
     * the {@code ringwire.rdma.ibverbs.*} properties (which device, port and GID the VM lab's
     * ibverbs runs use), the retry count and ACK timeout (the lab's fast retransmission) and a
     * {@code -XX:TieredStopAtLevel} option (the lab's emulated CPU runs C1 only).
     */
    private static List<String> deviceProperties()
    {
        final List<String> options = new ArrayList<>();
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("ringwire.rdma.ibverbs.") || name.equals(RdmaConfig.RETRY_COUNT_PROP) ||
                name.equals(RdmaConfig.ACK_TIMEOUT_PROP) || name.equals(SystemTestSettings.WAIT_SCALE_PROP))
            {
                options.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("-XX:TieredStopAtLevel="))
            {
                options.add(argument);
            }
        }
        return options;
    }

    /** @return every line the child printed so far. */
    List<String> lines()
    {
        synchronized (transcript)
        {
            return List.copyOf(transcript);
        }
    }

    private void readStdout()
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                synchronized (transcript)
                {
                    transcript.add(line);
                    arrivalMs.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNs));
                    transcript.notifyAll();
                }
            }
        }
        catch (final IOException ignore)
        {
            // the child was killed: its pipe broke
        }
        synchronized (transcript)
        {
            outputEnded = true;
            transcript.notifyAll();
        }
    }

    /**
     * Waits for the child's next line starting with {@code prefix} (each prefix has its own
     * cursor, so waiting for one kind of line never loses another).
     *
     * @param prefix  e.g. {@code "READY"}.
     * @param timeout bound.
     * @return the line.
     */
    String awaitLine(final String prefix, final Duration wait)
    {
        final Duration timeout = SystemTestSettings.patient(wait);
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (transcript)
        {
            while (true)
            {
                final String line = nextLine(prefix);
                if (null != line)
                {
                    return line;
                }
                if (outputEnded)
                {
                    return fail("child " + name + " ended (exit " + exitCode() + ") before printing '" + prefix + "'" +
                        diagnostics());
                }
                final long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (remainingMs <= 0)
                {
                    return fail("timed out after " + timeout.toMillis() + " ms waiting for child " + name +
                        " to print '" + prefix + "'" + diagnostics());
                }
                try
                {
                    transcript.wait(remainingMs);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + name, ex);
                }
            }
        }
    }

    /**
     * Takes the child's next line starting with {@code prefix} if it has printed one; does not wait.
     *
     * @param prefix e.g. {@code "IMAGE"}.
     * @return the line, or null.
     */
    String pollLine(final String prefix)
    {
        synchronized (transcript)
        {
            return nextLine(prefix);
        }
    }

    private String nextLine(final String prefix)
    {
        for (int i = cursors.getOrDefault(prefix, 0); i < transcript.size(); i++)
        {
            if (transcript.get(i).startsWith(prefix))
            {
                cursors.put(prefix, i + 1);
                return transcript.get(i);
            }
        }
        cursors.put(prefix, transcript.size());
        return null;
    }

    /**
     * @param line   a line such as {@code READY port=40123}.
     * @param key    e.g. {@code port}.
     * @return the value of {@code key=} in it.
     */
    static String value(final String line, final String key)
    {
        for (final String token : line.split(" "))
        {
            if (token.startsWith(key + "="))
            {
                return token.substring(key.length() + 1);
            }
        }
        throw new IllegalArgumentException("no " + key + "= in '" + line + "'");
    }

    static long longValue(final String line, final String key)
    {
        return Long.parseLong(value(line, key));
    }

    /**
     * Sends a command line to the child's stdin (ignored when it is already gone).
     *
     * @param command e.g. {@code exit}.
     */
    void send(final String command)
    {
        try
        {
            final OutputStream stdin = process.getOutputStream();
            stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        }
        catch (final IOException ignore)
        {
            // it has exited already
        }
    }

    /**
     * Asks the child to exit and waits for it, bounded.
     *
     * @param timeout bound.
     * @return its exit code.
     */
    int exit(final Duration wait)
    {
        final Duration timeout = SystemTestSettings.patient(wait);
        send("exit");
        try
        {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                return fail("child " + name + " did not exit within " + timeout.toMillis() + " ms of 'exit'" +
                    diagnostics());
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        return process.exitValue();
    }

    /**
     * SIGKILLs the child and waits (bounded) until the OS reports it dead.
     *
     * @return nanoTime once it is dead.
     */
    long kill()
    {
        process.destroyForcibly();
        try
        {
            if (!process.waitFor(10, TimeUnit.SECONDS))
            {
                fail("child " + name + " still alive 10 s after SIGKILL");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        return System.nanoTime();
    }

    /** @return the child's process id. */
    long pid()
    {
        return process.pid();
    }

    /** @return true while it runs. */
    boolean isAlive()
    {
        return process.isAlive();
    }

    private String exitCode()
    {
        return process.isAlive() ? "still running" : Integer.toString(process.exitValue());
    }

    /**
     * @return what the child said: the end of stdout and stderr, for failure messages.
     */
    String diagnostics()
    {
        final StringBuilder text = new StringBuilder();
        text.append("\n--- ").append(name).append(" (pid ").append(process.pid()).append(", ")
            .append(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNs)).append(" ms) stdout tail:\n");
        synchronized (transcript)
        {
            for (int i = Math.max(0, transcript.size() - 20); i < transcript.size(); i++)
            {
                text.append('+').append(arrivalMs.get(i)).append(" ms ").append(transcript.get(i)).append('\n');
            }
        }
        text.append("--- stderr tail:\n");
        try
        {
            final List<String> errors = Files.readAllLines(stderrFile);
            for (int i = Math.max(0, errors.size() - 30); i < errors.size(); i++)
            {
                text.append(errors.get(i)).append('\n');
            }
        }
        catch (final IOException ex)
        {
            text.append("(unreadable: ").append(ex.getMessage()).append(")\n");
        }
        text.append("--- counters not zero:\n").append(CountersProbe.nonZero(countersDirectory, process.pid()));
        return text.toString();
    }

    @Override
    public String toString()
    {
        return name;
    }

    /** Kills the child if it still runs. */
    @Override
    public void close()
    {
        if (process.isAlive())
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
}
