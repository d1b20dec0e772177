package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.BookSnapshotEncoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrderAddedEncoder;
import io.ringwire.codecs.trading.OrderCanceledEncoder;
import io.ringwire.codecs.trading.OrderExecutedEncoder;
import io.ringwire.codecs.trading.OrderReplacedEncoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.SnapshotRequestEncoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Hand-written market-data messages for one instrument, with its sequence and the stream's counted
 * here, so a test states a feed in a few lines. Each method encodes into {@link #buffer} from 0
 * and returns the length.
 */
final class Messages
{
    final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final int instrumentId;
    long sequence;
    long stream;

    Messages(final int instrumentId)
    {
        this.instrumentId = instrumentId;
    }

    int added(final long orderId, final Side side, final long price, final long quantity)
    {
        final OrderAddedEncoder message = new OrderAddedEncoder().wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId).sequenceNumber(++sequence).streamSequence(++stream)
            .orderId(orderId).side(side).price(price).quantity(quantity).transactTime(1);
        return MessageHeaderEncoder.ENCODED_LENGTH + message.encodedLength();
    }

    int executed(final long orderId, final long quantity, final long price)
    {
        final OrderExecutedEncoder message = new OrderExecutedEncoder().wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId).sequenceNumber(++sequence).streamSequence(++stream)
            .orderId(orderId).executedQuantity(quantity).price(price).matchId(1).transactTime(1);
        return MessageHeaderEncoder.ENCODED_LENGTH + message.encodedLength();
    }

    int canceled(final long orderId, final long quantity, final long remaining)
    {
        final OrderCanceledEncoder message = new OrderCanceledEncoder().wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId).sequenceNumber(++sequence).streamSequence(++stream)
            .orderId(orderId).canceledQuantity(quantity).remainingQuantity(remaining).transactTime(1);
        return MessageHeaderEncoder.ENCODED_LENGTH + message.encodedLength();
    }

    int replaced(final long orderId, final long price, final long quantity, final boolean keepsPriority)
    {
        final OrderReplacedEncoder message = new OrderReplacedEncoder().wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId).sequenceNumber(++sequence).streamSequence(++stream)
            .orderId(orderId).price(price).quantity(quantity)
            .keepsPriority(keepsPriority ? BooleanType.TRUE : BooleanType.FALSE).transactTime(1);
        return MessageHeaderEncoder.ENCODED_LENGTH + message.encodedLength();
    }

    /**
     * A BookSnapshot of the instrument's book as its one and last part, at this feed's sequences,
     * naming an engine life, holding resting buy orders of these ids, each at price 100 for 10.
     */
    int snapshot(final long engineLife, final long... orderIds)
    {
        final BookSnapshotEncoder message = new BookSnapshotEncoder().wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId).sequenceNumber(sequence).streamSequence(stream).part(0)
            .lastPart(BooleanType.TRUE).engineLife(engineLife);
        final BookSnapshotEncoder.OrdersEncoder orders = message.ordersCount(orderIds.length);
        for (final long orderId : orderIds)
        {
            orders.next().orderId(orderId).side(Side.BUY).price(100).quantity(10);
        }
        return MessageHeaderEncoder.ENCODED_LENGTH + message.encodedLength();
    }

    int snapshotRequest(final int instrument)
    {
        final SnapshotRequestEncoder message = new SnapshotRequestEncoder().wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrument).requesterId(7);
        return MessageHeaderEncoder.ENCODED_LENGTH + message.encodedLength();
    }

    /** @return a copy of a message (a snapshot part handed to a callback), to apply later. */
    static byte[] copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    static UnsafeBuffer wrap(final byte[] bytes)
    {
        return new UnsafeBuffer(bytes);
    }
}
