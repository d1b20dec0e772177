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
 * first) to aim cancels and replaces at. On its own it cannot know which of them have traded away
 * since; a client that reads its execution reports tells it ({@link #ended}), so that only an order
 * that ends while the cancel or replace is on its way is unknown to the engine, as a real client's
 * late cancel is. Without those calls the same seed gives the same bytes.
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
    /** By client order id (its low bits): 1 + its place in the live table, or 0. */
    private final int[] livePlaces;
    private final int livePlaceMask;
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
        // Ids are consecutive and a tracked order is forgotten within a few tracked-table turns, so
        // a table many times the tracked count keeps two live orders from sharing a place.
        livePlaces = new int[Integer.highestOneBit(Math.max(1, tracked)) << 4];
        livePlaceMask = livePlaces.length - 1;
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
            .receiveTime(time)
            .engineLife(0); // a flow's requests name no engine life: any engine takes them
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
            .receiveTime(time)
            .engineLife(0);
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
            .receiveTime(time)
            .engineLife(0);
        unindex(liveClientIds[pick], pick);
        liveClientIds[pick] = clientOrderId;
        livePrices[pick] = price;
        liveQuantities[pick] = quantity;
        index(clientOrderId, pick);
        return MessageHeaderEncoder.ENCODED_LENGTH + replace.encodedLength();
    }

    private int massCancel(final MutableDirectBuffer buffer, final int offset, final int instrument)
    {
        final long account = firstAccount + random.nextInt(accounts);
        final int canceled = random.nextBoolean() ? 0 : instrument;
        massCancel.wrapAndApplyHeader(buffer, offset, header)
            .clientOrderId(++nextClientOrderId)
            .account(account)
            .instrumentId(canceled)
            .sendingTime(time)
            .receiveTime(time)
            .engineLife(0);
        // What it cancels is no target any more, whether or not its reports have come back yet.
        for (int place = liveCount - 1; place >= 0; place--)
        {
            if (liveAccounts[place] == account && (canceled == 0 || liveInstruments[place] == canceled))
            {
                forget(place);
            }
        }
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
            unindex(liveClientIds[at], at);
        }
        liveClientIds[at] = clientOrderId;
        liveAccounts[at] = account;
        liveInstruments[at] = instrument;
        liveSides[at] = side;
        livePrices[at] = price;
        liveQuantities[at] = quantity;
        index(clientOrderId, at);
    }

    /**
     * Tells the flow that one of its orders ended: filled, canceled, or rejected (a new order, or a
     * replace under the id it gave the order). No cancel or replace aims at it from now on. An id
     * the flow does not hold as live is ignored.
     *
     * @param clientOrderId the order's client order id, as the execution report gives it.
     */
    public void ended(final long clientOrderId)
    {
        final int place = placeOf(clientOrderId);
        if (place >= 0)
        {
            forget(place);
        }
    }

    /** @return orders the flow holds as live, the ones cancels and replaces aim at. */
    public int liveOrders()
    {
        return liveCount;
    }

    private int placeOf(final long clientOrderId)
    {
        final int place = livePlaces[(int)clientOrderId & livePlaceMask] - 1;
        return place >= 0 && place < liveCount && liveClientIds[place] == clientOrderId ? place : -1;
    }

    private void index(final long clientOrderId, final int place)
    {
        final int slot = (int)clientOrderId & livePlaceMask;
        final int other = livePlaces[slot] - 1;
        if (other >= 0 && other < liveCount && other != place && ((int)liveClientIds[other] & livePlaceMask) == slot)
        {
            // Another live order has this slot: the flow lets go of the older one rather than lose
            // track of it.
            forget(other);
            if (place == liveCount)
            {
                // forget moved the order being indexed (the table's last) into the freed place.
                livePlaces[slot] = other + 1;
                return;
            }
        }
        livePlaces[slot] = place + 1;
    }

    private void unindex(final long clientOrderId, final int place)
    {
        final int slot = (int)clientOrderId & livePlaceMask;
        if (livePlaces[slot] == place + 1)
        {
            livePlaces[slot] = 0;
        }
    }

    private void forget(final int pick)
    {
        unindex(liveClientIds[pick], pick);
        final int last = --liveCount;
        if (last != pick)
        {
            unindex(liveClientIds[last], last);
            livePlaces[(int)liveClientIds[last] & livePlaceMask] = pick + 1;
        }
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
