package io.ringwire.exchange.engine;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrderAddedEncoder;
import io.ringwire.codecs.trading.OrderCanceledEncoder;
import io.ringwire.codecs.trading.OrderExecutedEncoder;
import io.ringwire.codecs.trading.OrderReplacedEncoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TradeEncoder;
import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.book.OrderTerms;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Encodes the engine's order-level market data in the style of Nasdaq ITCH: an order added to the
 * back of its level, an order executed, an order's shown quantity canceled (to 0: it left the
 * book), an order replaced, and the trade itself. Every message carries two gap-free sequences:
 * the instrument's (a book rebuilt from one instrument's messages detects a gap) and the stream's.
 *
 * <p>Threading: the engine's thread. Allocation-free.
 */
final class MarketDataEncoder
{
    private final EngineOutput output;
    private final EngineCounters counters;
    private final long[] instrumentSequence;
    private long streamSequence;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final OrderAddedEncoder added = new OrderAddedEncoder();
    private final OrderExecutedEncoder executed = new OrderExecutedEncoder();
    private final OrderCanceledEncoder canceled = new OrderCanceledEncoder();
    private final OrderReplacedEncoder replaced = new OrderReplacedEncoder();
    private final TradeEncoder trade = new TradeEncoder();

    /**
     * @param instruments instruments 1 to N.
     * @param output      where the messages go (through the engine's digest feed).
     * @param counters    the engine's counters.
     */
    MarketDataEncoder(final int instruments, final EngineOutput output, final EngineCounters counters)
    {
        this.output = output;
        this.counters = counters;
        this.instrumentSequence = new long[instruments + 1];
    }

    /** @return the last stream sequence sent. */
    long streamSequence()
    {
        return streamSequence;
    }

    /** @return the last sequence sent for an instrument. */
    long instrumentSequence(final int instrumentId)
    {
        return instrumentSequence[instrumentId];
    }

    /** Restores the sequences from a snapshot. */
    void restore(final long stream, final long[] byInstrument)
    {
        streamSequence = stream;
        System.arraycopy(byInstrument, 0, instrumentSequence, 0, instrumentSequence.length);
    }

    /** @return every instrument's last sequence, index = instrument id (0 unused), a copy. */
    long[] instrumentSequences()
    {
        return instrumentSequence.clone();
    }

    void added(final OrderStore orders, final int order, final long time)
    {
        final int instrument = orders.instrument(order);
        added.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrument)
            .sequenceNumber(++instrumentSequence[instrument])
            .streamSequence(++streamSequence)
            .orderId(orders.orderId(order))
            .side(side(orders.side(order)))
            .price(orders.price(order))
            .quantity(orders.shown(order))
            .transactTime(time);
        send(MessageHeaderEncoder.ENCODED_LENGTH + added.encodedLength());
    }

    void executed(final OrderStore orders, final int order, final long quantity, final long price, final long matchId,
        final long time)
    {
        final int instrument = orders.instrument(order);
        executed.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrument)
            .sequenceNumber(++instrumentSequence[instrument])
            .streamSequence(++streamSequence)
            .orderId(orders.orderId(order))
            .executedQuantity(quantity)
            .price(price)
            .matchId(matchId)
            .transactTime(time);
        send(MessageHeaderEncoder.ENCODED_LENGTH + executed.encodedLength());
    }

    void canceled(final OrderStore orders, final int order, final long quantity, final long remaining, final long time)
    {
        final int instrument = orders.instrument(order);
        canceled.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrument)
            .sequenceNumber(++instrumentSequence[instrument])
            .streamSequence(++streamSequence)
            .orderId(orders.orderId(order))
            .canceledQuantity(quantity)
            .remainingQuantity(remaining)
            .transactTime(time);
        send(MessageHeaderEncoder.ENCODED_LENGTH + canceled.encodedLength());
    }

    void replaced(final OrderStore orders, final int order, final boolean keepsPriority, final long time)
    {
        final int instrument = orders.instrument(order);
        replaced.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrument)
            .sequenceNumber(++instrumentSequence[instrument])
            .streamSequence(++streamSequence)
            .orderId(orders.orderId(order))
            .price(orders.price(order))
            .quantity(orders.shown(order))
            .keepsPriority(keepsPriority ? BooleanType.TRUE : BooleanType.FALSE)
            .transactTime(time);
        send(MessageHeaderEncoder.ENCODED_LENGTH + replaced.encodedLength());
    }

    void trade(final OrderStore orders, final int aggressor, final int resting, final long price, final long quantity,
        final long matchId, final long time)
    {
        final int instrument = orders.instrument(aggressor);
        final boolean buying = orders.side(aggressor) == OrderTerms.BUY;
        trade.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrument)
            .sequenceNumber(++instrumentSequence[instrument])
            .tradeId(matchId)
            .price(price)
            .quantity(quantity)
            .aggressorSide(side(orders.side(aggressor)))
            .transactTime(time)
            .streamSequence(++streamSequence)
            .buyOrderId(orders.orderId(buying ? aggressor : resting))
            .sellOrderId(orders.orderId(buying ? resting : aggressor));
        send(MessageHeaderEncoder.ENCODED_LENGTH + trade.encodedLength());
    }

    private void send(final int length)
    {
        counters.marketDataMessages++;
        output.marketData(buffer, 0, length);
    }

    private static Side side(final byte side)
    {
        return side == OrderTerms.BUY ? Side.BUY : Side.SELL;
    }
}
