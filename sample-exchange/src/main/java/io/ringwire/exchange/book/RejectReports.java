package io.ringwire.exchange.book;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.RejectReason;
import org.agrona.MutableDirectBuffer;

/**
 * The fields every reject ExecutionReport carries, whoever rejects (the engine's checks, the
 * gateway's, a refused journal append): REJECTED, the reason, the request's identity and terms, and
 * no order id or fill; and the terms the request named ({@link #terms}), the same whoever rejects.
 * The caller adds the execution id, engine sequence and the latency ledger, which differ by who
 * rejects.
 *
 * <p>Allocation-free.
 */
public final class RejectReports
{
    /** A reject's enum field the request did not name. */
    public static final short NULL_ENUM = 255;

    private static final int SIDE_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + ExecutionReportEncoder.sideEncodingOffset();
    private static final int ORD_TYPE_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + ExecutionReportEncoder.ordTypeEncodingOffset();
    private static final int TIME_IN_FORCE_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + ExecutionReportEncoder.timeInForceEncodingOffset();

    private RejectReports()
    {
    }

    /**
     * Wraps {@code report} over {@code out} from 0 and sets the common reject fields.
     *
     * @return {@code report}, for the caller's remaining fields.
     */
    public static ExecutionReportEncoder begin(final ExecutionReportEncoder report, final MessageHeaderEncoder header,
        final MutableDirectBuffer out, final long clientOrderId, final long account, final int instrumentId,
        final RejectReason reason, final long price, final long quantity, final long transactTime)
    {
        return report.wrapAndApplyHeader(out, 0, header)
            .exchangeOrderId(0)
            .clientOrderId(clientOrderId)
            .execId(0)
            .account(account)
            .instrumentId(instrumentId)
            .execType(ExecType.REJECTED)
            .ordStatus(OrdStatus.REJECTED)
            .rejectReason(reason)
            .lastPrice(0)
            .lastQuantity(0)
            .leavesQuantity(0)
            .cumulativeQuantity(0)
            .transactTime(transactTime)
            .price(price)
            .orderQuantity(quantity);
    }

    /**
     * Writes the side, order type and time in force of the rejected request into the report
     * {@link #begin} wrapped over {@code out}, as the request carried them: a value this version does
     * not know goes back as the client sent it instead of failing the encode. A new order names all
     * three; a replace its side and LIMIT (it re-prices a limit order); a cancel its side; a mass
     * cancel none. {@link #NULL_ENUM} for a field the request does not name, so a reader can tell a
     * refused new order or replace, which took a client order id for an order, by its order type.
     */
    public static void terms(final MutableDirectBuffer out, final short side, final short ordType,
        final short timeInForce)
    {
        out.putByte(SIDE_OFFSET, (byte)side);
        out.putByte(ORD_TYPE_OFFSET, (byte)ordType);
        out.putByte(TIME_IN_FORCE_OFFSET, (byte)timeInForce);
    }

    /**
     * @return whether a reject is of a request that named an order's terms (a new order or a
     *         replace), by the order type {@link #terms} gave it.
     */
    public static boolean namesOrderTerms(final short ordTypeRaw)
    {
        return ordTypeRaw != NULL_ENUM;
    }
}
