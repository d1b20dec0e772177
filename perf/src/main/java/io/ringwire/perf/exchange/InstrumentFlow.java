package io.ringwire.perf.exchange;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderTerms;

import java.util.SplittableRandom;

/**
 * One instrument's share of the matching benchmark's flow: its price band, the last trade price the
 * flow steers by, the book size it regulates, and the random choices that shape each request. The
 * shape is that of exchange-core's benchmark generator (TestOrdersGenerator and
 * TestOrdersGeneratorSession in exchange-core/exchange-core, src/test/java/exchange/core2/tests/util)
 * as it was when it made the mix exchange-core publishes (9% GTC, 3% IOC, 6% cancel, 82% move: the
 * rules before its commit 4be54db of 2020-04-18, which added reductions and fill-or-kill orders and
 * changed the mix), with that commit's separate filling of the books first. The rules are restated
 * here, not its code:
 *
 * <ul>
 *   <li>a central price {@code 10^(3.3 + 1.5u + 1.5v)} (u, v uniform), a deviation of 5% of it (at
 *       most 10000 ticks), and a band of five deviations either side;</li>
 *   <li>the book's size per side is looked at every 512 of the instrument's requests (every
 *       target + 1 for a target under 512), and when an IOC leaves a remainder;</li>
 *   <li>each request draws a side (even odds); while that side, as last looked at, is short of
 *       its half of the target, 1 request in 5 is a new GTC order on it (every one while the book
 *       is first filled, or while the side is short by more than {@code min(256, 3/4 of its half)}),
 *       1 in 10 a cancel, the rest moves; when the side is not short, 1 request in 20 is an IOC on
 *       it, 1 in 40 a cancel, the rest (37 in 40) moves;</li>
 *   <li>cancels and moves pick uniformly among the 512 oldest live GTC orders of the instrument (by
 *       when they were placed), whatever their side;</li>
 *   <li>a GTC price lies within a random fraction of the deviation (its square) of the last trade,
 *       on its own side (a bid at or below it, an ask at or above), as the mean of four uniform draws;
 *       sizes are {@code 1 + a*b*c} with a, b, c uniform in 0..5;</li>
 *   <li>an IOC is priced at the far end of the band, so it trades with whatever the other side
 *       holds (all of them cross unless that side is empty);</li>
 *   <li>a move takes an order 1% of the way to the last trade price, at least one tick (a random
 *       tick up or down when it is at that price), keeping its quantity; one that reaches the other
 *       side trades.</li>
 * </ul>
 *
 * <p>Threading: the generating thread.
 */
final class InstrumentFlow
{
    /** exchange-core looks at the book's size every this many requests of an instrument (at most). */
    static final int SIZE_CHECK_INTERVAL = 512;
    /** A move closes this fraction of the distance to the last trade price. */
    static final double MOVE_ALPHA = 0.01;
    /** A side short by more than this (at most) fills fast. */
    static final int FAST_FILL_SHORTFALL = 256;

    final int instrumentId;
    final int index;
    final long minPrice;
    final long maxPrice;
    final int deviation;
    final SplittableRandom random;
    final int targetPerSide;
    private final int fastFillShortfall;
    private final int sizeCheckInterval;

    long lastTradePrice;
    /** exchange-core's price direction: 0, or +1/-1 after a trade at the band's edge. */
    int priceDirection;
    /** The book's size per side as last looked at: what the flow regulates by. */
    int seenBids;
    int seenAsks;
    /** Resting orders per side now. */
    int restingBids;
    int restingAsks;
    /** Set once a side was found full: the requests from then on are measured. */
    boolean filled;
    private long requests;
    private long nextSizeCheck;

