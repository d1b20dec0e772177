package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.MutableDirectBuffer;
import quickfix.FieldMap;
import quickfix.FieldNotFound;
import quickfix.Message;

/**
 * FIX 4.4 requests to the exchange's SBE requests, field by field: NewOrderSingle (D),
 * OrderCancelRequest (F), OrderCancelReplaceRequest (G) and OrderMassCancelRequest (q) become
 * NewOrder, CancelOrder, ReplaceOrder and MassCancel, as the SBE door's clients send them. What FIX
 * can say but the exchange cannot take (a fractional price or quantity, an unknown symbol, an
 * unsupported OrdType, TimeInForce or ExecInst) is refused here with the FIX reason and a text,
 * before anything reaches the gateway.
 *
 * <p>Conventions of this door (documented for members): Symbol (55) is the instrument's number;
 * Price (44), OrderQty (38) and MaxFloor (111) are whole numbers in the instrument's price units
 * and lots; Account (1), where given, is the session's account number; ExecInst (18) '6'
 * (participate, do not initiate) is post-only; tag 7928 is self-trade prevention: 'N' cancels the
 * newest (aggressing) order, 'O' the oldest (resting), 'B' both, 'D' decrements both and cancels
 * the smaller. A replace (G) changes Price and OrderQty only, as the exchange's ReplaceOrder does:
 * a TimeInForce, MaxFloor, ExecInst or 7928 it gives must be the order's (one it leaves out keeps
 * the order's), else it is refused rather than taken with terms the member did not ask for.
 *
 * <p>Threading: one thread (the gateway's). Pure but for the encoders it reuses.
 */
public final class FixInbound
{
    /** A result: refused here; {@link #rejectText()} and {@link #rejectCode()} say why. */
    public static final int REFUSED = -1;
    /** ExecInst (18) value for post-only: participate, do not initiate. */
    public static final char POST_ONLY = '6';
    /** The door's tag for self-trade prevention. */
    public static final int SELF_TRADE_PREVENTION_TAG = 7928;
    /** MassCancelRequestType (530): cancel orders for a security. */
    public static final char MASS_CANCEL_SECURITY = '1';
    /** MassCancelRequestType (530): cancel all orders. */
    public static final char MASS_CANCEL_ALL = '7';

    private static final long NOT_A_WHOLE_NUMBER = Long.MIN_VALUE;

    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancel = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replace = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancel = new MassCancelEncoder();
    private String rejectText;
    private int rejectCode;
    private long clientOrderId;

    /** @return why the last request was {@link #REFUSED}. */
    public String rejectText()
    {
        return rejectText;
    }

    /**
     * @return the FIX code of the last refusal: an OrdRejReason (103) for an order, a CxlRejReason
     *         (102) for a cancel or replace, a MassCancelRejectReason (532) for a mass cancel.
     */
    public int rejectCode()
    {
        return rejectCode;
    }

    /** @return the client order id the last request was given (0 when refused before it got one). */
    public long clientOrderId()
    {
        return clientOrderId;
    }

