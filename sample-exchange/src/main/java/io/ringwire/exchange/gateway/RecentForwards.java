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
 * <p>Cost: three stores a forward. The engine refuses this gateway's requests in the order they
 * went out (they reach it over one publication, in order), so a refusal's request lies at or after
 * the one the previous refusal matched: the search starts there and goes forward, and over any run
 * of refusals reads each forward once at most, however many the journal refuses. A refusal found
 * nowhere forward is looked for behind that point too, before it is taken for an earlier life's:
 * such a refusal (which matches nothing) reads the whole ring, and it comes only in the moments
 * after a restart, while the ring holds few of this life's forwards.
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
    /** One past the forward the last matched refusal named: where the next refusal's request is looked for. */
    private long matched;
    /** Slots a search compared, for the tests of the search's cost. */
    private long slotsRead;

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
     * Forgets the record of the request if it is remembered, so that one refusal matches once.
     * Searches forward from where the last refusal matched, then behind it.
     *
     * @return whether this process forwarded the request (session, id and receive time all match).
     */
    boolean forget(final int session, final long clientOrderId, final long receivedNs)
    {
        final long oldest = Math.max(0, recorded - CAPACITY);
        final long from = Math.max(matched, oldest);
        for (long i = from; i < recorded; i++)
        {
            if (matches((int)i & MASK, session, clientOrderId, receivedNs))
            {
                matched = i + 1;
                slotsRead += i - from + 1;
                return true;
            }
        }
        slotsRead += recorded - from;
        for (long i = from - 1; i >= oldest; i--)
        {
            if (matches((int)i & MASK, session, clientOrderId, receivedNs))
            {
                slotsRead += from - i;
                return true;
            }
        }
        slotsRead += from - oldest;
        return false;
    }

    /** @return slots compared by every search so far. */
    long slotsRead()
    {
        return slotsRead;
    }

    /** Whether the slot holds the request, which it then no longer does. */
    private boolean matches(final int slot, final int session, final long clientOrderId, final long receivedNs)
    {
        if (this.receivedNs[slot] == receivedNs && clientOrderIds[slot] == clientOrderId && sessions[slot] == session)
        {
            sessions[slot] = -1;
            return true;
        }
        return false;
    }
}
