package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.Transports;
import java.util.ArrayList;
import java.util.List;

/**
 * What one {@code rtt} run measured: the settings shared by every row and one result per transport
 * and path, in the order they ran (ratios are against the first).
 *
 * @param size      bytes per message asked for (--size).
 * @param messages  recorded round trips per transport.
 * @param warmup    unrecorded round trips per transport.
 * @param processes 1 or 2.
 * @param results   one per transport and path.
 */
public record RttReport(int size, long messages, long warmup, int processes, List<RttResult> results)
{
    /** A path and the raw baseline it is judged against. */
    private record Baseline(String provider, String api, String baseline)
    {
    }

    /**
     * Each RDMA provider's channel and the raw ping-pong over the same medium it is judged against;
     * then what roce's way of using sockets costs, roce against a ping-pong using them that way, and
     * shm's messaging against Aeron's IPC messaging, raw and carrying the same SBE probe; and roce
     * against Aeron over UDP.
     */
    private static final List<Baseline> BASELINES = List.of(
        new Baseline(Transports.ROCE, Transports.API_CHANNEL, Transports.NIO_UDP),
        new Baseline(Transports.SOCKET, Transports.API_CHANNEL, Transports.NIO_TCP),
        new Baseline(Transports.NIO_UDP_UNCONNECTED, Transports.API_RAW, Transports.NIO_UDP),
        new Baseline(Transports.ROCE, Transports.API_CHANNEL, Transports.NIO_UDP_UNCONNECTED),
        new Baseline(Transports.SHM, Transports.API_CHANNEL, Transports.BARE),
        new Baseline(Transports.SHM, Transports.API_CHANNEL, Transports.BARE_NOTIFIED),
        new Baseline(Transports.SHM, Transports.API_MESSAGING, Transports.AERON_IPC),
        new Baseline(Transports.SHM, Transports.API_MESSAGING, Transports.AERON_IPC_SBE),
        new Baseline(Transports.ROCE, Transports.API_CHANNEL, Transports.AERON_UDP));

    /**
     * Copies the list.
     */
    public RttReport
    {
        results = List.copyOf(results);
    }

    /**
     * @return for each provider that ran through both the channel and messaging, messaging's p50
     *         overhead, in the order of the results.
     */
    public List<RttOverhead> overheads()
    {
        final List<RttOverhead> overheads = new ArrayList<>();
        for (final RttResult messaging : results)
        {
            if (!Transports.API_MESSAGING.equals(messaging.api()))
            {
                continue;
            }
            final RttResult channel = find(messaging.provider(), Transports.API_CHANNEL);
            if (null != channel)
            {
                overheads.add(new RttOverhead(messaging.provider(), channel.p50(), messaging.p50()));
            }
        }
        return overheads;
    }

    /**
     * @return each provider's p50 against the raw baseline it is judged by, for every such pair that
     *         ran (RDMA providers over the channel unless the pair names messaging), not comparable
     *         where either row says it is no fair baseline here.
     */
    public List<RttRatio> baselineRatios()
    {
        final List<RttRatio> ratios = new ArrayList<>();
        for (final Baseline pair : BASELINES)
        {
            final RttRatio ratio = RttRatio.of(pair.provider(), pair.api(), pair.baseline(),
                find(pair.provider(), pair.api()), find(pair.baseline(), Transports.API_RAW));
            if (null != ratio)
            {
                ratios.add(ratio);
            }
        }
        return ratios;
    }

    /**
     * @return every ratio this run read: messaging over the channel, then each provider against its
     *         raw baseline.
     */
    public List<RttRatio> ratios()
    {
        final List<RttRatio> ratios = new ArrayList<>();
        for (final RttOverhead overhead : overheads())
        {
            ratios.add(new RttRatio(overhead.provider(), Transports.API_MESSAGING, Transports.API_CHANNEL,
                overhead.ratio(), null));
        }
        ratios.addAll(baselineRatios());
        return ratios;
    }

    /**
     * @param provider a transport.
     * @param api      a path.
     * @return its result, or null when it did not run.
     */
    public RttResult find(final String provider, final String api)
    {
        for (final RttResult result : results)
        {
            if (result.provider().equals(provider) && result.api().equals(api))
            {
                return result;
            }
        }
        return null;
    }
}