    /**
     * @param message       a NewOrderSingle.
     * @param orders        the session's orders.
     * @param account       the session's account.
     * @param sendingTimeNs the message's SendingTime (52), epoch ns.
     * @param buffer        where the NewOrder goes, from 0.
     * @return its length, or {@link #REFUSED}.
     */
    public int newOrder(final Message message, final FixOrders orders, final long account, final long sendingTimeNs,
        final MutableDirectBuffer buffer) throws FieldNotFound
    {
        clientOrderId = 0;
        final String clOrdId = message.getString(11);
        final int instrument = instrument(message);
        final Side side = side(message);
        final char ordTypeCode = message.getChar(40);
        final OrdType ordType = ordTypeCode == '1' ? OrdType.MARKET : ordTypeCode == '2' ? OrdType.LIMIT : null;
        final TimeInForce timeInForce = timeInForce(message, ordType);
        // OrderQty is optional in FIX 4.4's dictionary (its component may carry CashOrderQty instead):
        // an order without it is rejected as an order (an ExecutionReport), not as a message.
        final long quantity = message.isSetField(38) ? whole(message, 38) : NOT_A_WHOLE_NUMBER;
        final long price = ordType == OrdType.LIMIT ? (message.isSetField(44) ? whole(message, 44) : NOT_A_WHOLE_NUMBER) : 0;
        final long display = message.isSetField(111) ? whole(message, 111) : 0;
        final String execInst = message.isSetField(18) ? message.getString(18) : "";
        final SelfTradePrevention stp = selfTradePrevention(message);
        if (instrument <= 0)
        {
            return refuse(FixRejectCodes.UNKNOWN_SYMBOL, "Symbol (55) must be an instrument number");
        }
        if (null == side || null == ordType || null == timeInForce || null == stp)
        {
            return refuse(FixRejectCodes.UNSUPPORTED_CHARACTERISTIC, null == side ? "Side (54) must be 1 or 2" :
                null == ordType ? "OrdType (40) must be 1 (market) or 2 (limit)" : null == timeInForce ?
                "TimeInForce (59) must be 0, 1, 3 or 4" : "tag 7928 must be N, O, B or D");
        }
        if (quantity == NOT_A_WHOLE_NUMBER || quantity <= 0 || display == NOT_A_WHOLE_NUMBER || display < 0)
        {
            return refuse(FixRejectCodes.INCORRECT_QUANTITY, "OrderQty (38) and MaxFloor (111) must be whole lots");
        }
        if (price == NOT_A_WHOLE_NUMBER)
        {
            return refuse(FixRejectCodes.OTHER, "a limit order's Price (44) must be a whole number of price units");
        }
        if (!execInst.isEmpty() && !execInst.equals(String.valueOf(POST_ONLY)))
        {
            return refuse(FixRejectCodes.UNSUPPORTED_CHARACTERISTIC, "ExecInst (18) supports only 6 (post-only)");
        }
        final long accountNumber = account(message, account);
        if (accountNumber == NOT_A_WHOLE_NUMBER)
        {
            return refuse(FixRejectCodes.UNKNOWN_ACCOUNT, "Account (1) must be the session's account number");
        }
        clientOrderId = orders.idFor(clOrdId, FixOrders.Kind.ORDER, 0,
            new FixOrders.Terms(timeInForce, !execInst.isEmpty(),
                stp == SelfTradePrevention.NULL_VAL ? SelfTradePrevention.CANCEL_RESTING : stp, display)); // the engine's default
        if (clientOrderId < 0)
        {
            return refuseId(orders, FixRejectCodes.DUPLICATE_ORDER, FixRejectCodes.OTHER);
        }
        newOrder.wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId)
            .account(accountNumber)
            .instrumentId(instrument)
            .side(side)
            .ordType(ordType)
            .timeInForce(timeInForce)
            .price(price)
            .quantity(quantity)
            .sendingTime(sendingTimeNs)
            .postOnly(execInst.isEmpty() ? BooleanType.FALSE : BooleanType.TRUE)
            .displayQuantity(display)
            .selfTradePrevention(stp)
            .receiveTime(sendingTimeNs);
        return MessageHeaderEncoder.ENCODED_LENGTH + newOrder.encodedLength();
    }

    /**
     * @param message an OrderCancelRequest.
     * @return the CancelOrder's length, or {@link #REFUSED} (a CxlRejReason).
     */
    public int cancel(final Message message, final FixOrders orders, final long account, final long sendingTimeNs,
        final MutableDirectBuffer buffer) throws FieldNotFound
    {
        if (!namesItsOrder(message, orders, account))
        {
            return REFUSED;
        }
        clientOrderId = orders.idFor(message.getString(11), FixOrders.Kind.CANCEL, named.original);
        if (clientOrderId < 0)
        {
            return refuseId(orders, FixRejectCodes.CXL_DUPLICATE_CLORDID, FixRejectCodes.OTHER);
        }
        cancel.wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId)
            .origClientOrderId(named.original)
            .account(named.account)
            .instrumentId(named.instrument)
            .side(named.side)
            .sendingTime(sendingTimeNs)
            .receiveTime(sendingTimeNs);
        return MessageHeaderEncoder.ENCODED_LENGTH + cancel.encodedLength();
    }

    /**
     * @param message an OrderCancelReplaceRequest: a limit order's new Price (44) and OrderQty (38).
     * @return the ReplaceOrder's length, or {@link #REFUSED} (a CxlRejReason).
     */
    public int replace(final Message message, final FixOrders orders, final long account, final long sendingTimeNs,
        final MutableDirectBuffer buffer) throws FieldNotFound
    {
        // OrderQty is optional in FIX 4.4's dictionary; a replace without it is refused as a replace
        // (an OrderCancelReject), which is what the member's pending replace waits on.
        final long quantity = message.isSetField(38) ? whole(message, 38) : NOT_A_WHOLE_NUMBER;
        final long price = message.isSetField(44) ? whole(message, 44) : NOT_A_WHOLE_NUMBER;
        if (!namesItsOrder(message, orders, account))
        {
            return REFUSED;
        }
        if (message.getChar(40) != '2' || price == NOT_A_WHOLE_NUMBER || quantity == NOT_A_WHOLE_NUMBER || quantity <= 0)
        {
            return refuse(FixRejectCodes.CXL_EXCHANGE_OPTION,
                "a replace is of a limit order (OrdType 2) to a whole Price (44) and OrderQty (38)");
        }
        final String changed = changedTerm(message, orders.terms(named.original));
        if (null != changed)
        {
            return refuse(FixRejectCodes.CXL_EXCHANGE_OPTION, "a replace changes Price (44) and OrderQty (38) only: " +
                changed + " must be the order's, or absent");
        }
        clientOrderId = orders.idFor(message.getString(11), FixOrders.Kind.REPLACE, named.original);
        if (clientOrderId < 0)
        {
            return refuseId(orders, FixRejectCodes.CXL_DUPLICATE_CLORDID, FixRejectCodes.OTHER);
        }
        replace.wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId)
            .origClientOrderId(named.original)
            .account(named.account)
            .instrumentId(named.instrument)
            .side(named.side)
            .price(price)
            .quantity(quantity)
            .sendingTime(sendingTimeNs)
            .receiveTime(sendingTimeNs);
        return MessageHeaderEncoder.ENCODED_LENGTH + replace.encodedLength();
    }

    /**
     * @param message an OrderMassCancelRequest: MassCancelRequestType (530) 1 (one Symbol) or 7 (all).
     * @return the MassCancel's length, or {@link #REFUSED} (a MassCancelRejectReason).
     */
    public int massCancel(final Message message, final FixOrders orders, final long account,
        final long sendingTimeNs, final MutableDirectBuffer buffer) throws FieldNotFound
    {
        clientOrderId = 0;
        final String clOrdId = message.getString(11);
        final char type = message.getChar(530);
        final int instrument;
        if (type == MASS_CANCEL_ALL)
        {
            instrument = 0;
        }
        else if (type == MASS_CANCEL_SECURITY)
        {
            instrument = message.isSetField(55) ? instrument(message) : -1;
            if (instrument <= 0)
            {
                return refuse(FixRejectCodes.MASS_UNKNOWN_SECURITY, "Symbol (55) must be an instrument number");
            }
        }
        else
        {
            return refuse(0, "MassCancelRequestType (530) supports 1 (security) and 7 (all orders)");
        }
        clientOrderId = orders.idFor(clOrdId, FixOrders.Kind.MASS_CANCEL, 0);
        if (clientOrderId < 0)
        {
            return refuseId(orders, FixRejectCodes.OTHER, FixRejectCodes.OTHER);
        }
        massCancel.wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId)
            .account(account)
            .instrumentId(instrument)
            .sendingTime(sendingTimeNs)
            .receiveTime(sendingTimeNs);
        return MessageHeaderEncoder.ENCODED_LENGTH + massCancel.encodedLength();
    }

    /**
     * @param terms the named order's terms, or null when the door does not know them.
     * @return the first of TimeInForce (59), MaxFloor (111), ExecInst (18) and tag 7928 that the
     *         replace gives other than the order had, or null when none does (an absent one keeps the order's).
     */
    private static String changedTerm(final Message message, final FixOrders.Terms terms) throws FieldNotFound
    {
        if (null == terms)
        {
            return null;
        }
        if (message.isSetField(59) && timeInForce(message, OrdType.LIMIT) != terms.timeInForce())
        {
            return "TimeInForce (59)";
        }
        if (message.isSetField(111) && whole(message, 111) != terms.displayQuantity())
        {
            return "MaxFloor (111)";
        }
        if (message.isSetField(18) && !message.getString(18).equals(terms.postOnly() ? String.valueOf(POST_ONLY) : ""))
        {
            return "ExecInst (18)";
        }
        if (message.isSetField(SELF_TRADE_PREVENTION_TAG) &&
            selfTradePrevention(message) != terms.selfTradePrevention())
        {
            return "tag " + SELF_TRADE_PREVENTION_TAG;
        }
        return null;
    }

    /** What a cancel or replace names: the order, and its instrument, side and account. */
    private static final class Named
    {
        long original;
        int instrument;
        Side side;
        long account;
    }

    private final Named named = new Named();

    /**
     * Reads what a cancel or replace names into {@link #named}: an order this session sent, its
     * instrument, side and account; refuses (a CxlRejReason) what does not.
     */
    private boolean namesItsOrder(final Message message, final FixOrders orders, final long sessionAccount)
        throws FieldNotFound
    {
        clientOrderId = 0;
        named.original = orders.existingId(message.getString(41));
        named.instrument = instrument(message);
        named.side = side(message);
        named.account = account(message, sessionAccount);
        if (named.original == 0)
        {
            // ClOrdIDs are the door's for its life; a restarted gateway cancels every session's
            // orders from before, so a name from then has nothing to reach.
            refuse(FixRejectCodes.CXL_UNKNOWN_ORDER, "OrigClOrdID (41) names no order of this session since the " +
                "door started (orders from before a restart were canceled at it)");
            return false;
        }
        if (named.instrument <= 0 || null == named.side || named.account == NOT_A_WHOLE_NUMBER)
        {
            refuse(FixRejectCodes.CXL_EXCHANGE_OPTION, "Symbol (55), Side (54) and Account (1) must be the order's");
            return false;
        }
        return true;
    }

    /** Refuses a request whose ClOrdID the session's orders did not number ({@link FixOrders#idFor}). */
    private int refuseId(final FixOrders orders, final int duplicateCode, final int otherCode)
    {
        final long refusal = clientOrderId;
        clientOrderId = 0;
        if (refusal == FixOrders.TOO_LONG)
        {
            return refuse(otherCode, "ClOrdID (11) is longer than " + FixOrders.MAX_CLORDID_LENGTH + " characters");
        }
        return refusal == FixOrders.DUPLICATE ? refuse(duplicateCode, "ClOrdID (11) was used before in this session") :
            refuse(otherCode, "this session has used its " + orders.capacity() + " ClOrdIDs in this door's life");
    }

    private int refuse(final int code, final String text)
    {
        rejectCode = code;
        rejectText = text;
        return REFUSED;
    }

    private static int instrument(final FieldMap message) throws FieldNotFound
    {
        final long number = whole(message, 55);
        return number > 0 && number <= Integer.MAX_VALUE ? (int)number : -1;
    }

    private static Side side(final FieldMap message) throws FieldNotFound
    {
        final char side = message.getChar(54);
        return side == '1' ? Side.BUY : side == '2' ? Side.SELL : null;
    }

    /**
     * @return the order's TimeInForce (59); absent, Day for a limit order and IOC for a market
     *         order, which cannot rest (the engine refuses a market order for the day).
     */
    private static TimeInForce timeInForce(final FieldMap message, final OrdType ordType) throws FieldNotFound
    {
        if (!message.isSetField(59))
        {
            return ordType == OrdType.MARKET ? TimeInForce.IOC : TimeInForce.DAY;
        }
        return switch (message.getChar(59))
        {
            case '0' -> TimeInForce.DAY;
            case '1' -> TimeInForce.GTC;
            case '3' -> TimeInForce.IOC;
            case '4' -> TimeInForce.FOK;
            default -> null;
        };
    }

    private static SelfTradePrevention selfTradePrevention(final FieldMap message) throws FieldNotFound
    {
        if (!message.isSetField(SELF_TRADE_PREVENTION_TAG))
        {
            return SelfTradePrevention.NULL_VAL;
        }
        return switch (message.getString(SELF_TRADE_PREVENTION_TAG))
        {
            case "N" -> SelfTradePrevention.CANCEL_AGGRESSING;
            case "O" -> SelfTradePrevention.CANCEL_RESTING;
            case "B" -> SelfTradePrevention.CANCEL_BOTH;
            case "D" -> SelfTradePrevention.DECREMENT_AND_CANCEL;
            default -> null;
        };
    }

    private static long account(final FieldMap message, final long sessionAccount) throws FieldNotFound
    {
        return message.isSetField(1) ? whole(message, 1) : sessionAccount;
    }

    /**
     * A field's value as a whole number: digits, an optional sign, and an optional fraction of zeros
     * ("100", "-5", "100.00"); anything else, or one out of range, is {@link #NOT_A_WHOLE_NUMBER}.
     */
    static long whole(final FieldMap message, final int tag) throws FieldNotFound
    {
        return parseWhole(message.getString(tag));
    }

    static long parseWhole(final String text)
    {
        final int point = text.indexOf('.');
        final String integral = point < 0 ? text : text.substring(0, point);
        for (int i = point + 1; point >= 0 && i < text.length(); i++)
        {
            if (text.charAt(i) != '0')
            {
                return NOT_A_WHOLE_NUMBER;
            }
        }
        final int start = integral.startsWith("-") ? 1 : 0;
        if (integral.length() == start || integral.length() - start > 18)
        {
            return NOT_A_WHOLE_NUMBER;
        }
        for (int i = start; i < integral.length(); i++)
        {
            if (integral.charAt(i) < '0' || integral.charAt(i) > '9')
            {
                return NOT_A_WHOLE_NUMBER;
            }
        }
        return Long.parseLong(integral);
    }
}
