package io.ringwire.exchange.fix;

import io.ringwire.codecs.ListedValues;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import quickfix.Message;
import quickfix.field.Account;
import quickfix.field.AvgPx;
import quickfix.field.BusinessRejectReason;
import quickfix.field.ClOrdID;
import quickfix.field.CumQty;
import quickfix.field.CxlRejReason;
import quickfix.field.CxlRejResponseTo;
import quickfix.field.ExecID;
import quickfix.field.LastPx;
import quickfix.field.LastQty;
import quickfix.field.LeavesQty;
import quickfix.field.MassCancelRejectReason;
import quickfix.field.MassCancelRequestType;
import quickfix.field.MassCancelResponse;
import quickfix.field.MsgSeqNum;
import quickfix.field.MsgType;
import quickfix.field.OrdRejReason;
import quickfix.field.OrderID;
import quickfix.field.OrderQty;
import quickfix.field.OrigClOrdID;
import quickfix.field.Price;
import quickfix.field.RefMsgType;
import quickfix.field.RefSeqNum;
import quickfix.field.Symbol;
import quickfix.field.Text;
import quickfix.field.TransactTime;
import quickfix.fix44.BusinessMessageReject;
import quickfix.fix44.ExecutionReport;
import quickfix.fix44.OrderCancelReject;
import quickfix.fix44.OrderMassCancelReport;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The exchange's SBE ExecutionReports to FIX 4.4: an ExecutionReport (8) for every report of an
 * order (ExecType 0 New, F Trade, 4 Canceled, 5 Replaced, 8 Rejected, D Restated, with OrdStatus,
 * LeavesQty, CumQty, AvgPx, LastPx and LastQty); an OrderCancelReject (9) for a refused cancel or
 * replace; an OrderMassCancelReport (r) for a mass cancel, accepted or refused. A cancel's report
 * carries the cancel's ClOrdID and the order's as OrigClOrdID, a replace's the new ClOrdID and the
 * replaced one. The door's own refusals (what {@link FixInbound} cannot map) come out the same way.
 *
 * <p>Threading: the gateway's thread. Allocates (QuickFIX/J messages are objects).
 */
public final class FixOutbound
{

    private FixOutbound()
    {
    }

    /**
     * @param report an SBE ExecutionReport.
     * @param orders the session's orders.
     * @param execIds the door's ExecIDs, for a report the engine did not number (a gateway's reject).
     * @return the FIX message for it.
     */
    public static Message report(final ExecutionReportDecoder report, final FixOrders orders,
        final FixExecIds execIds)
    {
        final long id = report.clientOrderId();
        // Raw: a type, reason or status of a newer schema is reported as unspecified, not dropped with its report.
        final ExecType execType = ListedValues.execType(report.execTypeRaw());
        final RejectReason reason = ListedValues.rejectReason(report.rejectReasonRaw());
        final FixOrders.Kind kind = orders.kind(id);
        if (execType == ExecType.REJECTED && kind == FixOrders.Kind.MASS_CANCEL)
        {
            final Message rejected = massCancelReport(orders.clOrdId(id), report.instrumentId(),
                FixRejectCodes.massCancelRejectReason(reason), FixRejectCodes.text(reason));
            orders.forget(id);
            return rejected;
        }
        if (execType == ExecType.REJECTED && (kind == FixOrders.Kind.CANCEL || kind == FixOrders.Kind.REPLACE))
        {
            orders.cancelRefused(id);
            final char status = orders.status(orders.originalId(id),
                reason == RejectReason.UNKNOWN_ORDER ? OrdStatusCodes.REJECTED : OrdStatusCodes.NEW);
            final int cxlRejReason = cxlRejReason(reason, status);
            final Message rejected = cancelReject(orders.clOrdId(id), orders.originalClOrdId(id),
                kind == FixOrders.Kind.REPLACE, cxlRejReason, cxlRejReason == CxlRejReason.TOO_LATE_TO_CANCEL ?
                "too late to cancel: the order is " + (status == quickfix.field.OrdStatus.FILLED ? "filled" : "canceled") :
                FixRejectCodes.text(reason), status);
            orders.forget(id);
            return rejected;
        }
        final ExecutionReport message = new ExecutionReport();
        message.set(new OrderID(report.exchangeOrderId() == 0 ? "NONE" : Long.toString(report.exchangeOrderId())));
        message.set(new ExecID(execIds.of(report.execId())));
        message.set(new quickfix.field.ExecType(execType(execType, report.lastQuantity())));
        final char status = ordStatus(ListedValues.ordStatus(report.ordStatusRaw()));
        message.set(new quickfix.field.OrdStatus(status));
        if (execType != ExecType.REJECTED)
        {
            orders.statusReported(id, status);
        }
        message.set(new quickfix.field.Side(report.sideRaw() == Side.SELL.value() ? quickfix.field.Side.SELL :
            quickfix.field.Side.BUY));
        message.set(new Symbol(Integer.toString(report.instrumentId())));
        message.set(new Account(Long.toString(report.account())));
        message.set(new LeavesQty(report.leavesQuantity()));
        message.set(new CumQty(report.cumulativeQuantity()));
        final boolean done = report.leavesQuantity() == 0 || execType == ExecType.CANCELED ||
            execType == ExecType.REJECTED;
        message.set(new AvgPx(orders.averagePrice(report.exchangeOrderId(), report.lastPrice(), report.lastQuantity(),
            done)));
        if (report.lastQuantity() > 0)
        {
            message.set(new LastPx(report.lastPrice()));
            message.set(new LastQty(report.lastQuantity()));
        }
        if (report.ordTypeRaw() != OrdType.MARKET.value())
        {
            message.set(new Price(report.price())); // a market order has none: 0 would read as a limit at 0
        }
        message.set(new OrderQty(report.orderQuantity()));
        // Raw values: a reject names the request's terms as sent, which decode to no enum constant
        // when the request's were unknown.
        message.set(new quickfix.field.OrdType(report.ordTypeRaw() == OrdType.MARKET.value() ?
            quickfix.field.OrdType.MARKET : quickfix.field.OrdType.LIMIT));
        message.set(new quickfix.field.TimeInForce(timeInForce(report.timeInForceRaw())));
        message.set(new TransactTime(time(report.transactTime())));
        String clOrdId = orders.clOrdId(id);
        if (execType == ExecType.CANCELED)
        {
            final long cancel = orders.takeCancel(id);
            if (cancel != 0 && reason == RejectReason.CLIENT_CANCEL)
            {
                message.set(new OrigClOrdID(clOrdId));
                clOrdId = orders.clOrdId(cancel);
                orders.answered(cancel);
            }
        }
        else if (execType == ExecType.REPLACED && null != orders.originalClOrdId(id))
        {
            message.set(new OrigClOrdID(orders.originalClOrdId(id)));
        }
        if (null != clOrdId)
        {
            message.set(new ClOrdID(clOrdId));
        }
        if (execType == ExecType.REJECTED)
        {
            message.set(new OrdRejReason(FixRejectCodes.ordRejReason(reason)));
        }
        if (reason != RejectReason.NONE && reason != RejectReason.NULL_VAL)
        {
            message.set(new Text(FixRejectCodes.text(reason)));
        }
        if (execType == ExecType.REJECTED && kind == FixOrders.Kind.ORDER)
        {
            orders.forget(id);
        }
        return message;
    }

