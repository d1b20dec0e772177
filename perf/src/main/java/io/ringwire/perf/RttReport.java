package io.ringwire.perf;

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
            if (!RttOptions.API_MESSAGING.equals(messaging.api()))
            {
                continue;
            }
            final RttResult channel = find(messaging.provider(), RttOptions.API_CHANNEL);
            if (null != channel)
            {
                overheads.add(new RttOverhead(messaging.provider(), channel.p50(), messaging.p50()));
            }
        }
        return overheads;
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
