package io.ringwire.perf;

import java.util.List;

/**
 * What one {@code rtt} run measured: the settings shared by every row and one result per transport,
 * in the order they ran (ratios are against the first).
 *
 * @param size      bytes per message.
 * @param messages  recorded round trips per transport.
 * @param warmup    unrecorded round trips per transport.
 * @param processes 1 or 2.
 * @param results   one per transport.
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
}
