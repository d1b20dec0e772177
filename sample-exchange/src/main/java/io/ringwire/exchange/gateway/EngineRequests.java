package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Builds what the gateway sends the engine, in one preallocated buffer that {@link #buffer()}
 * exposes until the next build: a client's request copied and stamped, or a cancel-on-disconnect.
 *
 * <p>A request goes on as the current version whatever version the client encoded: the header is
 * the gateway's, the block is the client's up to the length the current version knows (a newer
 * client's appended fields are cut, an older client's missing terms get their null values, the
 * engine's defaults), then {@code receiveTime}, {@code gatewaySendTime} and {@code engineLife} (the life of the engine
 * the gateway serves, 0 before a report named one; an engine of another life refuses the request)
 * are written over whatever the client sent.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class EngineRequests
{
    private static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    /** The version that gave a NewOrder post-only, a display quantity and self-trade prevention. */
    private static final int NEW_ORDER_TERMS_SINCE = Math.max(NewOrderDecoder.postOnlySinceVersion(),
        Math.max(NewOrderDecoder.displayQuantitySinceVersion(), NewOrderDecoder.selfTradePreventionSinceVersion()));
    /** Where those terms end in a NewOrder's block: a client's block shorter than this lacks them. */
    private static final int NEW_ORDER_TERMS_END = Math.max(NewOrderDecoder.postOnlyEncodingOffset() +
        NewOrderDecoder.postOnlyEncodingLength(), Math.max(NewOrderDecoder.displayQuantityEncodingOffset() +
        NewOrderDecoder.displayQuantityEncodingLength(), NewOrderDecoder.selfTradePreventionEncodingOffset() +
        NewOrderDecoder.selfTradePreventionEncodingLength()));

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancelOrder = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replaceOrder = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancel = new MassCancelEncoder();
    /** The life of the engine the gateway serves, which every request names; 0 before one is known. */
    private long engineLife;

    /** @param life the life of the engine the gateway serves, from its reports: every request names it. */
    void engineLife(final long life)
    {
        engineLife = life;
    }

    /** @return the buffer the last request was built in, from offset 0. */
    DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @param clientBlockLength the block length in the client's header.
     * @param clientVersion     the schema version in the client's header: a field of a later version
     *                          is absent for it, whatever bytes its block carries there.
     * @return the length of the stamped NewOrder.
     */
    int newOrder(final DirectBuffer source, final int offset, final int clientBlockLength, final int clientVersion,
        final long receiveTime, final long gatewaySendTime)
    {
        final int length = copy(source, offset, clientBlockLength, NewOrderDecoder.TEMPLATE_ID,
            NewOrderDecoder.BLOCK_LENGTH);
        newOrder.wrap(buffer, HEADER_LENGTH);
        final boolean older = clientBlockLength < NEW_ORDER_TERMS_END || clientVersion < NEW_ORDER_TERMS_SINCE;
        if (older)
        {
            newOrder.postOnly(BooleanType.NULL_VAL)
                .displayQuantity(NewOrderEncoder.displayQuantityNullValue())
                .selfTradePrevention(SelfTradePrevention.NULL_VAL);
        }
        newOrder.receiveTime(receiveTime).gatewaySendTime(gatewaySendTime).engineLife(engineLife);
        return length;
    }

    /** @return the length of the stamped CancelOrder. */
    int cancelOrder(final DirectBuffer source, final int offset, final int clientBlockLength, final long receiveTime,
        final long gatewaySendTime)
    {
        final int length = copy(source, offset, clientBlockLength, CancelOrderDecoder.TEMPLATE_ID,
            CancelOrderDecoder.BLOCK_LENGTH);
        cancelOrder.wrap(buffer, HEADER_LENGTH).receiveTime(receiveTime).gatewaySendTime(gatewaySendTime)
            .engineLife(engineLife);
        return length;
    }

    /** @return the length of the stamped ReplaceOrder. */
    int replaceOrder(final DirectBuffer source, final int offset, final int clientBlockLength, final long receiveTime,
        final long gatewaySendTime)
    {
        final int length = copy(source, offset, clientBlockLength, ReplaceOrderDecoder.TEMPLATE_ID,
            ReplaceOrderDecoder.BLOCK_LENGTH);
        replaceOrder.wrap(buffer, HEADER_LENGTH).receiveTime(receiveTime).gatewaySendTime(gatewaySendTime)
            .engineLife(engineLife);
        return length;
    }

    /** @return the length of the stamped MassCancel (which has no gatewaySendTime). */
    int massCancel(final DirectBuffer source, final int offset, final int clientBlockLength, final long receiveTime)
    {
        final int length = copy(source, offset, clientBlockLength, MassCancelDecoder.TEMPLATE_ID,
            MassCancelDecoder.BLOCK_LENGTH);
        massCancel.wrap(buffer, HEADER_LENGTH).receiveTime(receiveTime).engineLife(engineLife);
        return length;
    }

    /** @return the length of a MassCancel of every order of the account, on every instrument. */
    int cancelOnDisconnect(final long account, final long nowNs)
    {
        massCancel.wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(0)
            .account(account)
            .instrumentId(0)
            .sendingTime(nowNs)
            .receiveTime(nowNs)
            .engineLife(engineLife);
        return HEADER_LENGTH + massCancel.encodedLength();
    }

    private int copy(final DirectBuffer source, final int offset, final int clientBlockLength, final int templateId,
        final int blockLength)
    {
        header.wrap(buffer, 0)
            .blockLength(blockLength)
            .templateId(templateId)
            .schemaId(MessageHeaderEncoder.SCHEMA_ID)
            .version(MessageHeaderEncoder.SCHEMA_VERSION);
        buffer.putBytes(HEADER_LENGTH, source, offset + HEADER_LENGTH, Math.min(clientBlockLength, blockLength));
        return HEADER_LENGTH + blockLength;
    }
}
