package io.ringwire.perf.baseline.aeron;

import io.aeron.Publication;
import io.ringwire.perf.pingpong.PingOffer;

/**
 * What Aeron's refusals of an offer or a claim mean, for the Aeron pingers' tries: a closed
 * publication or one at its maximum position never takes another message; back pressure, no
 * subscriber yet and an admin action pass with time (until the peer timeout).
 */
abstract class AeronPingOffer implements PingOffer
{
    private final String operation;
    private final String message;

    /**
     * @param operation what a try is, for a failure ("offer", "claim").
     * @param message   what it sends, for a timeout ("ping", "probe").
     */
    AeronPingOffer(final String operation, final String message)
    {
        this.operation = operation;
        this.message = message;
    }

    @Override
    public final String refusedForGood(final long refusal)
    {
        return AeronEnd.refusedForGood(refusal) ? operation + " failed: " + Publication.errorString(refusal) : null;
    }

    @Override
    public final String refusedForNow(final long refusal)
    {
        return "the publication took no " + message + " (" + Publication.errorString(refusal) + ")";
    }
}
