package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.BookSnapshotEncoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.book.BookWalk;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;

/**
 * Encodes BookSnapshots: of a replica's live books, which is the market-data service's side of its
 * subscribers' recovery, or of the engine's books ({@link SnapshotSource}), which is the engine's
 * side of the service's. Either is sent on the stream between two incrementals (the service answers
 * SnapshotRequests there, {@link SnapshotSchedule}; the engine sends between two requests), so a
 * snapshot holds exactly the incrementals before it (its sequence is the instrument's last one) and
 * a reader applies the ones after it.
 *
 * <p>A book is sent in as many parts as it takes, each with at most {@code maxOrdersPerPart}
 * orders, so every part fits one fixed buffer of {@link #maxPartLength()} bytes; parts go to the
 * {@link PartSink} one by one, each encoded over the last in the same buffer. Orders go bids then
 * asks, levels best first, time priority within a level: appending them in that order rebuilds
 * every queue.
 *
 * <p>Threading: the books' thread. Allocation-free.
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

    private final SnapshotSource source;
    private final BookWalk walk;
    private final int maxOrdersPerPart;
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final BookSnapshotEncoder snapshot = new BookSnapshotEncoder();

    /**
     * Snapshots of a replica's live books.
     *
     * @param books            the replica to take snapshots of.
     * @param maxOrdersPerPart orders in one part, 1 to {@link #MAX_ORDERS_PER_PART}.
     */
    public SnapshotEncoder(final MarketDataBooks books, final int maxOrdersPerPart)
    {
        this(books.snapshotSource(), books.books.walk(), maxOrdersPerPart);
    }

    /**
     * @param source           the books' liveness and sequences.
     * @param walk             a walk over the same books' orders.
     * @param maxOrdersPerPart orders in one part, 1 to {@link #MAX_ORDERS_PER_PART}.
     */
    public SnapshotEncoder(final SnapshotSource source, final BookWalk walk, final int maxOrdersPerPart)
    {
        if (maxOrdersPerPart < 1 || maxOrdersPerPart > MAX_ORDERS_PER_PART)
        {
            throw new IllegalArgumentException("orders per part must be 1 to " + MAX_ORDERS_PER_PART + ": " +
                maxOrdersPerPart);
        }
        this.source = source;
        this.walk = walk;
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
            return encodeBook(instrumentId >= 1 && instrumentId <= source.books() ? instrumentId - 1 : NONE, buffer,
                offset, sink);
        }
        int parts = 0;
        for (int slot = 0; slot < source.books(); slot++)
        {
            parts += encodeBook(slot, buffer, offset, sink);
        }
        return parts;
    }

    /**
     * Encodes the snapshot of the book in one slot (the instrument's index).
     *
     * @return parts sent; 0 when the book is stale.
     * @throws IllegalArgumentException when the buffer cannot hold a part.
     */
    public int encodeSlot(final int slot, final MutableDirectBuffer buffer, final int offset, final PartSink sink)
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
        if (slot == NONE || !source.isLive(slot))
        {
            return 0;
        }
        final long sequence = source.sequence(slot);
        final long stream = source.streamSequence();
        final long life = source.engineLife();
        int remaining = walk.start(slot);
        int part = 0;
        do
        {
            final int count = Math.min(remaining, maxOrdersPerPart);
            remaining -= count;
            snapshot.wrapAndApplyHeader(buffer, offset, header)
                .instrumentId(slot + 1)
                .sequenceNumber(sequence)
                .streamSequence(stream)
                .part(part)
                .lastPart(remaining == 0 ? BooleanType.TRUE : BooleanType.FALSE)
                .engineLife(life);
            final BookSnapshotEncoder.OrdersEncoder entries = snapshot.ordersCount(count);
            for (int i = 0; i < count; i++)
            {
                if (!walk.next())
                {
                    throw new IllegalStateException("the book holds fewer orders than its walk counted");
                }
                entries.next()
                    .orderId(walk.orderId())
                    .side(walk.isBid() ? Side.BUY : Side.SELL)
                    .price(walk.price())
                    .quantity(walk.shown());
            }
            sink.onPart(buffer, offset, MessageHeaderEncoder.ENCODED_LENGTH + snapshot.encodedLength());
            part++;
        }
        while (remaining > 0);
        return part;
    }
}
