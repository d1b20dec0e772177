package io.ringwire.exchange.book;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.ringwire.exchange.book.OrderTerms.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The book's rules, one behaviour a test, over plain arguments (no SBE, no engine): each test
 * builds a book, clears the events of its set-up, and asserts the exact events of the request
 * under test. Instrument 1: tick 1, lot 1, band [1, 1000]. Instrument 2: tick 5, lot 10, band
 * [100, 200].
 */
class OrderBooksTest
{
    private static final long A = 1001;
    private static final long B = 1002;
    private static final long C = 1003;
    private static final long D = 1004;

    private final RecordingListener events = new RecordingListener();
    private OrderBooks books = books(100, 100);
    private long nextClientOrderId = 1;

    private OrderBooks books(final int maxOrders, final int maxAccounts)
    {
        final OrderBooks created = new OrderBooks(new InstrumentSpec[] {
            new InstrumentSpec(1, 1, 1, 1, 1000), new InstrumentSpec(2, 5, 10, 100, 200) }, maxOrders, maxAccounts, events);
        events.orders = created.orders();
        return created;
    }

    private long limit(final long account, final byte side, final long price, final long quantity)
    {
        return order(account, side, LIMIT, DAY, price, quantity, 0, false, STP_CANCEL_RESTING);
    }

    private long order(final long account, final byte side, final byte type, final byte timeInForce, final long price,
        final long quantity, final long display, final boolean postOnly, final byte stp)
    {
        return books.newOrder(nextClientOrderId++, account, 1, side, type, timeInForce, price, quantity, display, postOnly,
            stp);
    }

    @Test
    void anIncomingOrderFillsAcrossLevelsBestPriceFirstThenOldestFirst()
    {
        limit(A, SELL, 101, 10);
        limit(B, SELL, 100, 5);
        limit(C, SELL, 100, 7);
        events.take();

        assertEquals(4, limit(D, BUY, 101, 20));
        assertEquals(List.of("accepted 4", "traded 4x2 5@100 m1", "traded 4x3 7@100 m2", "traded 4x1 8@101 m3"),
            events.take());

        limit(D, BUY, 101, 5);
        assertEquals(List.of("accepted 5", "traded 5x1 2@101 m4", "rested 5 show 3@101"), events.take(),
            "order 1 had 2 left; the rest of the buy rests");
    }

