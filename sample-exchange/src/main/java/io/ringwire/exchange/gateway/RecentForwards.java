package io.ringwire.exchange.gateway;

/**
 * The new orders and replaces this gateway process forwarded most recently, each as its session,
 * client order id and receive time: what tells a journal refusal of one of this process's requests
 * from a refusal of an earlier gateway process's request under the same id.
 *
 * <p>A refusal names the request's receive time, and this process stamped each of its own with a
 * reading of its clock. Comparing that time with when this process began forwarding tells the two
 * lives apart only while the wall clock never stepped backwards between them (the exchange's clock
 * follows the wall clock at each start); matching the exact (session, id, time) this process
 * recorded needs no such assumption.
 *
 * <p>The journaller refuses a request as it reads it, so the requests forwarded between a request
 * and the arrival of its refusal are at most those the rings between the gateway and the journal,
 * and back, hold: with the default rings, well under {@link #CAPACITY} even of the smallest
 * requests; rings several times the default's could hold more. A refusal matching none
 * of the last {@link #CAPACITY} forwards keeps its id used, the safe side: a resend of the request as
 * it was is then refused as a duplicate, never let through twice, and the client sends it again
 * under a new id.
 *
 * <p>Cost: three stores a forward. A refusal scans back from the newest forward to its request:
 * only while the journal refuses, and an earlier life's refusal (which matches nothing) scans the
 * whole ring once.
 *
 * <p>Threading: the gateway's. Allocation-free after construction (5 MiB).
 */
final class RecentForwards
{
    /** Requests remembered; a power of two. */
    static final int CAPACITY = 1 << 18;
    private static final int MASK = CAPACITY - 1;

    private final long[] clientOrderIds = new long[CAPACITY];
    private final long[] receivedNs = new long[CAPACITY];
    private final int[] sessions = new int[CAPACITY];
    private long recorded;

    /** Remembers a request forwarded, dropping the oldest once full. */
    void record(final int session, final long clientOrderId, final long receivedNs)
    {
        final int slot = (int)recorded & MASK;
        sessions[slot] = session;
        clientOrderIds[slot] = clientOrderId;
        this.receivedNs[slot] = receivedNs;
        recorded++;
    }

    /**
     * Forgets the newest record of the request if it is remembered, so that one refusal matches
     * once. Searches from the newest, where a refusal's request normally is.
     *
     * @return whether this process forwarded the request (session, id and receive time all match).
     */
    boolean forget(final int session, final long clientOrderId, final long receivedNs)
    {
        final long oldest = Math.max(0, recorded - CAPACITY);
        for (long i = recorded - 1; i >= oldest; i--)
        {
            final int slot = (int)i & MASK;
            if (this.receivedNs[slot] == receivedNs && clientOrderIds[slot] == clientOrderId &&
                sessions[slot] == session)
            {
                sessions[slot] = -1;
                return true;
            }
        }
        return false;
    }
}
