package io.ringwire.perf.exchange;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.book.OrderTerms;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * Writes the matching flow's requests as SBE messages (schema version 2, header included), end to
 * end in one off-heap buffer, and notes where each starts and what kind it is. Each request is
 * stamped as received 1 us after the one before (the engine's only clock).
 *
 * <p>Threading: the generating thread.
 */
final class FlowRecorder
{
    /** The first request's receive time: 2026-01-01T00:00:00Z in ns since the epoch. */
    static final long FIRST_RECEIVE_TIME_NS = 1_767_225_600_000_000_000L;
    /** Receive times of successive requests are this far apart. */
    static final long RECEIVE_INTERVAL_NS = 1_000;

    private final ExpandableDirectByteBuffer buffer;
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancelOrder = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replaceOrder = new ReplaceOrderEncoder();
    private int[] offsets;
    private byte[] kinds;
    private int count;
    private int position;

    /**
     * @param expectedRequests requests the flow will likely hold (the buffer grows past it if need be).
     */
    FlowRecorder(final int expectedRequests)
    {
        final long bytes = (long)expectedRequests * (MessageHeaderEncoder.ENCODED_LENGTH + NewOrderEncoder.BLOCK_LENGTH);
        buffer = new ExpandableDirectByteBuffer((int)Math.min(bytes, Integer.MAX_VALUE - 8));
        offsets = new int[expectedRequests + 1];
        kinds = new byte[expectedRequests];
    }

    /** @return requests written. */
    int count()
    {
        return count;
    }

    /** A NewOrder, limit, display all, not post-only, self-trade prevention cancelling the resting order. */
    void newOrder(final RequestKind kind, final long clientOrderId, final long account, final int instrumentId,
        final byte side, final byte timeInForce, final long price, final long quantity)
    {
        final long time = receiveTime();
        newOrder.wrapAndApplyHeader(buffer, position, header)
            .clientOrderId(clientOrderId)
            .account(account)
            .instrumentId(instrumentId)
            .side(side(side))
            .ordType(OrdType.LIMIT)
            .timeInForce(timeInForce == OrderTerms.GTC ? TimeInForce.GTC :
                timeInForce == OrderTerms.FOK ? TimeInForce.FOK : TimeInForce.IOC)
            .price(price)
            .quantity(quantity)
            .sendingTime(time)
            .postOnly(BooleanType.FALSE)
            .displayQuantity(0)
            .selfTradePrevention(SelfTradePrevention.CANCEL_RESTING)
            .receiveTime(time);
        written(kind, newOrder.encodedLength());
    }

    /** A CancelOrder. */
    void cancel(final RequestKind kind, final long requestId, final long origClientOrderId, final long account,
        final int instrumentId, final byte side)
    {
        final long time = receiveTime();
        cancelOrder.wrapAndApplyHeader(buffer, position, header)
            .clientOrderId(requestId)
            .origClientOrderId(origClientOrderId)
            .account(account)
            .instrumentId(instrumentId)
            .side(side(side))
            .sendingTime(time)
            .receiveTime(time);
        written(kind, cancelOrder.encodedLength());
    }

    /** A ReplaceOrder: new price and total quantity, and the client order id the order takes. */
    void replace(final RequestKind kind, final long clientOrderId, final long origClientOrderId, final long account,
        final int instrumentId, final byte side, final long price, final long quantity)
    {
        final long time = receiveTime();
        replaceOrder.wrapAndApplyHeader(buffer, position, header)
            .clientOrderId(clientOrderId)
            .origClientOrderId(origClientOrderId)
            .account(account)
            .instrumentId(instrumentId)
            .side(side(side))
            .price(price)
            .quantity(quantity)
            .sendingTime(time)
            .receiveTime(time);
        written(kind, replaceOrder.encodedLength());
    }

    /** @return the requests, over the bytes written. */
    UnsafeBuffer requests()
    {
        return new UnsafeBuffer(buffer.byteBuffer(), 0, position);
    }

    /** @return where request i starts, for i from 0 to {@link #count()} (the end). */
    int[] offsets()
    {
        return Arrays.copyOf(offsets, count + 1);
    }

    /** @return each request's {@link RequestKind} ordinal. */
    byte[] kinds()
    {
        return Arrays.copyOf(kinds, count);
    }

    private long receiveTime()
    {
        return FIRST_RECEIVE_TIME_NS + count * RECEIVE_INTERVAL_NS;
    }

    private void written(final RequestKind kind, final int bodyLength)
    {
        if (count + 1 == kinds.length)
        {
            kinds = Arrays.copyOf(kinds, kinds.length * 2);
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
        }
        kinds[count] = (byte)kind.ordinal();
        offsets[count] = position;
        position += MessageHeaderEncoder.ENCODED_LENGTH + bodyLength;
        offsets[++count] = position;
    }

    private static Side side(final byte side)
    {
        return side == OrderTerms.BUY ? Side.BUY : Side.SELL;
    }
}