    @Test
    void aFokThatCannotFillEntirelyTradesNothing()
    {
        limit(A, SELL, 100, 5);
        limit(B, SELL, 102, 5);
        events.take();

        order(C, BUY, LIMIT, FOK, 101, 10, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 3", "canceled 3 10 shown-0 FOK_NOT_FILLABLE"), events.take());

        order(C, BUY, LIMIT, FOK, 102, 10, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 4", "traded 4x1 5@100 m1", "traded 4x2 5@102 m2"), events.take(),
            "within 102 it fills entirely");
    }

    @Test
    void aFokFillableByOrdersWhoseQuantitiesSumPastALongFills()
    {
        final long large = 5_000_000_000_000_000_000L;
        limit(A, SELL, 100, large);
        limit(B, SELL, 100, large);
        limit(D, SELL, 101, large);
        events.take();

        order(C, BUY, LIMIT, FOK, 101, 6_000_000_000_000_000_000L, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 4", "traded 4x1 " + large + "@100 m1", "traded 4x2 1000000000000000000@100 m2"),
            events.take(), "two orders of 5e18 hold 6e18, though their sum, 1e19, is past a long");
    }

    @Test
    void aBandWiderThanALongIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new InstrumentSpec(1, 1, 1, Long.MIN_VALUE, Long.MAX_VALUE));
    }

    @Test
    void anIocRemainderIsCanceledAndNeverRests()
    {
        limit(A, SELL, 100, 5);
        events.take();

        order(B, BUY, LIMIT, IOC, 100, 8, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 2", "traded 2x1 5@100 m1", "canceled 2 3 shown-0 IOC_REMAINDER"), events.take());

        limit(C, SELL, 100, 1);
        assertEquals(List.of("accepted 3", "rested 3 show 1@100"), events.take(), "no buy is left to trade with");
    }

    @Test
    void aMarketOrderAgainstAnEmptySideIsCanceledForNoLiquidity()
    {
        order(A, BUY, MARKET, IOC, 0, 5, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 1", "canceled 1 5 shown-0 NO_LIQUIDITY"), events.take());

        limit(B, SELL, 500, 3);
        events.take();
        order(A, BUY, MARKET, IOC, 0, 5, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 3", "traded 3x2 3@500 m1", "canceled 3 2 shown-0 IOC_REMAINDER"), events.take(),
            "a market order takes any price, and its remainder is canceled");
        assertEquals(-INVALID_ORDER_TYPE, order(A, BUY, MARKET, DAY, 0, 5, 0, false, STP_CANCEL_RESTING),
            "a market order does not rest");
    }

    @Test
    void aPostOnlyOrderThatWouldTakeLiquidityIsRejectedAndChangesNothing()
    {
        limit(A, SELL, 100, 5);
        events.take();

        assertEquals(-POST_ONLY_WOULD_TAKE, order(B, BUY, LIMIT, DAY, 100, 5, 0, true, STP_CANCEL_RESTING));
        assertEquals(List.of(), events.take());

        order(B, BUY, LIMIT, DAY, 99, 5, 0, true, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 2", "rested 2 show 5@99"), events.take(), "below the ask it rests");
    }

    @Test
    void anIcebergShowsItsDisplayQuantityAndEachRefillGoesToTheBackOfItsLevel()
    {
        order(A, SELL, LIMIT, DAY, 100, 30, 10, false, STP_CANCEL_RESTING);
        limit(B, SELL, 100, 10);
        assertEquals(List.of("accepted 1", "rested 1 show 10@100", "accepted 2", "rested 2 show 10@100"), events.take());

        limit(C, BUY, 100, 10);
        assertEquals(List.of("accepted 3", "traded 3x1 10@100 m1", "rested 1 show 10@100"), events.take(),
            "the shown part filled; the refill rests behind order 2");

        limit(C, BUY, 100, 15);
        assertEquals(List.of("accepted 4", "traded 4x2 10@100 m2", "traded 4x1 5@100 m3"), events.take());
    }

    @Test
    void aReplaceKeepsPriorityOnAQuantityDecreaseAndLosesItOnAnIncreaseOrAPriceChange()
    {
        limit(A, SELL, 100, 10);
        limit(B, SELL, 100, 10);
        limit(C, SELL, 100, 10);
        events.take();

        assertEquals(0, books.replace(A, 1, 101, 1, SELL, 100, 8));
        assertEquals(List.of("replaced 1 keep 8@100"), events.take());
        limit(D, BUY, 100, 8);
        assertEquals(List.of("accepted 4", "traded 4x1 8@100 m1"), events.take(), "still first");

        assertEquals(0, books.replace(B, 2, 102, 1, SELL, 100, 12));
        assertEquals(List.of("replaced 2 back 12@100"), events.take());
        limit(D, BUY, 100, 10);
        assertEquals(List.of("accepted 5", "traded 5x3 10@100 m2"), events.take(), "an increase went to the back");

        limit(C, SELL, 100, 5);
        assertEquals(0, books.replace(B, 102, 103, 1, SELL, 101, 12));
        assertEquals(0, books.replace(B, 103, 104, 1, SELL, 100, 12));
        events.take();
        limit(D, BUY, 100, 5);
        assertEquals(List.of("accepted 7", "traded 7x6 5@100 m3"), events.take(), "a price change went to the back");
    }

    @Test
    void aReplaceToACrossingPriceTradesAndRestsTheRest()
    {
        limit(A, BUY, 100, 5);
        limit(B, SELL, 101, 10);
        events.take();

        assertEquals(0, books.replace(B, 2, 22, 1, SELL, 100, 10));
        assertEquals(List.of("replaced 2 crossing", "traded 2x1 5@100 m1", "rested 2 show 5@100"), events.take());
    }

    @Test
    void selfTradePreventionCancelRestingCancelsTheOwnOrderAndKeepsMatching()
    {
        limit(A, SELL, 100, 10);
        limit(B, SELL, 100, 10);
        events.take();

        order(A, BUY, LIMIT, DAY, 100, 15, 0, false, STP_CANCEL_RESTING);
        assertEquals(List.of("accepted 3", "canceled 1 10 shown-10 SELF_TRADE_PREVENTION", "traded 3x2 10@100 m1",
            "rested 3 show 5@100"), events.take());
    }

    @Test
    void selfTradePreventionCancelAggressingCancelsTheIncomingOrder()
    {
        limit(B, SELL, 99, 4);
        limit(A, SELL, 100, 10);
        events.take();

        order(A, BUY, LIMIT, DAY, 100, 15, 0, false, STP_CANCEL_AGGRESSING);
        assertEquals(List.of("accepted 3", "traded 3x1 4@99 m1", "canceled 3 11 shown-0 SELF_TRADE_PREVENTION"),
            events.take());
        limit(C, BUY, 100, 10);
        assertEquals(List.of("accepted 4", "traded 4x2 10@100 m2"), events.take(), "the resting order stayed");
    }

    @Test
    void selfTradePreventionCancelBothCancelsTheRestingAndTheIncomingOrder()
    {
        limit(A, SELL, 100, 10);
        limit(B, SELL, 100, 10);
        events.take();

        order(A, BUY, LIMIT, DAY, 100, 15, 0, false, STP_CANCEL_BOTH);
        assertEquals(List.of("accepted 3", "canceled 1 10 shown-10 SELF_TRADE_PREVENTION",
            "canceled 3 15 shown-0 SELF_TRADE_PREVENTION"), events.take());
    }

    @Test
    void selfTradePreventionDecrementAndCancelReducesBothAndCancelsTheSmaller()
    {
        limit(A, SELL, 100, 10);
        limit(B, SELL, 100, 10);
        events.take();

        order(A, BUY, LIMIT, DAY, 100, 15, 0, false, STP_DECREMENT_AND_CANCEL);
        assertEquals(List.of("accepted 3", "canceled 1 10 shown-10 SELF_TRADE_PREVENTION", "restated 3 -10 shown-0",
            "traded 3x2 5@100 m1"), events.take(), "the resting order was the smaller");

        limit(A, SELL, 101, 10);
        events.take();
        order(A, BUY, LIMIT, DAY, 101, 9, 0, false, STP_DECREMENT_AND_CANCEL);
        assertEquals(List.of("accepted 5", "traded 5x2 5@100 m2", "restated 4 -4 shown-4",
            "canceled 5 4 shown-0 SELF_TRADE_PREVENTION"), events.take(), "the incoming order was the smaller");
    }

    @Test
    void aDecrementLowersTheOrdersQuantitySoAReplaceAboveWhatIsLeftLosesPriority()
    {
        limit(A, SELL, 100, 10);
        limit(B, SELL, 100, 5);
        events.take();
        order(A, BUY, LIMIT, IOC, 100, 4, 0, false, STP_DECREMENT_AND_CANCEL);
        events.take();
        final int decremented = books.orders().find(A, 1);
        assertEquals(6, books.orders().quantity(decremented), "open 6 and filled 0 make the order's quantity");
        assertEquals(6, books.orders().leaves(decremented));

        // 9 is less than the 10 first asked for, but 3 more than the order had open.
        assertEquals(0, books.replace(A, 1, 101, 1, SELL, 100, 9));
        assertEquals(List.of("replaced 1 back 9@100"), events.take(), "an increase goes to the back");
        limit(C, BUY, 100, 5);
        assertEquals(List.of("accepted 4", "traded 4x2 5@100 m1"), events.take(), "B's order is first now");
    }

    @Test
    void massCancelCancelsAnAccountsOrdersOnOneInstrumentOrOnAllOldestFirst()
    {
        limit(A, BUY, 10, 1);
        books.newOrder(nextClientOrderId++, A, 2, SELL, LIMIT, GTC, 150, 20, 0, false, STP_CANCEL_RESTING);
        limit(B, BUY, 10, 1);
        limit(A, SELL, 20, 1);
        events.take();

        assertEquals(1, books.massCancel(A, 2));
        assertEquals(List.of("canceled 2 20 shown-20 MASS_CANCEL"), events.take());
        assertEquals(2, books.massCancel(A, 0));
        assertEquals(List.of("canceled 1 1 shown-1 MASS_CANCEL", "canceled 4 1 shown-1 MASS_CANCEL"), events.take());
        assertEquals(0, books.massCancel(A, 0));
        assertEquals(0, books.cancel(B, 3, 1, BUY), "the other account's order is still there");
    }

    @Test
    void requestsOffTheInstrumentsRulesAreRejectedWithTheirReason()
    {
        assertEquals(-TICK_SIZE, books.newOrder(1, A, 2, BUY, LIMIT, DAY, 102, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(-LOT_SIZE, books.newOrder(2, A, 2, BUY, LIMIT, DAY, 150, 15, 0, false, STP_CANCEL_RESTING));
        assertEquals(-PRICE_BAND, books.newOrder(3, A, 2, BUY, LIMIT, DAY, 95, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(-PRICE_BAND, books.newOrder(4, A, 2, BUY, LIMIT, DAY, 205, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(-UNKNOWN_INSTRUMENT, books.newOrder(5, A, 3, BUY, LIMIT, DAY, 150, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(-INVALID_QUANTITY, books.newOrder(6, A, 2, BUY, LIMIT, DAY, 150, 0, 0, false, STP_CANCEL_RESTING));
        assertEquals(-INVALID_QUANTITY, books.newOrder(7, A, 2, BUY, LIMIT, DAY, 150, 10, 20, false, STP_CANCEL_RESTING));
        assertEquals(List.of(), events.take(), "a rejected request changes nothing");

        assertEquals(1, books.newOrder(8, A, 2, BUY, LIMIT, DAY, 150, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(-DUPLICATE_CLIENT_ORDER_ID, books.newOrder(8, A, 2, BUY, LIMIT, DAY, 155, 10, 0, false,
            STP_CANCEL_RESTING));
        assertEquals(-TICK_SIZE, books.replace(A, 8, 9, 2, BUY, 151, 10));
        assertEquals(-LOT_SIZE, books.replace(A, 8, 9, 2, BUY, 150, 25));
        assertEquals(-UNKNOWN_ORDER, books.replace(A, 99, 9, 2, BUY, 150, 10));
        assertEquals(2, books.newOrder(10, A, 2, BUY, LIMIT, DAY, 140, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(-TICK_SIZE, books.replace(A, 8, 10, 2, BUY, 151, 10), "the price is checked before the new id");
        assertEquals(-DUPLICATE_CLIENT_ORDER_ID, books.replace(A, 8, 10, 2, BUY, 150, 10),
            "a replace may not take an id another of the account's live orders holds");
        assertEquals(3, books.newOrder(11, B, 2, BUY, LIMIT, DAY, 140, 10, 0, false, STP_CANCEL_RESTING));
        assertEquals(0, books.replace(A, 8, 11, 2, BUY, 150, 10), "another account's id is its own");
        assertEquals(-UNKNOWN_ORDER, books.replace(A, 8, 12, 2, BUY, 150, 10), "the order goes by its new id now");
        assertEquals(0, books.replace(A, 11, 8, 2, BUY, 150, 10), "and its old one is free again");
        assertEquals(-UNKNOWN_ORDER, books.cancel(A, 8, 2, SELL), "the side must match the order's");
        assertEquals(-UNKNOWN_ORDER, books.cancel(B, 8, 2, BUY), "another account cannot cancel it");
    }

    @Test
    void requestsBeyondTheOrderOrAccountCapacityAreRejectedAndRoomReturnsWhenOrdersGo()
    {
        books = books(3, 2);
        limit(A, BUY, 10, 1);
        limit(A, BUY, 11, 1);
        limit(B, BUY, 12, 1);
        assertEquals(-CAPACITY_EXCEEDED, limit(A, BUY, 13, 1), "three orders held");
        assertEquals(0, books.cancel(A, 1, 1, BUY));
        assertEquals(-CAPACITY_EXCEEDED, limit(C, BUY, 13, 1), "two accounts hold orders");
        assertEquals(4, limit(A, BUY, 13, 1), "order ids go to accepted orders only");
        assertEquals(3, books.orders().live());
    }
}
