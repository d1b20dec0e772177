package io.ringwire.exchange.flow;

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

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A seeded, reproducible stream of trading requests around a drifting mid price per instrument, as
 * SBE messages: new LIMIT orders (DAY and GTC, some post-only, some icebergs), IOC and MARKET
 * orders that take liquidity, cancels and replaces of the flow's own live orders, and now and then
 * a mass cancel. The same seed gives the same bytes, so a run can be repeated, replayed or resumed
 * at any index (see {@link #skip}).
 *
 * <p>It keeps the client order ids it believes live (a bounded table per flow, forgotten oldest
 * first) to aim cancels and replaces at; some of those have traded away by then, which the engine
 * rejects as unknown, as it would a real client's late cancel.
 *
 * <p>Threading: one thread. {@link #next} allocates nothing.
 */
public final class OrderFlow
{
    /** Requests in percent: new LIMIT, IOC, MARKET, cancel, replace, mass cancel; the rest new LIMIT. */
    private static final int IOC_PERCENT = 8;
    private static final int MARKET_PERCENT = 2;
    private static final int CANCEL_PERCENT = 20;
    private static final int REPLACE_PERCENT = 25;
    private static final int MASS_CANCEL_PER_MILLE = 1;

    private final SplittableRandom random;
    private final int instruments;
    private final long firstAccount;
    private final int accounts;
    private final long basePrice;
    private final int spreadTicks;
    private final long[] mid;
    private final long[] liveClientIds;
    private final long[] liveAccounts;
    private final int[] liveInstruments;
    private final byte[] liveSides;
    private final long[] livePrices;
    private final long[] liveQuantities;
    private int liveCount;
    private int liveNext;
    private long nextClientOrderId;
    private long time;

    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancel = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replace = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancel = new MassCancelEncoder();

    /**
     * @param seed         the seed.
     * @param instruments  instruments 1 to N, each with tick 1, lot 1 and a band around
     *                     {@code basePrice} wide enough for the drift.
     * @param firstAccount the first of the accounts the flow trades for.
     * @param accounts     how many accounts.
     * @param basePrice    where every mid starts.
     * @param spreadTicks  how far from the mid new orders rest (their prices spread over that many ticks).
     * @param tracked      live orders the flow remembers to cancel and replace.
     */
    public OrderFlow(final long seed, final int instruments, final long firstAccount, final int accounts,
        final long basePrice, final int spreadTicks, final int tracked)
    {
        this.random = new SplittableRandom(seed);
        this.instruments = instruments;
        this.firstAccount = firstAccount;
        this.accounts = accounts;
        this.basePrice = basePrice;
        this.spreadTicks = spreadTicks;
        this.mid = new long[instruments + 1];
        Arrays.fill(mid, basePrice);
        liveClientIds = new long[tracked];
        liveAccounts = new long[tracked];
        liveInstruments = new int[tracked];
        liveSides = new byte[tracked];
        livePrices = new long[tracked];
        liveQuantities = new long[tracked];
        nextClientOrderId = seed & 0xFFFF_FFFFL;
        time = 1_700_000_000_000_000_000L;
    }

    /**
     * @return the lowest price the flow can send for its settings: a band's lower end.
     */
    public long minPrice()
    {
        return Math.max(1, basePrice - 4L * spreadTicks - 1000);
    }

    /**
     * @return the highest price the flow can send: a band's upper end.
     */
    public long maxPrice()
    {
        return basePrice + 4L * spreadTicks + 1000;
    }

    /**
     * Writes the next request.
     *
     * @param buffer where to write it.
     * @param offset from where.
     * @return its length.
     */
    public int next(final MutableDirectBuffer buffer, final int offset)
    {
        time += 1 + random.nextInt(2_000);
        final int instrument = 1 + random.nextInt(instruments);
        drift(instrument);
        final int dice = random.nextInt(1000);
        if (dice < MASS_CANCEL_PER_MILLE)
        {
            return massCancel(buffer, offset, instrument);
        }
        final int percent = dice / 10;
        if (liveCount > 0 && percent < CANCEL_PERCENT)
        {
            return cancel(buffer, offset);
        }
        if (liveCount > 0 && percent < CANCEL_PERCENT + REPLACE_PERCENT)
        {
            return replace(buffer, offset);
        }
        if (percent < CANCEL_PERCENT + REPLACE_PERCENT + IOC_PERCENT)
        {
            return order(buffer, offset, instrument, TimeInForce.IOC, OrdType.LIMIT, true);
        }
        if (percent < CANCEL_PERCENT + REPLACE_PERCENT + IOC_PERCENT + MARKET_PERCENT)
        {
            return order(buffer, offset, instrument, TimeInForce.IOC, OrdType.MARKET, true);
        }
        return order(buffer, offset, instrument, random.nextInt(4) == 0 ? TimeInForce.GTC : TimeInForce.DAY, OrdType.LIMIT,
            false);
    }

    /**
     * Moves past {@code count} requests without keeping them: a restarted driver resumes where the
     * journal ends.
     */
    public void skip(final long count, final MutableDirectBuffer scratch)
    {
        for (long i = 0; i < count; i++)
        {
            next(scratch, 0);
        }
    }

    private void drift(final int instrument)
    {
        final int step = random.nextInt(64);
        if (step == 0 && mid[instrument] > basePrice - 1000)
        {
            mid[instrument]--;
        }
        else if (step == 1 && mid[instrument] < basePrice + 1000)
        {
            mid[instrument]++;
        }
    }

    private int order(final MutableDirectBuffer buffer, final int offset, final int instrument, final TimeInForce timeInForce,
        final OrdType ordType, final boolean aggressive)
    {
        final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
        final int away = aggressive ? -random.nextInt(spreadTicks / 2 + 1) : 1 + random.nextInt(spreadTicks);
        final long price = side == Side.BUY ? mid[instrument] - away : mid[instrument] + away;
        final long quantity = 1 + random.nextInt(100);
        final boolean resting = timeInForce != TimeInForce.IOC;
        final boolean iceberg = resting && random.nextInt(20) == 0;
        final boolean postOnly = resting && !iceberg && random.nextInt(10) == 0;
        final long account = firstAccount + random.nextInt(accounts);
        final long clientOrderId = ++nextClientOrderId;
        newOrder.wrapAndApplyHeader(buffer, offset, header)
            .clientOrderId(clientOrderId)
            .account(account)
            .instrumentId(instrument)
            .side(side)
            .ordType(ordType)
            .timeInForce(timeInForce)
            .price(ordType == OrdType.MARKET ? 0 : price)
            .quantity(quantity)
            .sendingTime(time)
            .postOnly(postOnly ? BooleanType.TRUE : BooleanType.FALSE)
            .displayQuantity(iceberg ? 1 + quantity / 4 : 0)
            .selfTradePrevention(SelfTradePrevention.get((short)random.nextInt(4)))
            .receiveTime(time);
        if (resting)
        {
            remember(clientOrderId, account, instrument, side == Side.BUY ? (byte)1 : (byte)2, price, quantity);
        }
        return MessageHeaderEncoder.ENCODED_LENGTH + newOrder.encodedLength();
    }

    private int cancel(final MutableDirectBuffer buffer, final int offset)
    {
        final int pick = random.nextInt(liveCount);
        cancel.wrapAndApplyHeader(buffer, offset, header)
            .clientOrderId(++nextClientOrderId)
            .origClientOrderId(liveClientIds[pick])
            .account(liveAccounts[pick])
            .instrumentId(liveInstruments[pick])
            .side(liveSides[pick] == 1 ? Side.BUY : Side.SELL)
            .sendingTime(time)
            .receiveTime(time);
        forget(pick);
        return MessageHeaderEncoder.ENCODED_LENGTH + cancel.encodedLength();
    }

    private int replace(final MutableDirectBuffer buffer, final int offset)
    {
        final int pick = random.nextInt(liveCount);
        final int instrument = liveInstruments[pick];
        final boolean buy = liveSides[pick] == 1;
        final long price = random.nextBoolean() ? livePrices[pick] :
            (buy ? mid[instrument] - 1 - random.nextInt(spreadTicks) : mid[instrument] + 1 + random.nextInt(spreadTicks));
        final long quantity = Math.max(1, liveQuantities[pick] + random.nextInt(21) - 10);
        final long clientOrderId = ++nextClientOrderId;
        replace.wrapAndApplyHeader(buffer, offset, header)
            .clientOrderId(clientOrderId)
            .origClientOrderId(liveClientIds[pick])
            .account(liveAccounts[pick])
            .instrumentId(instrument)
            .side(buy ? Side.BUY : Side.SELL)
            .price(price)
            .quantity(quantity)
            .sendingTime(time)
            .receiveTime(time);
        liveClientIds[pick] = clientOrderId;
        livePrices[pick] = price;
        liveQuantities[pick] = quantity;
        return MessageHeaderEncoder.ENCODED_LENGTH + replace.encodedLength();
    }

    private int massCancel(final MutableDirectBuffer buffer, final int offset, final int instrument)
    {
        massCancel.wrapAndApplyHeader(buffer, offset, header)
            .clientOrderId(++nextClientOrderId)
            .account(firstAccount + random.nextInt(accounts))
            .instrumentId(random.nextBoolean() ? 0 : instrument)
            .sendingTime(time)
            .receiveTime(time);
        return MessageHeaderEncoder.ENCODED_LENGTH + massCancel.encodedLength();
    }

    private void remember(final long clientOrderId, final long account, final int instrument, final byte side,
        final long price, final long quantity)
    {
        final int at;
        if (liveCount < liveClientIds.length)
        {
            at = liveCount++;
        }
        else
        {
            at = liveNext;
            liveNext = (liveNext + 1) % liveClientIds.length;
        }
        liveClientIds[at] = clientOrderId;
        liveAccounts[at] = account;
        liveInstruments[at] = instrument;
        liveSides[at] = side;
        livePrices[at] = price;
        liveQuantities[at] = quantity;
    }

    private void forget(final int pick)
    {
        final int last = --liveCount;
        liveClientIds[pick] = liveClientIds[last];
        liveAccounts[pick] = liveAccounts[last];
        liveInstruments[pick] = liveInstruments[last];
        liveSides[pick] = liveSides[last];
        livePrices[pick] = livePrices[last];
        liveQuantities[pick] = liveQuantities[last];
        if (liveNext >= liveCount)
        {
            liveNext = 0;
        }
    }
}