    /**
     * An ExecutionReport rejecting a NewOrderSingle the door itself refused.
     *
     * @param execId the door's own ExecID for it (apart from the engine's numbers).
     */
    public static Message orderRefused(final Message order, final String execId, final int ordRejReason,
        final String text) throws quickfix.FieldNotFound
    {
        final ExecutionReport message = new ExecutionReport();
        message.set(new OrderID("NONE"));
        message.set(new ExecID(execId));
        message.set(new quickfix.field.ExecType(quickfix.field.ExecType.REJECTED));
        message.set(new quickfix.field.OrdStatus(quickfix.field.OrdStatus.REJECTED));
        message.set(new ClOrdID(order.getString(ClOrdID.FIELD)));
        message.set(new quickfix.field.Side(order.getChar(quickfix.field.Side.FIELD)));
        message.set(new Symbol(order.isSetField(Symbol.FIELD) ? order.getString(Symbol.FIELD) : "0"));
        message.set(new LeavesQty(0));
        message.set(new CumQty(0));
        message.set(new AvgPx(0));
        message.set(new OrdRejReason(ordRejReason));
        message.set(new Text(text));
        return message;
    }

    /**
     * A BusinessMessageReject (j) of a request the door cannot take for a reason of the application
     * (BusinessRejectReason 5, conditionally required field missing).
     */
    public static Message businessReject(final Message request, final String text)
    {
        final BusinessMessageReject message = new BusinessMessageReject();
        try
        {
            message.set(new RefMsgType(request.getHeader().getString(MsgType.FIELD)));
            message.set(new RefSeqNum(request.getHeader().getInt(MsgSeqNum.FIELD)));
        }
        catch (final quickfix.FieldNotFound ex)
        {
            message.set(new RefMsgType("?"));
        }
        message.set(new BusinessRejectReason(BusinessRejectReason.CONDITIONALLY_REQUIRED_FIELD_MISSING));
        message.set(new Text(text));
        return message;
    }

    /**
     * An OrderCancelReject (9).
     *
     * @param clOrdId     the cancel's or replace's ClOrdID.
     * @param origClOrdId the order it named (null: the door knows none by that name).
     * @param replace     whether it answers a replace (CxlRejResponseTo 2) rather than a cancel (1).
     */
    public static Message cancelReject(final String clOrdId, final String origClOrdId, final boolean replace,
        final int cxlRejReason, final String text, final char ordStatus)
    {
        final OrderCancelReject message = new OrderCancelReject(new OrderID("NONE"), new ClOrdID(clOrdId),
            new OrigClOrdID(null == origClOrdId ? "NONE" : origClOrdId), new quickfix.field.OrdStatus(ordStatus),
            new CxlRejResponseTo(replace ? CxlRejResponseTo.ORDER_CANCEL_REPLACE_REQUEST :
                CxlRejResponseTo.ORDER_CANCEL_REQUEST));
        message.set(new CxlRejReason(cxlRejReason));
        message.set(new Text(text));
        return message;
    }

