package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reject of a request the journal refused names the request's terms as the engine's own rejects
 * do: a new order's side, order type and time in force; a replace's side and LIMIT; a cancel's side;
 * a mass cancel none. A gateway tells by the order type whether the refused request took a client
 * order id for an order.
 */
class JournalRefusalsTest
{
    private static final long ENGINE_LIFE = 0x7E57_0000_0000_0001L;
    private final JournalRefusals refusals = new JournalRefusals();
    private final UnsafeBuffer request = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[512]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();

    private ExecutionReportDecoder refuse()
    {
        return refuse(RejectReason.JOURNAL_REFUSED);
    }

    private ExecutionReportDecoder refuse(final RejectReason reason)
    {
        final int length = refusals.reject(request, 0, out, 1_000, ENGINE_LIFE, reason);
        final MessageHeaderDecoder decoded = new MessageHeaderDecoder().wrap(out, 0);
        assertEquals(ExecutionReportDecoder.TEMPLATE_ID, decoded.templateId());
        final ExecutionReportDecoder report = new ExecutionReportDecoder().wrap(out, MessageHeaderDecoder.ENCODED_LENGTH,
            decoded.blockLength(), decoded.version());
        assertEquals(length, MessageHeaderDecoder.ENCODED_LENGTH + report.encodedLength());
        assertEquals(ExecType.REJECTED, report.execType());
        assertEquals(reason, report.rejectReason());
        assertEquals(ExecutionReportDecoder.engineSequenceNullValue(), report.engineSequence(), "in no journal");
        assertEquals(ENGINE_LIFE, report.engineLife(), "the engine's life, as every report of the engine names it");
        return report;
    }

    @Test
    void aRefusedMarketFokSellIsReportedAsOne()
    {
        new NewOrderEncoder().wrapAndApplyHeader(request, 0, header).clientOrderId(7).account(3).instrumentId(2)
            .side(Side.SELL).ordType(OrdType.MARKET).timeInForce(TimeInForce.FOK).price(0).quantity(40)
            .sendingTime(10).receiveTime(20);

        final ExecutionReportDecoder report = refuse();

        assertEquals(7, report.clientOrderId());
        assertEquals(Side.SELL, report.side());
        assertEquals(OrdType.MARKET, report.ordType());
        assertEquals(TimeInForce.FOK, report.timeInForce());
        assertEquals(40, report.orderQuantity());
    }

    @Test
    void aRefusedReplaceNamesLimitAndACancelOrMassCancelNoOrderType()
    {
        new ReplaceOrderEncoder().wrapAndApplyHeader(request, 0, header).clientOrderId(8).origClientOrderId(7)
            .account(3).instrumentId(2).side(Side.BUY).price(100).quantity(5).sendingTime(10).receiveTime(20);
        ExecutionReportDecoder report = refuse();
        assertEquals(Side.BUY, report.side());
        assertEquals(OrdType.LIMIT, report.ordType());
        assertEquals(TimeInForce.NULL_VAL, report.timeInForce());

        new CancelOrderEncoder().wrapAndApplyHeader(request, 0, header).clientOrderId(9).origClientOrderId(7)
            .account(3).instrumentId(2).side(Side.SELL).sendingTime(10).receiveTime(20);
        report = refuse();
        assertEquals(Side.SELL, report.side());
        assertEquals(OrdType.NULL_VAL, report.ordType());
        assertEquals(TimeInForce.NULL_VAL, report.timeInForce());

        new MassCancelEncoder().wrapAndApplyHeader(request, 0, header).clientOrderId(10).account(3).instrumentId(0)
            .sendingTime(10).receiveTime(20);
        report = refuse();
        assertEquals(Side.NULL_VAL, report.side(), "a mass cancel has no side");
        assertEquals(OrdType.NULL_VAL, report.ordType());
        assertEquals(TimeInForce.NULL_VAL, report.timeInForce());
    }

    @Test
    void aRequestOfAnotherEngineLifeIsRejectedSoNamingTheEnginesLife()
    {
        new NewOrderEncoder().wrapAndApplyHeader(request, 0, header).clientOrderId(11).account(3).instrumentId(2)
            .side(Side.BUY).ordType(OrdType.LIMIT).timeInForce(TimeInForce.DAY).price(100).quantity(5)
            .sendingTime(10).receiveTime(20).engineLife(ENGINE_LIFE + 1);

        final ExecutionReportDecoder report = refuse(RejectReason.OTHER_ENGINE_LIFE);

        assertEquals(11, report.clientOrderId());
        assertEquals(OrdType.LIMIT, report.ordType());
    }
}
