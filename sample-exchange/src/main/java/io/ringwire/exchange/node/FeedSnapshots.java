package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.marketdata.SnapshotEncoder;
import io.ringwire.exchange.marketdata.SnapshotSource;
import org.agrona.BitUtil;
import org.agrona.ExpandableRingBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The engine's side of the market-data service's recovery. The feed drops what it cannot deliver
 * (a service that is gone must not halt trading), so a service that restarts while the engine
 * runs, or starts after the engine's replay began at a snapshot, misses changes, and its replica
 * books go stale at the first gap. Whenever the feed's publication connects a service anew, and
 * whenever the feed dropped a message while connected, the engine sends a BookSnapshot of every
 * book into the feed, between two requests: a replica book that missed changes is stale or older,
 * and takes it; one that missed nothing ignores it. Every snapshot names the engine's life, and
 * every book goes, untouched ones too (empty, at sequence 0): a replica of an engine that was
 * started again on a new journal learns it from the round's first part, and takes every book
 * again from the rest.
 *
 * <p>One book goes per call, all its parts at once (a snapshot holds one point of its book), and
 * only while the feed is connected and has no backlog: the engine takes no request while the feed
 * is behind, so a book of many orders delays trading by its size, once per round (a new connection,
 * a drop). The service passes the snapshots on to its subscribers, whose books take or ignore them
 * alike. The snapshots go straight to the feed, not through the engine's output: they are no part of
 * the output digest, which replays deterministically.
 *
 * <p>Threading: the engine's. Allocation-free.
 */
final class FeedSnapshots
{
    private static final int NOT_SENDING = -1;

    private final Outbound feed;
    private final SnapshotSource source;
    private final SnapshotEncoder encoder;
    private final UnsafeBuffer buffer;
    private final SnapshotEncoder.PartSink sendPart;
    /** The feed's connections count the snapshots went (or go) to; 0 before the first. */
    private long connectionsServed;
    /** The feed's dropped count when the snapshots began. */
    private long droppedServed;
    private int nextSlot = NOT_SENDING;
    private long booksSent;

    /**
     * The feed's backlog for an engine of {@code maxOrders}: at least {@code floor}, and room for a
     * whole book of that many orders, since one book may hold every order, and for one part more:
     * the backlog is a ring, and a part that does not fit before its end leaves up to a part of
     * padding there. A round sends a book only onto an empty backlog, so its parts always fit; a
     * backlog that cut one would count a drop,
     * which starts the round over and cuts the same book again, while its replica stays stale and
     * the engine waits on the backlog every time.
     *
     * @param maxOrders the most orders the engine holds.
     * @param floor     the backlog the feed keeps for its ordinary messages.
     * @return a power of two: the bytes of backlog the feed's {@link Outbound} takes.
     */
    static int backlogBytes(final int maxOrders, final int floor)
    {
        final long parts = maxOrders / SnapshotEncoder.MAX_ORDERS_PER_PART + 2; // the book's, and the padding's
        final long partBytes = BitUtil.align(SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART) +
            ExpandableRingBuffer.HEADER_LENGTH, ExpandableRingBuffer.HEADER_ALIGNMENT);
        final long book = parts * partBytes;
        if (book > ExpandableRingBuffer.MAX_CAPACITY)
        {
            throw new IllegalArgumentException("a book of " + maxOrders + " orders takes " + book +
                " bytes of snapshot, more than a backlog holds (" + ExpandableRingBuffer.MAX_CAPACITY + ")");
        }
        return Math.max(Integer.highestOneBit(Math.max(1, floor)), BitUtil.findNextPositivePowerOfTwo((int)book));
    }

    /**
     * @param engine     the engine, whose books and market-data sequences the snapshots hold.
     * @param feed       the feed to the market-data service.
     * @param engineLife the engine's life, which the snapshots name.
     */
    FeedSnapshots(final MatchingEngine engine, final Outbound feed, final long engineLife)
    {
        this.feed = feed;
        this.source = engine.feedSnapshotSource(engineLife);
        this.encoder = new SnapshotEncoder(source, engine.books().walk(), SnapshotEncoder.MAX_ORDERS_PER_PART);
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(encoder.maxPartLength()));
        // A part the feed drops (the service gone again, the backlog full) counts as a drop, which
        // starts the snapshots over once the feed is connected.
        this.sendPart = this.feed::send;
    }

    /**
     * Starts the snapshots when the feed has connected anew or dropped a message, and sends the next
     * book while the feed keeps up. Call between two requests.
     *
     * @return parts sent.
     */
    int doWork()
    {
        final long connections = feed.publication().connections();
        final long dropped = feed.dropped();
        if ((connections != connectionsServed || dropped != droppedServed) && feed.isConnected())
        {
            connectionsServed = connections;
            droppedServed = dropped;
            nextSlot = 0;
        }
        if (nextSlot == NOT_SENDING || feed.isBehind() || !feed.isConnected())
        {
            return 0; // a service gone mid-round gets a new round when it connects again
        }
        if (nextSlot < source.books())
        {
            booksSent++;
            return encoder.encodeSlot(nextSlot++, buffer, 0, sendPart);
        }
        nextSlot = NOT_SENDING;
        return 0;
    }

    /**
     * @return book snapshots handed to the feed: sent, or queued behind it. One whose parts the
     *         feed then dropped counts too, and again when the round that drop starts sends it.
     */
    long booksSent()
    {
        return booksSent;
    }
}
