package io.ringwire.exchange.demo;

/**
 * One simulated client's new orders by client order id: those waiting for their acknowledgement
 * (when each was due, whether a hold of the thread straddled its send, whether it still waited when
 * its session was lost), those acknowledged, so that a second acknowledgement is told apart from
 * one of an order never sent, and how each ended (filled, canceled), so that an order reported
 * both ways is caught.
 *
 * <p>Each table has {@link #SLOTS} slots, an order in the slot of its id's low bits: a client's ids
 * rise by one a request (of any kind), so an order's slot is taken again only {@link #SLOTS}
 * requests later; an order still unanswered then (sent into a session the gateway lost) is no longer
 * followed. One thread; nothing is allocated after construction.
 */
final class ClientOrders
{
    /** Slots in each table (a power of two). */
    static final int SLOTS = 1 << 16;
    /** How an order ended: in {@link #ended}. */
    static final byte FILLED = 1;
    /** How an order ended: in {@link #ended}. */
    static final byte CANCELED = 2;
    /** {@link #acknowledge}: the order had been acknowledged before. */
    static final int DUPLICATE = -1;
    /** {@link #acknowledge}: no order of that id is waiting (not sent by this client, overwritten, or id 0). */
    static final int NOT_WAITING = -2;

    private final long[] waitingIds = new long[SLOTS];
    private final long[] dueNs = new long[SLOTS];
    private final boolean[] sentAcrossHold = new boolean[SLOTS];
    private final boolean[] waitedAtSessionLoss = new boolean[SLOTS];
    private final long[] acknowledgedIds = new long[SLOTS];
    private final long[] endedIds = new long[SLOTS];
    private final byte[] ended = new byte[SLOTS];

    /**
     * Records a new order sent, which now waits for its acknowledgement.
     *
     * @param clientOrderId its id (not 0).
     * @param due           when it was due on the rate's schedule.
     * @param acrossHold    whether a hold of the thread straddled its send.
     */
    void sent(final long clientOrderId, final long due, final boolean acrossHold)
    {
        final int slot = slot(clientOrderId);
        waitingIds[slot] = clientOrderId;
        dueNs[slot] = due;
        sentAcrossHold[slot] = acrossHold;
        waitedAtSessionLoss[slot] = false;
    }

    /**
     * The client found its session lost (the gateway cut it, the connection went, or the gateway
     * fell silent): every order still waiting went into that session, and those the gateway took
     * only after it lost the session are never answered (it refuses a request of a session not
     * logged on, and answers one only within a rate). Marks each waiting order not yet marked, nor
     * sent across a hold (counted already); one the gateway forwarded is still acknowledged (at the
     * latest from its reply log at the next logon) and leaves the mark then. Visits every slot: once a
     * loss, not per message.
     *
     * @return the orders newly marked.
     */
    int sessionLost()
    {
        int marked = 0;
        for (int slot = 0; slot < SLOTS; slot++)
        {
            if (waitingIds[slot] != 0 && !sentAcrossHold[slot] && !waitedAtSessionLoss[slot])
            {
                waitedAtSessionLoss[slot] = true;
                marked++;
            }
        }
        return marked;
    }

    /**
     * Takes an acknowledgement of an order: it waits no more.
     *
     * @return the order's slot, where {@link #dueNs(int)} and {@link #takeAcrossHold(int)} read it;
     *         {@link #DUPLICATE} for an order acknowledged before, {@link #NOT_WAITING} for one no
     *         slot holds.
     */
    int acknowledge(final long clientOrderId)
    {
        final int slot = slot(clientOrderId);
        if (waitingIds[slot] == clientOrderId && clientOrderId != 0)
        {
            waitingIds[slot] = 0;
            acknowledgedIds[slot] = clientOrderId;
            return slot;
        }
        return acknowledgedIds[slot] == clientOrderId && clientOrderId != 0 ? DUPLICATE : NOT_WAITING;
    }

    /** @return when the order in {@code slot} (from {@link #acknowledge}) was due. */
    long dueNs(final int slot)
    {
        return dueNs[slot];
    }

    /** @return whether a hold straddled the send of the order in {@code slot}; cleared, so that it is counted down once. */
    boolean takeAcrossHold(final int slot)
    {
        final boolean across = sentAcrossHold[slot];
        sentAcrossHold[slot] = false;
        return across;
    }

    /** @return whether the order in {@code slot} waited when a session was lost; cleared, so that it is counted down once. */
    boolean takeWaitedAtSessionLoss(final int slot)
    {
        final boolean waited = waitedAtSessionLoss[slot];
        waitedAtSessionLoss[slot] = false;
        return waited;
    }

    /**
     * Notes that an order was reported {@link #FILLED} or {@link #CANCELED}.
     *
     * @return true when the order has now been reported both filled and canceled (a violation).
     */
    boolean ended(final long clientOrderId, final byte how)
    {
        final int slot = slot(clientOrderId);
        if (endedIds[slot] != clientOrderId)
        {
            endedIds[slot] = clientOrderId;
            ended[slot] = how;
            return false;
        }
        final boolean both = (ended[slot] | how) == (FILLED | CANCELED) && ended[slot] != how;
        ended[slot] |= how;
        return both;
    }

    private static int slot(final long clientOrderId)
    {
        return (int)(clientOrderId & (SLOTS - 1));
    }
}
