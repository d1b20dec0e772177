package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.RejectReason;

/**
 * What each of the exchange's reject reasons (the gateway's and the engine's) says in FIX 4.4: an
 * OrdRejReason (103) for an order, a CxlRejReason (102) for a cancel or replace, a
 * MassCancelRejectReason (532) for a mass cancel, and the Text (58) every one of them carries,
 * which names the exchange's reason exactly where FIX 4.4 has no code of its own for it (99,
 * Other). Pure.
 */
public final class FixRejectCodes
{
    /** OrdRejReason 0: Broker / Exchange option. */
    public static final int EXCHANGE_OPTION = 0;
    /** OrdRejReason 1: Unknown symbol. */
    public static final int UNKNOWN_SYMBOL = 1;
    /** OrdRejReason 2: Exchange closed. */
    public static final int EXCHANGE_CLOSED = 2;
    /** OrdRejReason 3: Order exceeds limit. */
    public static final int EXCEEDS_LIMIT = 3;
    /** OrdRejReason 5: Unknown order. */
    public static final int UNKNOWN_ORDER = 5;
    /** OrdRejReason 6: Duplicate order. */
    public static final int DUPLICATE_ORDER = 6;
    /** OrdRejReason 11: Unsupported order characteristic. */
    public static final int UNSUPPORTED_CHARACTERISTIC = 11;
    /** OrdRejReason 13: Incorrect quantity. */
    public static final int INCORRECT_QUANTITY = 13;
    /** OrdRejReason 15: Unknown account(s). */
    public static final int UNKNOWN_ACCOUNT = 15;
    /** OrdRejReason, CxlRejReason and MassCancelRejectReason 99: Other (the Text says which). */
    public static final int OTHER = 99;

    /** CxlRejReason 1: Unknown order. */
    public static final int CXL_UNKNOWN_ORDER = 1;
    /** CxlRejReason 2: Broker / Exchange option. */
    public static final int CXL_EXCHANGE_OPTION = 2;
    /** CxlRejReason 6: Duplicate ClOrdID received. */
    public static final int CXL_DUPLICATE_CLORDID = 6;

    /** MassCancelRejectReason 1: Invalid or unknown security. */
    public static final int MASS_UNKNOWN_SECURITY = 1;

    private FixRejectCodes()
    {
    }

    /**
     * @param reason a reject reason of the exchange; {@link RejectReason#NULL_VAL} (also a reason the
     *               schema does not list) is Other.
     * @return its OrdRejReason (103).
     */
    public static int ordRejReason(final RejectReason reason)
    {
        return switch (reason)
        {
            case UNKNOWN_INSTRUMENT -> UNKNOWN_SYMBOL;
            case EXCHANGE_CLOSED -> EXCHANGE_CLOSED;
            case INVALID_QUANTITY, LOT_SIZE -> INCORRECT_QUANTITY;
            case UNKNOWN_ORDER -> UNKNOWN_ORDER;
            case DUPLICATE_CLIENT_ORDER_ID -> DUPLICATE_ORDER;
            case INVALID_ORDER_TYPE -> UNSUPPORTED_CHARACTERISTIC;
            case MAX_ORDER_QUANTITY, MAX_NOTIONAL, RISK_PRICE_BAND, MAX_OPEN_ORDERS -> EXCEEDS_LIMIT;
            case ACCOUNT_NOT_PERMITTED -> UNKNOWN_ACCOUNT;
            case FOK_NOT_FILLABLE, NO_LIQUIDITY, POST_ONLY_WOULD_TAKE, SELF_TRADE_PREVENTION, IOC_REMAINDER,
                CAPACITY_EXCEEDED, CLIENT_CANCEL, MASS_CANCEL, JOURNAL_REFUSED, OTHER_ENGINE_LIFE -> EXCHANGE_OPTION;
            case NONE, INVALID_PRICE, NOT_LOGGED_ON, THROTTLED, MALFORMED_MESSAGE, TICK_SIZE, PRICE_BAND, NULL_VAL ->
                OTHER;
        };
    }

    /**
     * @param reason why a cancel or replace was refused.
     * @return its CxlRejReason (102).
     */
    public static int cxlRejReason(final RejectReason reason)
    {
        return switch (reason)
        {
            case UNKNOWN_ORDER -> CXL_UNKNOWN_ORDER;
            case DUPLICATE_CLIENT_ORDER_ID -> CXL_DUPLICATE_CLORDID;
            case UNKNOWN_INSTRUMENT, INVALID_PRICE, INVALID_QUANTITY, TICK_SIZE, LOT_SIZE, PRICE_BAND,
                MAX_ORDER_QUANTITY, MAX_NOTIONAL, RISK_PRICE_BAND, MAX_OPEN_ORDERS, ACCOUNT_NOT_PERMITTED,
                POST_ONLY_WOULD_TAKE, INVALID_ORDER_TYPE, EXCHANGE_CLOSED, CAPACITY_EXCEEDED -> CXL_EXCHANGE_OPTION;
            default -> OTHER;
        };
    }

    /**
     * @param reason why a mass cancel was refused.
     * @return its MassCancelRejectReason (532).
     */
    public static int massCancelRejectReason(final RejectReason reason)
    {
        return reason == RejectReason.UNKNOWN_INSTRUMENT ? MASS_UNKNOWN_SECURITY : OTHER;
    }

    /**
     * @param reason a reject or cancel reason of the exchange.
     * @return the Text (58) for it: the reason in words, which names it where the code is 99.
     */
    public static String text(final RejectReason reason)
    {
        return switch (reason)
        {
            case NONE -> "no reason";
            case UNKNOWN_INSTRUMENT -> "unknown instrument";
            case INVALID_PRICE -> "invalid price";
            case INVALID_QUANTITY -> "invalid quantity";
            case UNKNOWN_ORDER -> "unknown order";
            case DUPLICATE_CLIENT_ORDER_ID -> "duplicate ClOrdID";
            case FOK_NOT_FILLABLE -> "fill-or-kill order could not be filled in full";
            case NO_LIQUIDITY -> "market order found no liquidity";
            case NOT_LOGGED_ON -> "not logged on";
            case THROTTLED -> "over the session's message rate";
            case MALFORMED_MESSAGE -> "malformed message";
            case EXCHANGE_CLOSED -> "exchange closed";
            case TICK_SIZE -> "price is not a multiple of the tick size";
            case LOT_SIZE -> "quantity is not a multiple of the lot size";
            case PRICE_BAND -> "price outside the instrument's band";
            case POST_ONLY_WOULD_TAKE -> "post-only order would take liquidity";
            case SELF_TRADE_PREVENTION -> "self-trade prevention";
            case IOC_REMAINDER -> "immediate-or-cancel remainder canceled";
            case CLIENT_CANCEL -> "canceled on request";
            case MASS_CANCEL -> "canceled by mass cancel or cancel-on-disconnect";
            case CAPACITY_EXCEEDED -> "the book has no room for the order";
            case INVALID_ORDER_TYPE -> "order type not valid with these terms";
            case MAX_ORDER_QUANTITY -> "quantity above the session's maximum";
            case MAX_NOTIONAL -> "notional above the session's maximum";
            case RISK_PRICE_BAND -> "price outside the risk band around the last trade";
            case MAX_OPEN_ORDERS -> "the session has its maximum of open orders";
            case ACCOUNT_NOT_PERMITTED -> "account not permitted for this session";
            case JOURNAL_REFUSED -> "the exchange could not record the request: not accepted";
            case OTHER_ENGINE_LIFE -> "the matching engine was restarted on a new journal: not accepted";
            case NULL_VAL -> "unspecified";
        };
    }
}