    /**
     * @param reason the exchange's reason for refusing a cancel or replace.
     * @param status the named order's OrdStatus (39).
     * @return CxlRejReason (102): 0 (too late to cancel) for an order the exchange no longer knows
     *         because it filled or was canceled, else the reason's own code.
     */
    static int cxlRejReason(final RejectReason reason, final char status)
    {
        return reason == RejectReason.UNKNOWN_ORDER && (status == quickfix.field.OrdStatus.FILLED ||
            status == quickfix.field.OrdStatus.CANCELED) ? CxlRejReason.TOO_LATE_TO_CANCEL :
            FixRejectCodes.cxlRejReason(reason);
    }

    /**
     * An OrderMassCancelReport (r): accepted (MassCancelResponse as the request type) when
     * {@code rejectReason} is negative, else refused (MassCancelResponse 0) with the reason.
     */
    public static Message massCancelReport(final String clOrdId, final int instrumentId, final int rejectReason,
        final String text)
    {
        return massCancelReport(clOrdId, instrumentId == 0 ? FixInbound.MASS_CANCEL_ALL :
            FixInbound.MASS_CANCEL_SECURITY, instrumentId > 0 ? Integer.toString(instrumentId) : null, rejectReason,
            text);
    }

    /**
     * An OrderMassCancelReport (r) that answers a request with its own MassCancelRequestType (530)
     * and Symbol (55), as sent: the door's refusal of a request whose type or Symbol it does not
     * take names what the member asked for, not what the door would have done.
     *
     * @param symbol the request's Symbol, or null where it had none.
     */
    public static Message massCancelReport(final String clOrdId, final char requestType, final String symbol,
        final int rejectReason, final String text)
    {
        final boolean refused = rejectReason >= 0;
        final OrderMassCancelReport message = new OrderMassCancelReport(new OrderID("NONE"),
            new MassCancelRequestType(requestType),
            new MassCancelResponse(refused ? MassCancelResponse.CANCEL_REQUEST_REJECTED_SEE_MASSCANCELREJECTREASON : requestType));
        message.set(new ClOrdID(null == clOrdId ? "NONE" : clOrdId));
        if (null != symbol)
        {
            message.set(new Symbol(symbol));
        }
        if (refused)
        {
            message.set(new MassCancelRejectReason(rejectReason));
            message.set(new Text(text));
        }
        return message;
    }

    private static char execType(final ExecType execType, final long lastQuantity)
    {
        return switch (execType)
        {
            case NEW -> quickfix.field.ExecType.NEW;
            case PARTIAL_FILL, FILL -> quickfix.field.ExecType.TRADE;
            case CANCELED -> quickfix.field.ExecType.CANCELED;
            case REPLACED -> quickfix.field.ExecType.REPLACED;
            case REJECTED -> quickfix.field.ExecType.REJECTED;
            case RESTATED -> quickfix.field.ExecType.RESTATED;
            case NULL_VAL -> lastQuantity > 0 ? quickfix.field.ExecType.TRADE : quickfix.field.ExecType.ORDER_STATUS;
        };
    }

    private static char ordStatus(final OrdStatus status)
    {
        return switch (status)
        {
            case NEW, REPLACED, NULL_VAL -> OrdStatusCodes.NEW;
            case PARTIALLY_FILLED -> quickfix.field.OrdStatus.PARTIALLY_FILLED;
            case FILLED -> quickfix.field.OrdStatus.FILLED;
            case CANCELED -> quickfix.field.OrdStatus.CANCELED;
            case REJECTED -> OrdStatusCodes.REJECTED;
        };
    }

    private static char timeInForce(final short timeInForce)
    {
        if (timeInForce == TimeInForce.GTC.value())
        {
            return quickfix.field.TimeInForce.GOOD_TILL_CANCEL;
        }
        if (timeInForce == TimeInForce.IOC.value())
        {
            return quickfix.field.TimeInForce.IMMEDIATE_OR_CANCEL;
        }
        if (timeInForce == TimeInForce.FOK.value())
        {
            return quickfix.field.TimeInForce.FILL_OR_KILL;
        }
        return quickfix.field.TimeInForce.DAY;
    }

    static LocalDateTime time(final long epochNs)
    {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(epochNs, 1_000_000_000L),
            (int)Math.floorMod(epochNs, 1_000_000_000L), ZoneOffset.UTC);
    }

    /** OrdStatus (39) codes used here. */
    static final class OrdStatusCodes
    {
        static final char NEW = quickfix.field.OrdStatus.NEW;
        static final char REJECTED = quickfix.field.OrdStatus.REJECTED;

        private OrdStatusCodes()
        {
        }
    }
}
