package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.book.RejectReports;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The reject a client gets for a request the engine did not journal: one its journal refused (a
 * segment that could not be made, say; {@link RejectReason#JOURNAL_REFUSED}), or one that names
 * another engine life than the engine's ({@link RejectReason#OTHER_ENGINE_LIFE}: its gateway serves
 * an engine since replaced on a new journal). An ExecutionReport REJECTED with that reason, the
 * request's client order id, account and terms, the gateway's ledger times and the engine's life.
 * It carries no engine sequence and is not digested: the request is in no journal, so no replay
 * makes it, and no restart resends it.
 *
 * <p>Threading: the engine's thread. Allocation-free.
 */
public final class JournalRefusals
{
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancel = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replace = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final ExecutionReportEncoder report = new ExecutionReportEncoder();

    /**
     * Encodes the reject of a request (one the engine's check accepted).
     *
     * @param request  holds it.
     * @param offset   where it starts.
     * @param out      where the report goes, from 0.
     * @param takenNs    when the engine took it in.
     * @param engineLife the engine's life, which the report names as every report does.
     * @param reason     {@link RejectReason#JOURNAL_REFUSED} or {@link RejectReason#OTHER_ENGINE_LIFE}.
     * @return the report's length, or 0 for a request no client waits on (an engine command).
     */
    public int reject(final DirectBuffer request, final int offset, final MutableDirectBuffer out, final long takenNs,
        final long engineLife, final RejectReason reason)
    {
        header.wrap(request, offset);
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int blockLength = header.blockLength();
        final int version = header.version();
        switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID ->
            {
                newOrder.wrap(request, body, blockLength, version);
                encode(out, reason, newOrder.clientOrderId(), newOrder.account(), newOrder.instrumentId(),
                    newOrder.sideRaw(), newOrder.ordTypeRaw(), newOrder.timeInForceRaw(), newOrder.price(),
                    newOrder.quantity(),
                    newOrder.sendingTime(), newOrder.receiveTime(), newOrder.gatewaySendTime());
            }
            case CancelOrderDecoder.TEMPLATE_ID ->
            {
                cancel.wrap(request, body, blockLength, version);
                encode(out, reason, cancel.clientOrderId(), cancel.account(), cancel.instrumentId(), cancel.sideRaw(),
                    RejectReports.NULL_ENUM, RejectReports.NULL_ENUM, 0, 0,
                    cancel.sendingTime(), cancel.receiveTime(), cancel.gatewaySendTime());
            }
            case ReplaceOrderDecoder.TEMPLATE_ID ->
            {
                replace.wrap(request, body, blockLength, version);
                encode(out, reason, replace.clientOrderId(), replace.account(), replace.instrumentId(),
                    replace.sideRaw(), OrdType.LIMIT.value(), RejectReports.NULL_ENUM, replace.price(),
                    replace.quantity(), replace.sendingTime(), replace.receiveTime(), replace.gatewaySendTime());
            }
            case MassCancelDecoder.TEMPLATE_ID ->
            {
                massCancel.wrap(request, body, blockLength, version);
                encode(out, reason, massCancel.clientOrderId(), massCancel.account(), massCancel.instrumentId(),
                    RejectReports.NULL_ENUM, RejectReports.NULL_ENUM, RejectReports.NULL_ENUM, 0, 0,
                    massCancel.sendingTime(), massCancel.receiveTime(),
                    NewOrderDecoder.gatewaySendTimeNullValue());
            }
            default ->
            {
                return 0;
            }
        }
        report.engineInTime(takenNs).engineOutTime(ExchangeClock.nowNs()).engineLife(engineLife);
        return MessageHeaderEncoder.ENCODED_LENGTH + report.encodedLength();
    }

    private void encode(final MutableDirectBuffer out, final RejectReason reason, final long clientOrderId,
        final long account, final int instrumentId, final short side, final short ordType, final short timeInForce,
        final long price, final long quantity, final long clientSend, final long gatewayIn, final long gatewayOut)
    {
        RejectReports.begin(report, headerEncoder, out, clientOrderId, account, instrumentId,
            reason, price, quantity, gatewayIn)
            .engineSequence(ExecutionReportEncoder.engineSequenceNullValue())
            .clientSendTime(nullToZero(clientSend, NewOrderDecoder.sendingTimeNullValue()))
            .gatewayInTime(nullToZero(gatewayIn, NewOrderDecoder.receiveTimeNullValue()))
            .gatewayOutTime(nullToZero(gatewayOut, NewOrderDecoder.gatewaySendTimeNullValue()))
            .gatewayReplyTime(0)
            .replySequence(0);
        RejectReports.terms(out, side, ordType, timeInForce);
    }

    private static long nullToZero(final long value, final long nullValue)
    {
        return value == nullValue ? 0 : value;
    }
}
