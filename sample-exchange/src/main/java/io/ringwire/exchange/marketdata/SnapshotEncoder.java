package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.BookSnapshotEncoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.book.ReplicaBooks;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static io.ringwire.exchange.book.ReplicaBooks.ASK;
import static io.ringwire.exchange.book.ReplicaBooks.BID;

/**
 * The market-data service's side of recovery: encodes BookSnapshots of a replica's live books.
 * The service feeds its {@link MarketDataBooks} from the engine's feed and answers SnapshotRequests
 * ({@link SnapshotSchedule}) on the same stream between two incrementals, so a snapshot holds
 * exactly the incrementals before it (its sequence is the instrument's last one applied) and a
 * client applies the ones after it.
 *
 * <p>A book is sent in as many parts as it takes, each with at most {@code maxOrdersPerPart}
 * orders, so every part fits one fixed buffer of {@link #maxPartLength()} bytes; parts go to the
 * {@link PartSink} one by one, each encoded over the last in the same buffer. Orders go bids then
 * asks, levels best first, time priority within a level: appending them in that order rebuilds
 * every queue.
 *
 * <p>Threading: the replica's thread. Allocation-free.
 */
public final class SnapshotEncoder
{
    /** The default and the most orders in a part. */
    public static final int MAX_ORDERS_PER_PART = 256;

    /** Takes each part as it is encoded. */
    @FunctionalInterface
    public interface PartSink
    {
        /**
         * @param buffer holds one complete BookSnapshot message from {@code offset}; it is reused for
         *               the next part, so copy it before returning if it must outlive the call.
         * @param offset where it starts.
         * @param length its length.
         */
        void onPart(DirectBuffer buffer, int offset, int length);
    }

    private final MarketDataBooks replica;
    private final FeedSequencer sequencer;
    private final ReplicaBooks books;
    private final int maxOrdersPerPart;
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final BookSnapshotEncoder snapshot = new BookSnapshotEncoder();

    private int cursorSide;
    private int cursorLevel;
    private int cursorOrder;

    /**
     * @param books            the replica to take snapshots of.
     * @param maxOrdersPerPart orders in one part, 1 to {@link #MAX_ORDERS_PER_PART}.
     */
    public SnapshotEncoder(final MarketDataBooks books, final int maxOrdersPerPart)
    {
        if (maxOrdersPerPart < 1 || maxOrdersPerPart > MAX_ORDERS_PER_PART)
        {
            throw new IllegalArgumentException("orders per part must be 1 to " + MAX_ORDERS_PER_PART + ": " +
                maxOrdersPerPart);
        }
        this.replica = books;
        this.sequencer = books.sequencer;
        this.books = books.books;
        this.maxOrdersPerPart = maxOrdersPerPart;
    }

    /** @return the bytes one part takes at most: the buffer a caller needs from its offset. */
    public int maxPartLength()
    {
        return partLength(maxOrdersPerPart);
    }

    /** @return the bytes a part of {@code orders} orders takes. */
    public static int partLength(final int orders)
    {
        return MessageHeaderEncoder.ENCODED_LENGTH + BookSnapshotEncoder.BLOCK_LENGTH +
            BookSnapshotEncoder.OrdersEncoder.sbeHeaderSize() + orders * BookSnapshotEncoder.OrdersEncoder.sbeBlockLength();
    }

    /**
     * Encodes the snapshot of one instrument's book, or of every live book (instrument id order)
     * for instrument 0.
     *
     * @return parts sent; 0 when the instrument has no book or its book is stale (a stale book
     *         is no one's truth).
     * @throws IllegalArgumentException when the buffer cannot hold a part.
     */
    public int encode(final int instrumentId, final MutableDirectBuffer buffer, final int offset, final PartSink sink)
    {
        checkRoom(buffer, offset);
        if (instrumentId != 0)
        {
            return encodeBook(replica.slotOf(instrumentId), buffer, offset, sink);
        }
        int parts = 0;
        for (int slot = 0; slot < books.instruments(); slot++)
        {
            parts += encodeBook(slot, buffer, offset, sink);
        }
        return parts;
    }

    /**
     * Encodes the snapshot of the book in one slot of the replica.
     *
     * @return parts sent; 0 when the book is stale.
     * @throws IllegalArgumentException when the buffer cannot hold a part.
     */
    int encodeSlot(final int slot, final MutableDirectBuffer buffer, final int offset, final PartSink sink)
    {
        checkRoom(buffer, offset);
        return encodeBook(slot, buffer, offset, sink);
    }

    private void checkRoom(final MutableDirectBuffer buffer, final int offset)
    {
        if (offset < 0 || buffer.capacity() - offset < maxPartLength())
        {
            throw new IllegalArgumentException("a part needs " + maxPartLength() + " bytes from the offset");
        }
    }

    private int encodeBook(final int slot, final MutableDirectBuffer buffer, final int offset, final PartSink sink)
    {
        if (slot == NONE || sequencer.isStale(slot))
        {
            return 0;
        }
        final int instrumentId = books.instrumentId(slot);
        final long sequence = sequencer.sequence(slot);
        final long stream = sequencer.streamSequence();
        int remaining = books.orderCount(slot);
        cursorSide = BID;
        cursorLevel = books.bestLevel(slot, BID);
        cursorOrder = cursorLevel == NONE ? NONE : books.firstOrder(cursorLevel);
        int part = 0;
        do
        {
            final int count = Math.min(remaining, maxOrdersPerPart);
            remaining -= count;
            snapshot.wrapAndApplyHeader(buffer, offset, header)
                .instrumentId(instrumentId)
                .sequenceNumber(sequence)
                .streamSequence(stream)
                .part(part)
                .lastPart(remaining == 0 ? BooleanType.TRUE : BooleanType.FALSE);
            final BookSnapshotEncoder.OrdersEncoder entries = snapshot.ordersCount(count);
            for (int i = 0; i < count; i++)
            {
                advanceToOrder(slot);
                entries.next()
                    .orderId(books.orderId(cursorOrder))
                    .side(cursorSide == BID ? Side.BUY : Side.SELL)
                    .price(books.levelPrice(cursorLevel))
                    .quantity(books.shown(cursorOrder));
                cursorOrder = books.nextOrder(cursorOrder);
            }
            sink.onPart(buffer, offset, MessageHeaderEncoder.ENCODED_LENGTH + snapshot.encodedLength());
            part++;
        }
        while (remaining > 0);
        return part;
    }

    /** Moves the cursor past emptied levels and from the bids to the asks, onto the next order. */
    private void advanceToOrder(final int slot)
    {
        while (cursorOrder == NONE)
        {
            cursorLevel = cursorLevel == NONE ? NONE : books.nextLevel(cursorLevel);
            if (cursorLevel == NONE && cursorSide == ASK)
            {
                throw new IllegalStateException("the book holds fewer orders than it counts");
            }
            if (cursorLevel == NONE)
            {
                cursorSide = ASK;
                cursorLevel = books.bestLevel(slot, ASK);
            }
            cursorOrder = cursorLevel == NONE ? NONE : books.firstOrder(cursorLevel);
        }
    }
}
