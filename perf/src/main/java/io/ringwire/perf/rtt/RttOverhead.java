package io.ringwire.perf.rtt;

/**
 * What messaging costs over the bare channel for one provider, both measured in the same run: the
 * median round trip through Publication and Subscription with SBE encoding and decoding, against the
 * median WRITE WITH IMMEDIATE ping-pong between two queue pairs.
 *
 * @param provider     shm, socket, roce or ibverbs.
 * @param channelP50   the channel's median round trip, ns.
 * @param messagingP50 messaging's median round trip, ns.
 */
public record RttOverhead(String provider, long channelP50, long messagingP50)
{
    /**
     * @return messaging's p50 over the channel's (1.07 is 7% slower), or 0 when the channel
     *         recorded nothing.
     */
    public double ratio()
    {
        return channelP50 > 0 ? (double)messagingP50 / channelP50 : 0;
    }

    /**
     * @return messaging's p50 minus the channel's, ns (negative when messaging was faster).
     */
    public long differenceNs()
    {
        return messagingP50 - channelP50;
    }
}
