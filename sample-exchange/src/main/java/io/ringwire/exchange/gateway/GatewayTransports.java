package io.ringwire.exchange.gateway;

import org.agrona.collections.Int2IntHashMap;

/**
 * The connections (messaging images) the gateway knows, each with the configured session whose
 * identity it proved, when it started waiting to log on, and the malformed messages it has sent.
 * A slot per connection, reused when it goes; at most {@code capacity} at once.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction (the map is sized for
 * the capacity at start).
 */
final class GatewayTransports
{
    /** No slot, no session. */
    static final int NONE = -1;
    /** A waiting time already acted on: the connection was asked to go. */
    private static final long REAPED = Long.MAX_VALUE;

    private final Int2IntHashMap slotOfTransport;
    private final int[] transportOf;
    private final int[] sessionOf;
    private final long[] waitingSinceNs;
    private final int[] malformed;
    private final int[] freeSlots;
    /** Whether each slot holds a connection: the duty cycle's walk reads no map. */
    private final boolean[] used;
    /**
     * One past the highest slot ever used: a freed slot is reused before a never-used one is taken
     * (lowest first), so this is the peak count of connections.
     */
    private int slotsTouched;
    private int freeCount;

    GatewayTransports(final int capacity)
    {
        slotOfTransport = new Int2IntHashMap(2 * capacity + 8, 0.5f, NONE);
        transportOf = new int[capacity];
        sessionOf = new int[capacity];
        waitingSinceNs = new long[capacity];
        malformed = new int[capacity];
        freeSlots = new int[capacity];
        used = new boolean[capacity];
        for (int i = 0; i < capacity; i++)
        {
            freeSlots[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    /**
     * @return the new connection's slot, or {@link #NONE} when the table is full or the transport
     *         is known already.
     */
    int announce(final int transport, final int session, final long nowNs)
    {
        if (freeCount == 0 || slotOfTransport.containsKey(transport))
        {
            return NONE;
        }
        final int slot = freeSlots[--freeCount];
        slotOfTransport.put(transport, slot);
        transportOf[slot] = transport;
        sessionOf[slot] = session;
        waitingSinceNs[slot] = nowNs;
        malformed[slot] = 0;
        used[slot] = true;
        slotsTouched = Math.max(slotsTouched, slot + 1);
        return slot;
    }

    /** @return the connection's slot, or {@link #NONE}. */
    int slot(final int transport)
    {
        return slotOfTransport.get(transport);
    }

    /** @return the configured session whose identity the connection in the slot proved. */
    int identitySession(final int slot)
    {
        return sessionOf[slot];
    }

    /** @return the transport session of the slot. */
    int transport(final int slot)
    {
        return transportOf[slot];
    }

    /** Forgets the connection. */
    void remove(final int transport)
    {
        final int slot = slotOfTransport.remove(transport);
        if (slot != NONE)
        {
            used[slot] = false;
            freeSlots[freeCount++] = slot;
        }
    }

    /** The connection is no longer logged on: its logon timeout starts again now. */
    void waitingFrom(final int slot, final long nowNs)
    {
        waitingSinceNs[slot] = nowNs;
    }

    /**
     * The gateway read no client for {@code gapNs}: each connection waiting to log on (and not yet
     * asked to go) has waited that much less, as a Logon it sent meanwhile sat unread.
     *
     * @param gapNs how long the gateway did not read; at least as long as any wait restarts every wait now.
     */
    void excuseWaiting(final long gapNs, final long nowNs)
    {
        for (int slot = 0; slot < slotsTouched; slot++)
        {
            final long since = waitingSinceNs[slot];
            if (used[slot] && since != REAPED)
            {
                waitingSinceNs[slot] = gapNs >= nowNs - since ? nowNs : since + gapNs;
            }
        }
    }

    /**
     * @return whether the connection has waited longer than {@code timeoutNs} and was not yet asked
     *         to go; if so it is marked, so it is asked once.
     */
    boolean reapIfWaitedPast(final int slot, final long nowNs, final long timeoutNs)
    {
        if (waitingSinceNs[slot] != REAPED && nowNs - waitingSinceNs[slot] > timeoutNs)
        {
            waitingSinceNs[slot] = REAPED;
            return true;
        }
        return false;
    }

    /** @return the connection's malformed messages, this one counted. */
    int strike(final int slot)
    {
        return ++malformed[slot];
    }

    /**
     * @return one past the highest slot that ever held a connection: the slots in use lie below it,
     *         to walk from 0 with {@link #inUse}.
     */
    int slotsTouched()
    {
        return slotsTouched;
    }

    /** @return whether the slot holds a connection. */
    boolean inUse(final int slot)
    {
        return used[slot];
    }

    /** @return connections known. */
    int count()
    {
        return slotOfTransport.size();
    }
}