    /**
     * @param instrumentId  the instrument, 1 and up.
     * @param seed          the flow's seed.
     * @param targetPerBook resting orders the book keeps, both sides together.
     */
    InstrumentFlow(final int instrumentId, final long seed, final int targetPerBook)
    {
        this.instrumentId = instrumentId;
        this.index = instrumentId - 1;
        this.random = new SplittableRandom(seed * 0x9E37_79B9_7F4A_7C15L + instrumentId);
        final long centralPrice = (long)Math.pow(10, 3.3 + random.nextDouble() * 1.5 + random.nextDouble() * 1.5);
        this.deviation = (int)Math.min(centralPrice / 20, 10_000);
        this.minPrice = centralPrice - 5L * deviation;
        this.maxPrice = centralPrice + 5L * deviation;
        this.lastTradePrice = centralPrice;
        this.targetPerSide = targetPerBook / 2;
        this.fastFillShortfall = Math.min(FAST_FILL_SHORTFALL, targetPerSide * 3 / 4);
        this.sizeCheckInterval = Math.min(SIZE_CHECK_INTERVAL, targetPerBook + 1);
        this.nextSizeCheck = sizeCheckInterval;
    }

    /** @return the instrument's rules: tick 1, lot 1, the band. */
    InstrumentSpec spec()
    {
        return new InstrumentSpec(instrumentId, 1, 1, minPrice, maxPrice);
    }

    /**
     * Counts a request, and looks at the book's size when it is time to.
     */
    void counted()
    {
        if (++requests >= nextSizeCheck)
        {
            nextSizeCheck += sizeCheckInterval;
            lookAtBookSize();
        }
    }

    /** Takes the book's size per side as the one to regulate by. */
    void lookAtBookSize()
    {
        seenBids = restingBids;
        seenAsks = restingAsks;
    }

    /** @return a side, as exchange-core draws it: even odds unless a trade hit the band's edge. */
    byte side()
    {
        return random.nextInt(4) + priceDirection >= 2 ? OrderTerms.BUY : OrderTerms.SELL;
    }

    /** @return how many orders the side lacks of its half of the target (negative: more than it). */
    int shortfall(final byte side)
    {
        return targetPerSide - (side == OrderTerms.BUY ? seenBids : seenAsks);
    }

    /** @return whether the side lacks so many orders that the flow fills it fast. */
    boolean fillsFast(final int shortfall)
    {
        return !filled || shortfall > fastFillShortfall;
    }

    /** @return a GTC order's limit price on a side, clamped to the band. */
    long gtcPrice(final byte side)
    {
        final double spread = random.nextDouble();
        final int range = 1 + (int)(spread * spread * deviation);
        long offset = 0;
        for (int i = 0; i < 4; i++)
        {
            offset += random.nextInt(range);
        }
        offset = offset / 4 * 2 - range;
        if (offset > 0 ^ side == OrderTerms.SELL)
        {
            offset = -offset;
        }
        return clamp(lastTradePrice + offset);
    }

    /** @return an order's size: {@code 1 + a*b*c}, each uniform in 0..5. */
    long size()
    {
        return 1L + (long)random.nextInt(6) * random.nextInt(6) * random.nextInt(6);
    }

    /** @return an IOC's limit: the far end of the band. */
    long instantPrice(final byte side)
    {
        return side == OrderTerms.BUY ? maxPrice : minPrice;
    }

    /** @return where a move takes an order now at {@code price}. */
    long movedPrice(final long price)
    {
        final double move = (lastTradePrice - price) * MOVE_ALPHA;
        final long ticks;
        if (price > lastTradePrice)
        {
            ticks = (long)Math.floor(move);
        }
        else if (price < lastTradePrice)
        {
            ticks = (long)Math.ceil(move);
        }
        else
        {
            ticks = random.nextInt(2) * 2L - 1;
        }
        return clamp(price + ticks);
    }

    /** Steers by a trade: its price becomes the last (within the band); the band's edge turns the direction. */
    void traded(final long price)
    {
        lastTradePrice = clamp(price);
        if (price <= minPrice)
        {
            priceDirection = 1;
        }
        else if (price >= maxPrice)
        {
            priceDirection = -1;
        }
    }

    /** An order joined or left the book on a side. */
    void resting(final byte side, final int change)
    {
        if (side == OrderTerms.BUY)
        {
            restingBids += change;
        }
        else
        {
            restingAsks += change;
        }
    }

    private long clamp(final long price)
    {
        return Math.max(minPrice, Math.min(maxPrice, price));
    }
}
