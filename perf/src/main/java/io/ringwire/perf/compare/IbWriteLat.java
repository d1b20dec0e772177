package io.ringwire.perf.compare;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.host.ThreadAllocation;
import io.ringwire.perf.rtt.RttResult;
import io.ringwire.rdma.ibverbs.IbverbsProvider;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * perftest's {@code ib_write_lat}, run by {@code compare} as the floor under {@code ibverbs} on the
 * same device: a server and a client process on this host (the client reaches the server's TCP
 * exchange on 127.0.0.1; the queue pairs meet on the device, looped back by it), RDMA WRITEs polled
 * in memory. Its half round trips are doubled into a round-trip row beside ibverbs's channel row.
 * Both busy-poll, so each is pinned as the ping-pong's threads are ({@code taskset}, the client on
 * the pinger's CPU, the server on the ponger's): left to inherit this JVM's CPU mask they could
 * share one CPU and hand over only at scheduler ticks.
 *
 * <p>The device and GID index are those the ibverbs provider uses ({@code ringwire.rdma.ibverbs.device},
 * {@code ringwire.rdma.ibverbs.gid.index}).
 */
final class IbWriteLat
{
    /** The row's provider name, and the baseline name of the pair. */
    static final String NAME = Comparison.IB_WRITE_LAT;
    private static final long TIMEOUT_SECONDS = 300;
    private static final int CONNECT_ATTEMPTS = 50;
    private static final long CONNECT_RETRY_MS = 200;
    private static final double NANOS_PER_MICRO = 1000.0;
    private static final int FIRST_PORT = 18_750;
    /**
     * Runs of a server and a client a round tries before it gives up on a result with no usable
     * time: perftest turns cycles into microseconds by the CPU's clock rate, which it measures at
     * start, and in an emulated guest that measurement now and then comes out 0 (every time inf).
     */
    private static final int RUNS_FOR_A_TIME = 3;
    /** Ports apart between the runs of one round: past any round's own port. */
    private static final int PORTS_PER_RUN = 100;
    private static final String TASKSET = "/usr/bin/taskset";

    private IbWriteLat()
    {
    }

