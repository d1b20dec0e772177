package io.ringwire.exchange.book;

/**
 * The book's vocabulary as plain numbers: sides, order types, times in force, self-trade prevention
 * modes and the reasons an order is rejected or canceled. The values are the wire schema's
 * (io.ringwire.codecs.trading), so the engine passes them through unchanged, but the book itself
 * knows nothing of SBE: it can be driven and tested with plain arguments.
 */
public final class OrderTerms
{
    public static final byte BUY = 1;
    public static final byte SELL = 2;

    public static final byte MARKET = 1;
    public static final byte LIMIT = 2;

    /** Rests until filled or canceled (the day's end is not modelled). */
    public static final byte DAY = 0;
    /** Good till canceled. */
    public static final byte GTC = 1;
    /** Immediate or cancel: fill what can be, cancel the rest. */
    public static final byte IOC = 3;
    /** Fill or kill: fill completely at once, or nothing trades. */
    public static final byte FOK = 4;

    /** Cancel the resting order, keep matching (the default). */
    public static final byte STP_CANCEL_RESTING = 0;
    /** Cancel the rest of the incoming order. */
    public static final byte STP_CANCEL_AGGRESSING = 1;
    /** Cancel the resting order and the rest of the incoming one. */
    public static final byte STP_CANCEL_BOTH = 2;
    /** Reduce both by the smaller quantity; the smaller is canceled. */
    public static final byte STP_DECREMENT_AND_CANCEL = 3;

    /** No reason: an execution report that is not a reject or a cancel. */
    public static final int NONE_REASON = 0;
    public static final int UNKNOWN_INSTRUMENT = 1;
    public static final int INVALID_PRICE = 2;
    public static final int INVALID_QUANTITY = 3;
    public static final int UNKNOWN_ORDER = 4;
    public static final int DUPLICATE_CLIENT_ORDER_ID = 5;
    public static final int FOK_NOT_FILLABLE = 6;
    public static final int NO_LIQUIDITY = 7;
    public static final int MALFORMED_MESSAGE = 10;
    public static final int TICK_SIZE = 12;
    public static final int LOT_SIZE = 13;
    public static final int PRICE_BAND = 14;
    public static final int POST_ONLY_WOULD_TAKE = 15;
    public static final int SELF_TRADE_PREVENTION = 16;
    public static final int IOC_REMAINDER = 17;
    public static final int CLIENT_CANCEL = 18;
    public static final int MASS_CANCEL = 19;
    public static final int CAPACITY_EXCEEDED = 20;
    public static final int INVALID_ORDER_TYPE = 21;
    /** The engine's journal refused the request: nothing applied, and the reject carries no engine sequence. */
    public static final int JOURNAL_REFUSED = 27;
    /** The request named another engine life: nothing applied, and the reject carries no engine sequence. */
    public static final int OTHER_ENGINE_LIFE = 28;

    /** Highest reason value, for arrays of counters by reason. */
    public static final int MAX_REASON = 31;

    private OrderTerms()
    {
    }

    /**
     * @param side {@link #BUY} or {@link #SELL}.
     * @return the other side.
     */
    public static byte opposite(final byte side)
    {
        return side == BUY ? SELL : BUY;
    }
}
