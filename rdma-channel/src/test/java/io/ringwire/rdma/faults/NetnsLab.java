package io.ringwire.rdma.faults;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Java face of {@code faults/netns-lab.sh}: brings a two-namespace lab up, switches its faults,
 * injects a blackout, reads its counters, builds commands that run a JVM inside one of its
 * namespaces, and always takes it down again ({@link #close()}, plus a shutdown hook for a test JVM
 * that is stopped half-way).
 *
 * <p>Threading: one test thread.
 */
final class NetnsLab implements AutoCloseable
{
    /** Namespace a: the sending side in the tests. */
    static final String A = "a";
    /** Namespace b: the receiving side in the tests. */
    static final String B = "b";

    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger LAB_COUNTER = new AtomicInteger();
    private static final List<String> TOOLS = List.of("ip", "tc", "nft", "bash", "timeout");

    private final Path script;
    private final Map<String, String> facts;
    private final Thread shutdownHook;
    private boolean down;

    private NetnsLab(final Path script, final Map<String, String> facts)
    {
        this.script = script;
        this.facts = facts;
        this.shutdownHook = new Thread(this::downQuietly, "netns-lab-down-" + id());
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * @return null when a lab can be built here, else why not (for {@code assumeTrue}).
     */
    static String unavailableReason()
    {
        final String uid = processUid();
        if (!"0".equals(uid))
        {
            return "the network-namespace lab needs root (uid is " + uid + "): run the system tests as root";
        }
        for (final String tool : TOOLS)
        {
            if (null == findTool(tool))
            {
                return "'" + tool + "' is not installed: apt-get install iproute2 nftables";
            }
        }
        return namespaceProbeFailure();
    }

    /**
     * Root in a container without CAP_SYS_ADMIN cannot create namespaces: find out by trying.
     *
     * @return null when a namespace with an nftables table could be created and deleted, else why not.
     */
    private static String namespaceProbeFailure()
    {
        final String probe = "rwlprobe" + ProcessHandle.current().pid();
        final String ip = findTool("ip").toString();
        try
        {
            final String created = runCommand(List.of(ip, "netns", "add", probe));
            if (null != created)
            {
                return "cannot create a network namespace (" + created.trim() + "): the lab needs CAP_SYS_ADMIN and " +
                    "CAP_NET_ADMIN, e.g. a privileged container";
            }
            final String nft = runCommand(List.of(ip, "netns", "exec", probe, findTool("nft").toString(), "add", "table",
                "netdev", "ringwire_probe"));
            return null == nft ? null : "nftables does not work in a network namespace here: " + nft.trim();
        }
        catch (final IOException | InterruptedException ex)
        {
            return "probing for network namespaces failed: " + ex;
        }
        finally
        {
            try
            {
                runCommand(List.of(ip, "netns", "del", probe));
            }
            catch (final IOException | InterruptedException ex)
            {
                System.err.println("could not delete probe namespace " + probe + ": " + ex);
            }
        }
    }

    /**
     * @return null on success, else the command's output.
     */
    private static String runCommand(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            return String.join(" ", command) + " did not finish within " + STEP_TIMEOUT.toSeconds() + " s";
        }
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return process.exitValue() == 0 ? null : output.isBlank() ? "exit " + process.exitValue() : output;
    }

    private static String processUid()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    return line.substring(4).trim().split("\\s+")[1]; // effective uid
                }
            }
        }
        catch (final IOException ex)
        {
            return "unknown (" + ex.getMessage() + ")";
        }
        return "unknown";
    }

    private static Path findTool(final String tool)
    {
        final List<String> directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        directories.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (final String directory : directories)
        {
            final Path candidate = Path.of(directory.isEmpty() ? "." : directory, tool);
            if (Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }

    /**
     * Creates a lab with a name unique to this JVM and call.
     */
    static NetnsLab up() throws IOException, InterruptedException
    {
        final Path script = script();
        final String id = "rwl" + ProcessHandle.current().pid() + (char)('a' + LAB_COUNTER.getAndIncrement() % 26);
        final String output = run(script, List.of("--lab", id, "up"));
        final Map<String, String> facts = keyValues(output);
        if (!id.equals(facts.get("LAB")))
        {
            throw new IllegalStateException("netns-lab.sh up printed no LAB=" + id + ":\n" + output);
        }
        return new NetnsLab(script, facts);
    }

    String id()
    {
        return facts.get("LAB");
    }

    /**
     * @param side {@link #A} or {@link #B}.
     * @return the namespace's veth address.
     */
    String address(final String side)
    {
        return facts.get(A.equals(side) ? "ADDR_A" : "ADDR_B");
    }

    String namespace(final String side)
    {
        return facts.get(A.equals(side) ? "NS_A" : "NS_B");
    }

    /**
     * @param kinds "all" or a comma list of loss, dup, corrupt, reorder.
     */
    void faultsOn(final String kinds) throws IOException, InterruptedException
    {
        run(script, List.of("--lab", id(), "faults", "on", kinds));
    }

    void faultsOff() throws IOException, InterruptedException
    {
        run(script, List.of("--lab", id(), "faults", "off"));
    }

    /**
     * Drops every packet in both directions for {@code ms} milliseconds; returns when it is over.
     *
     * @return the script's BLACKOUT_* measurements.
     */
    Map<String, String> blackout(final int ms) throws IOException, InterruptedException
    {
        return keyValues(run(script, List.of("--lab", id(), "blackout", Integer.toString(ms))));
    }

    /**
     * Zeroes the kernel's fault counters ({@link #faultsOn} does too).
     */
    void resetCounters() throws IOException, InterruptedException
    {
        run(script, List.of("--lab", id(), "reset"));
    }

    /**
     * @return the kernel's fault counters per side, e.g. {@code a_loss=123}, {@code b_dup=4} (the
     *         script's link statistics left out).
     */
    Map<String, String> stats() throws IOException, InterruptedException
    {
        final Map<String, String> stats = keyValues(run(script, List.of("--lab", id(), "stats")));
        stats.keySet().removeIf(key -> key.endsWith("_link"));
        return stats;
    }

    /**
     * A command running {@code mainClass} in a JVM inside the namespace of {@code side}: this JVM's
     * java binary and class path, the flags agrona needs, and every {@code ringwire.rdma.*} system
     * property of this JVM (so a run can tune the provider from the Maven command line).
     */
    List<String> javaCommand(final String side, final Class<?> mainClass, final List<String> jvmOptions,
        final List<String> args)
    {
        final List<String> command = new ArrayList<>(List.of(findTool("ip").toString(), "netns", "exec", namespace(side),
            ProcessHandle.current().info().command().orElse("java"),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC", "-Xmx512m"));
        System.getProperties().stringPropertyNames().stream()
            .filter(name -> name.startsWith("ringwire.rdma."))
            .sorted()
            .forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        return command;
    }

    @Override
    public void close() throws IOException
    {
        if (down)
        {
            return;
        }
        down = true;
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ex)
        {
            // already shutting down: the hook is running or ran
        }
        try
        {
            run(script, List.of("--lab", id(), "down"));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while taking lab " + id() + " down; run: bash " + script + " --lab " +
                id() + " down", ex);
        }
    }

    private void downQuietly()
    {
        try
        {
            close();
        }
        catch (final Exception ex)
        {
            System.err.println("netns lab " + id() + " could not be taken down: " + ex.getMessage() +
                "; run: bash " + script + " --lab " + id() + " down");
        }
    }

    private static Map<String, String> keyValues(final String output)
    {
        final Map<String, String> values = new LinkedHashMap<>();
        for (final String line : output.split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_]*"))
            {
                values.put(line.substring(0, eq), line.substring(eq + 1).trim());
            }
        }
        return values;
    }

    /**
     * The script on the test class path; copied out if the class path is a jar.
     */
    private static Path script() throws IOException
    {
        final URL url = NetnsLab.class.getResource("/faults/netns-lab.sh");
        if (null == url)
        {
            throw new IllegalStateException("faults/netns-lab.sh is not on the test class path");
        }
        if ("file".equals(url.getProtocol()))
        {
            try
            {
                return Path.of(url.toURI());
            }
            catch (final URISyntaxException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
        final Path copy = Files.createTempFile("netns-lab", ".sh");
        copy.toFile().deleteOnExit();
        try (InputStream in = url.openStream())
        {
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }

    /**
     * Runs the script (with bash, as resources lose their executable bit), bounded by
     * {@link #STEP_TIMEOUT}.
     *
     * @return its output, stdout and stderr merged.
     * @throws IllegalStateException when it fails or times out, with its output.
     */
    private static String run(final Path script, final List<String> args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(args);
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final CompletableFuture<String> output = CompletableFuture.supplyAsync(() ->
        {
            try (InputStream in = process.getInputStream())
            {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (final IOException ex)
            {
                return "(reading the output failed: " + ex + ")";
            }
        });
        if (!process.waitFor(STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within " +
                STEP_TIMEOUT.toSeconds() + " s");
        }
        final String text = output.join();
        if (process.exitValue() != 0)
        {
            throw new IllegalStateException(String.join(" ", command) + " failed with exit " + process.exitValue() +
                ":\n" + text);
        }
        return text;
    }
}
