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
 * no order id or fill. The caller adds the execution id, side, order type, time in force, engine
 * sequence and the latency ledger, which differ by who rejects.
 *
 * <p>Allocation-free.
 */
public final class RejectReports
{
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
}
