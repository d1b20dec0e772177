package io.ringwire.exchange.demo;

import io.ringwire.messaging.MessagingContext;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A role of the demo running in a JVM of its own ({@link RoleMain}), as its parent sees it: the
 * lines it prints (READY, PROGRESS, REPORT, HELD, DONE), a graceful stop (a {@code stop} line on its
 * stdin) and a SIGKILL.
 *
 * <p>Threading: one reader thread per process collects its lines; the rest is called by the
 * parent's thread.
 */
public final class RoleProcess implements AutoCloseable
{
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private final String name;
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private volatile String readyLine;
    private volatile String lastProgress;
    private volatile String lastHeld;

    private RoleProcess(final String name, final Process process, final Consumer<String> echo)
    {
        this.name = name;
        this.process = process;
        Thread.ofPlatform().daemon().name("ringwire-role-" + name).start(() ->
        {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                String line;
                while (null != (line = reader.readLine()))
                {
                    lines.add(line);
                    if (line.startsWith("READY"))
                    {
                        readyLine = line;
                        ready.countDown();
                    }
                    else if (line.startsWith("PROGRESS"))
                    {
                        lastProgress = line;
                    }
                    else if (line.startsWith("HELD"))
                    {
                        lastHeld = line;
                    }
                    else if (line.startsWith("DONE"))
                    {
                        done.countDown();
                    }
                    else if (!line.startsWith("REPORT") && null != echo)
                    {
                        echo.accept(name + ": " + line);
                    }
                }
            }
            catch (final IOException ignored)
            {
                // the process ended
            }
            ready.countDown();
            done.countDown();
        });
    }

    /**
     * Starts a role in a new JVM with this JVM's flags and classpath.
     *
     * @param name   a name for messages.
     * @param config the role's config file.
     * @param echo   takes the lines the role prints that are not protocol (its stdout); null drops them.
     * @return the running role.
     * @throws IOException when the JVM cannot be started.
     */
    public static RoleProcess start(final String name, final Path config, final Consumer<String> echo)
        throws IOException
    {
        return start(name, List.of(), config, echo);
    }

    /**
     * Starts a role's JVM behind a command prefix, e.g. {@code ip netns exec NAME} to run it in a
     * network namespace of its own.
     *
     * @param name   a name for messages.
     * @param prefix what the java command runs under; empty for nothing.
     * @param config the role's config file.
     * @param echo   takes the lines the role prints that are not protocol; null drops them.
     * @return the running role.
     * @throws IOException when the JVM cannot be started.
     */
    public static RoleProcess start(final String name, final List<String> prefix, final Path config,
        final Consumer<String> echo) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command(prefix, config))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put(RoleMain.PARENT_PIPE_ENV, "1");
        return new RoleProcess(name, builder.start(), echo);
    }

    /**
     * The role's JVM: this JVM's java, options (no agents) and class path, in a session of its own
     * where setsid is at hand, so a Ctrl-C at the terminal reaches the parent alone, which stops
     * its roles in order (the role still stops when the parent's pipe closes).
     */
    private static List<String> command(final List<String> prefix, final Path config)
    {
        final List<String> detached = new ArrayList<>();
        if (Files.isExecutable(SETSID))
        {
            // setsid execs in place (the child leads no process group), so the pid stays the role's.
            detached.add(SETSID.toString());
        }
        detached.addAll(prefix);
        return javaCommand(detached, RoleMain.class.getName(), "--config", config.toString());
    }

    /** A JVM like this one (its java, options but agents, class path) running {@code mainClass}. */
    static List<String> javaCommand(final List<String> prefix, final String mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(inherited(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    /**
     * @param arguments this JVM's options.
     * @return those a role's JVM takes from it: not agents (a debugger's port would clash), and not
     *         the cores to pin to, which each role's file gives for its own thread (two roles
     *         pinned to one core would share it).
     */
    static List<String> inherited(final List<String> arguments)
    {
        final List<String> inherited = new ArrayList<>();
        for (final String argument : arguments)
        {
            if (!argument.startsWith("-agentlib") && !argument.startsWith("-javaagent") &&
                !argument.startsWith("-Xrunjdwp") && !argument.startsWith("-D" + MessagingContext.CORES_PROP + "="))
            {
                inherited.add(argument);
            }
        }
        return inherited;
    }

    /**
     * Starts a role as a service manager would: stdin {@code /dev/null}, no parent pipe; only a stop
     * line it cannot get, or SIGTERM ({@link #terminate}), stops it.
     */
    public static RoleProcess startDetached(final String name, final Path config) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command(List.of(), config))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().remove(RoleMain.PARENT_PIPE_ENV);
        return new RoleProcess(name, builder.start(), null);
    }

    /**
     * Stops the role with SIGTERM, as a service manager does, and waits for it to exit.
     *
     * @return its exit code.
     */
    public int terminate(final Duration timeout) throws InterruptedException, IOException
    {
        // kill(1), not Process.destroy, which also closes this side's pipes: the role's last lines would be lost.
        final Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0)
        {
            throw new IllegalStateException("kill -TERM " + process.pid() + " failed");
        }
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not stop within " + timeout.toSeconds() + " s of SIGTERM");
        }
        done.await(5, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /**
     * @param timeout how long to wait.
     * @return the READY line.
     * @throws IllegalStateException when the role ended or did not get ready in time.
     */
    public String awaitReady(final Duration timeout) throws InterruptedException
    {
        if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS) || null == readyLine)
        {
            throw new IllegalStateException(name + " did not get ready within " + timeout.toSeconds() + " s" +
                (process.isAlive() ? "" : " (it exited with " + process.exitValue() + ")") + "; it printed " + lines);
        }
        return readyLine;
    }

    /** Asks the role to stop as a run's end would. */
    public void stop()
    {
        send("stop");
    }

    /**
     * Asks clients to stop sending and report, staying connected, and waits for their report.
     *
     * @return the clients' report values.
     */
    public Map<String, String> quiesce(final Duration timeout) throws InterruptedException
    {
        send("quiesce");
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (report("clients").isEmpty())
        {
            if (System.nanoTime() - deadline > 0 || !process.isAlive())
            {
                throw new IllegalStateException(name + " did not report within " + timeout.toSeconds() + " s; it " +
                    "printed " + lines);
            }
            Thread.sleep(20);
        }
        Thread.sleep(100); // the hop lines follow the report line
        return report("clients");
    }

    private void send(final String line)
    {
        try
        {
            final OutputStream stdin = process.getOutputStream();
            stdin.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        }
        catch (final IOException ignored)
        {
            // it has ended already
        }
    }

    /**
     * Stops the role and waits for it to exit.
     *
     * @return its exit code.
     * @throws IllegalStateException when it does not exit in time (it is then killed).
     */
    public int stopAndWait(final Duration timeout) throws InterruptedException
    {
        stop();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not stop within " + timeout.toSeconds() + " s");
        }
        done.await(5, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /**
     * Waits for the role to end on its own (a gateway that met another engine life ends so).
     *
     * @return its exit code.
     * @throws IllegalStateException when it still runs after the timeout.
     */
    public int awaitExit(final Duration timeout) throws InterruptedException
    {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        {
            throw new IllegalStateException(name + " still runs after " + timeout.toSeconds() + " s");
        }
        done.await(5, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /** Kills the role with SIGKILL and waits for it to be gone. */
    public void kill() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Stops the role with SIGSTOP (or lets it go on with SIGCONT): a process the scheduler or a
     * debugger holds, every thread of it, while its peers go on.
     */
    public void signal(final boolean stop) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", stop ? "-STOP" : "-CONT", Long.toString(process.pid()))
            .inheritIO().start();
        if (kill.waitFor() != 0)
        {
            throw new IllegalStateException("kill " + (stop ? "-STOP " : "-CONT ") + process.pid() + " failed");
        }
    }

    /** @return the last HELD line's values (a quiesced clients role's), empty before the first. */
    public Map<String, String> held()
    {
        return null == lastHeld ? Map.of() : values(lastHeld);
    }

    /** @return the last PROGRESS line's values, empty before the first. */
    public Map<String, String> progress()
    {
        return null == lastProgress ? Map.of() : values(lastProgress);
    }

    /**
     * @param prefix the start of the REPORT line after {@code REPORT }, e.g. {@code engine}.
     * @return the values of the first REPORT line with that prefix, empty when there is none.
     */
    public Map<String, String> report(final String prefix)
    {
        for (final String line : lines)
        {
            if (line.startsWith("REPORT " + prefix + " ") || line.equals("REPORT " + prefix))
            {
                return values(line);
            }
        }
        return Map.of();
    }

    /** @return every REPORT line with that prefix, as values. */
    public List<Map<String, String>> reports(final String prefix)
    {
        final List<Map<String, String>> found = new ArrayList<>();
        for (final String line : lines)
        {
            if (line.startsWith("REPORT " + prefix + " "))
            {
                found.add(values(line));
            }
        }
        return found;
    }

    /** @return everything the role printed on stdout. */
    public List<String> lines()
    {
        return List.copyOf(lines);
    }

    /** @return whether the process still runs. */
    public boolean isAlive()
    {
        return process.isAlive();
    }

    static Map<String, String> values(final String line)
    {
        final Map<String, String> values = new HashMap<>();
        for (final String part : line.split(" "))
        {
            final int equals = part.indexOf('=');
            if (equals > 0)
            {
                values.put(part.substring(0, equals), part.substring(equals + 1));
            }
        }
        return values;
    }

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