    /**
     * @return the {@code ib_write_lat} on the PATH, or null.
     */
    static Path executable()
    {
        final String path = System.getenv("PATH");
        if (null == path)
        {
            return null;
        }
        for (final String directory : path.split(File.pathSeparator))
        {
            final Path candidate = Path.of(directory, NAME);
            if (Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }

    /**
     * @return why ib_write_lat cannot run here, or null when it can.
     */
    static String unavailableReason()
    {
        if (null == executable())
        {
            return "ib_write_lat is not installed (Debian: apt-get install perftest)";
        }
        if (null == System.getProperty(IbverbsProvider.DEVICE_PROP))
        {
            return "name the device with -D" + IbverbsProvider.DEVICE_PROP + " so ib_write_lat runs on ibverbs's";
        }
        return null;
    }

    /**
     * Runs one server and one client and reads the client's result.
     *
     * @param size       bytes per message.
     * @param iterations round trips.
     * @param round      the round, to pick a fresh port.
     * @param log        where the processes' output goes when they fail.
     * @return the round-trip row.
     * @throws IOException           when a process cannot start.
     * @throws IllegalStateException when ib_write_lat fails or prints no result.
     */
    static RttResult run(final int size, final long iterations, final int round, final CpuPlan cpuPlan,
        final PrintStream log) throws IOException
    {
        for (int run = 0; ; run++)
        {
            try
            {
                return runOnce(size, iterations, FIRST_PORT + round + run * PORTS_PER_RUN, cpuPlan, log);
            }
            catch (final NoTimeMeasured ex)
            {
                if (run + 1 >= RUNS_FOR_A_TIME)
                {
                    throw new IllegalStateException(ex.getMessage() + ", in each of " + RUNS_FOR_A_TIME + " runs", ex);
                }
                log.println("compare: " + ex.getMessage() + "; running it again");
            }
        }
    }

    /** One server and one client on {@code port}; see {@link #run}. */
    private static RttResult runOnce(final int size, final long iterations, final int port, final CpuPlan cpuPlan,
        final PrintStream log) throws IOException
    {
        final List<String> common = new ArrayList<>(List.of(executable().toString(), "-d",
            System.getProperty(IbverbsProvider.DEVICE_PROP), "-F", "-s", Integer.toString(size), "-n",
            Long.toString(iterations), "-p", Integer.toString(port)));
        final String gidIndex = System.getProperty(IbverbsProvider.GID_INDEX_PROP);
        if (null != gidIndex)
        {
            common.addAll(List.of("-x", gidIndex));
        }
        final Process server = new ProcessBuilder(pinned(cpuPlan.pongerCpu(), common)).redirectErrorStream(true)
            .start();
        try
        {
            final List<String> client = pinned(cpuPlan.pingerCpu(), common);
            client.add("127.0.0.1");
            String output = "";
            for (int attempt = 0; attempt < CONNECT_ATTEMPTS && server.isAlive(); attempt++)
            {
                // To a file, read once it has ended: reading its pipe would block until it exits, so
                // a client that never does (its writes never complete) would outwait the timeout.
                final Path outputFile = Files.createTempFile("ringwire-ib-write-lat-", ".out");
                try
                {
                    final Process process = new ProcessBuilder(client).redirectErrorStream(true)
                        .redirectOutput(outputFile.toFile()).start();
                    final int status = waitFor(process);
                    output = Files.readString(outputFile, StandardCharsets.UTF_8) +
                        (status < 0 ? "\n(killed after " + TIMEOUT_SECONDS + " s)" : "");
                    if (status == 0)
                    {
                        return parse(output, size);
                    }
                }
                finally
                {
                    Files.deleteIfExists(outputFile);
                }
                sleep(CONNECT_RETRY_MS); // the server may not listen yet
            }
            log.println("compare: ib_write_lat client output:\n" + output);
            throw new IllegalStateException("ib_write_lat gave no result (" + (server.isAlive() ?
                "its client never connected" : "its server exited with " + server.exitValue()) + ")");
        }
        finally
        {
            server.destroyForcibly();
        }
    }

    /**
     * Reads the result line of {@code ib_write_lat}'s client: {@code #bytes #iterations t_min t_max
     * t_typical t_avg t_stdev 99% 99.9%}, half round trips in microseconds.
     *
     * @param output the client's output.
     * @param size   the message size asked for, which the line must repeat.
     * @return a round-trip row (each half round trip doubled, in ns): p50 from t_typical, p99 and
     *         p99.9 from its percentiles, max and mean from t_max and t_avg; p90 and p99.99, which
     *         ib_write_lat does not report, are 0.
     * @throws IllegalStateException when no result line is there ({@link NoTimeMeasured} when its
     *                               times are inf or nan: its clock rate was measured as 0).
     */
    static RttResult parse(final String output, final int size)
    {
        for (final String line : output.split("\n"))
        {
            final String[] fields = line.trim().split("\\s+");
            if (fields.length >= 9 && fields[0].equals(Integer.toString(size)) && fields[1].matches("[0-9]+"))
            {
                for (int i = 3; i < 9; i++)
                {
                    if (fields[i].matches("(?i)[-+]?(inf|infinity|nan)"))
                    {
                        throw new NoTimeMeasured("ib_write_lat measured no time (" + fields[i] + "): " + line.trim());
                    }
                }
                try
                {
                    return new RttResult(NAME, Transports.API_RAW, 2, size, Long.parseLong(fields[1]),
                        roundTripNs(fields[4]), 0, roundTripNs(fields[7]), roundTripNs(fields[8]), 0,
                        roundTripNs(fields[3]), 2 * Double.parseDouble(fields[5]) * NANOS_PER_MICRO, -1, -1,
                        ThreadAllocation.UNKNOWN, false, GcActivity.NONE, null);
                }
                catch (final NumberFormatException ex)
                {
                    throw new IllegalStateException("ib_write_lat's result line does not parse: " + line, ex);
                }
            }
        }
        throw new IllegalStateException("ib_write_lat printed no result line for " + size + " bytes");
    }

    /**
     * @return the command run on {@code cpu} through taskset where there is one to pin to and
     *         taskset is installed, else the command as it is.
     */
    static List<String> pinned(final int cpu, final List<String> command)
    {
        final List<String> pinned = new ArrayList<>();
        if (cpu != CpuPlan.UNPINNED && Files.isExecutable(Path.of(TASKSET)))
        {
            pinned.addAll(List.of(TASKSET, "-c", Integer.toString(cpu)));
        }
        pinned.addAll(command);
        return pinned;
    }

    /** A result line whose times are inf or nan: the run measured nothing, and may be run again. */
    static final class NoTimeMeasured extends IllegalStateException
    {
        private static final long serialVersionUID = 1L;

        NoTimeMeasured(final String message)
        {
            super(message);
        }
    }

    private static long roundTripNs(final String halfRoundTripMicros)
    {
        return Math.round(2 * Double.parseDouble(halfRoundTripMicros) * NANOS_PER_MICRO);
    }

    private static int waitFor(final Process process)
    {
        try
        {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                return -1;
            }
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while ib_write_lat ran", ex);
        }
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while ib_write_lat ran", ex);
        }
    }
}
