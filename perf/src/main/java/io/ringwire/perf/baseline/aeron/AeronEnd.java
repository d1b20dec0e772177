package io.ringwire.perf.baseline.aeron;

import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;

/**
 * What every pinger and ponger of the Aeron baselines does with its side's subscription: polls it
 * into its own fragment handler through a reassembler, so a message longer than Aeron's MTU arrives
 * whole (allocation-free once the reassembler's buffer has grown); and how each reads a refused
 * offer or claim.
 *
 * <p>Threading: the spinning thread that owns the side.
 */
final class AeronEnd
{
    private final Subscription subscription;
    private final FragmentAssembler assembler;

    /**
     * @param side    the side, connected.
     * @param handler the end's fragment handler.
     */
    AeronEnd(final AeronIpcSide side, final FragmentHandler handler)
    {
        this.subscription = side.subscription;
        this.assembler = new FragmentAssembler(handler);
    }

    /**
     * Polls the subscription once, at most {@link AeronIpcSide#FRAGMENT_LIMIT} fragments.
     *
     * @return fragments handled, 0 when there was nothing.
     */
    int poll()
    {
        return subscription.poll(assembler, AeronIpcSide.FRAGMENT_LIMIT);
    }

    /**
     * @param result a negative result of an offer or a claim.
     * @return true when no later try can pass (the publication is closed or full for good); false
     *         for back pressure, no subscriber yet or an admin action, which pass with time.
     */
    static boolean refusedForGood(final long result)
    {
        return result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED;
    }
}
