package io.ringwire.perf.path;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.output.JsonText;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.RttRounds;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code ringwire perf path}: for each provider and path, opens both ends in this thread, runs one
 * unmeasured repetition (the JIT compiles the loop), then the measured ones, and reports the median
 * and the lowest nanoseconds per hop across them.
 *
 * <p>Threading: the calling thread.
 */
public final class PathBenchmark
{
    /**
     * One provider and path.
     *
     * @param provider    the RDMA provider.
     * @param api         channel or messaging.
     * @param size        bytes per message.
     * @param hops        hops per repetition.
     * @param repetitions measured repetitions.
     * @param medianNs    the median repetition's ns per hop.
     * @param lowestNs    the fastest repetition's ns per hop.
     */
    public record Result(String provider, String api, int size, long hops, int repetitions, double medianNs,
        double lowestNs)
    {
    }

    private final PathOptions options;
    private final PrintStream log;

    /**
     * @param options what to run.
     * @param log     progress (stderr).
     */
    public PathBenchmark(final PathOptions options, final PrintStream log)
    {
        this.options = options;
        this.log = log;
    }

    /**
     * @return one result per provider and path, in order.
     */
    public List<Result> run()
    {
        final List<Result> results = new ArrayList<>();
        for (final String provider : options.providers())
        {
            for (final String api : options.apis())
            {
                final int size = messageLength(api, options.size());
                log.println("path: " + provider + " (" + api + "), " + options.repetitions() + " x " + options.hops() +
                    " hops of " + size + " bytes on one thread");
                try (PathHops hops = Transports.API_MESSAGING.equals(api) ?
                    PathMessagingHops.open(provider, options.shmDirectory(), options.size()) :
                    PathChannelHops.open(provider, options.shmDirectory(), options.size()))
                {
                    results.add(measure(provider, api, size, hops));
                }
            }
        }
        return results;
    }

    private Result measure(final String provider, final String api, final int size, final PathHops hops)
    {
        final long roundTrips = Math.max(1, options.hops() / 2);
        hops.roundTrips(roundTrips); // warm-up
        final double[] perHop = new double[options.repetitions()];
        for (int i = 0; i < perHop.length; i++)
        {
            final long startNs = System.nanoTime();
            hops.roundTrips(roundTrips);
            perHop[i] = (System.nanoTime() - startNs) / (2.0 * roundTrips);
        }
        return result(provider, api, size, 2 * roundTrips, perHop);
    }

    /**
     * @param perHop each repetition's time a hop.
     * @return the repetitions' median (the mean of the middle two for an even count, as every
     *         command's median is) and lowest.
     */
    static Result result(final String provider, final String api, final int size, final long hops,
        final double[] perHop)
    {
        return new Result(provider, api, size, hops, perHop.length, RttRounds.median(perHop),
            Arrays.stream(perHop).min().orElse(0));
    }

    /**
     * @param results what was measured.
     * @return a table for people, lines ending in '\n'.
     */
    public static String table(final List<Result> results)
    {
        final StringBuilder out = new StringBuilder(
            "path: CPU per hop with both ends on one thread (no cross-core traffic), ns\n\n");
        out.append(String.format(Locale.ROOT, "%-8s %-10s %5s %12s %5s %10s %10s%n",
            "provider", "api", "size", "hops", "reps", "median", "lowest"));
        for (final Result result : results)
        {
            out.append(String.format(Locale.ROOT, "%-8s %-10s %5d %12d %5d %10.1f %10.1f%n", result.provider(),
                result.api(), result.size(), result.hops(), result.repetitions(), result.medianNs(),
                result.lowestNs()));
        }
        return out.toString();
    }

    /**
     * @param results what was measured.
     * @return one line of JSON, values in ns per hop.
     */
    public static String json(final List<Result> results)
    {
        final StringBuilder json = new StringBuilder("{\"benchmark\":\"path\",\"results\":");
        JsonText.appendArray(json, results, (out, result) -> out.append(String.format(Locale.ROOT,
            "{\"provider\":%s,\"api\":%s,\"size\":%d,\"hops\":%d,\"repetitions\":%d," +
            "\"median_ns_per_hop\":%.1f,\"lowest_ns_per_hop\":%.1f}", JsonText.quote(result.provider()),
            JsonText.quote(result.api()), result.size(), result.hops(), result.repetitions(), result.medianNs(),
            result.lowestNs())));
        return json.append('}').toString();
    }

    /**
     * @param api  the path ({@link Transports#API_MESSAGING} or the channel).
     * @param size the size asked for (--size).
     * @return the bytes per message on that path: a messaging probe is at least
     *         {@link LatencyProbeCodec#MIN_LENGTH}.
     */
    private static int messageLength(final String api, final int size)
    {
        return Transports.API_MESSAGING.equals(api) ? LatencyProbeCodec.messageLength(size) : size;
    }
}
