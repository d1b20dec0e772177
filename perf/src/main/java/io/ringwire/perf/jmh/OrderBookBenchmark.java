package io.ringwire.perf.jmh;

import io.ringwire.exchange.book.BookListener;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderBooks;
import io.ringwire.exchange.book.OrderTerms;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The sample exchange's order books ({@link OrderBooks}) on one thread, over a book holding a
 * standing depth of resting orders on both sides so that adds and matches walk a realistic book:
 * a limit order that rests and is cancelled, and a limit order that meets a freshly rested one and
 * fills it. Each operation leaves the book as it found it, so a measurement does not drift as the
 * book grows. The listener does nothing: this is the books' own cost.
 *
 * <p>Threading: one benchmark thread per state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OrderBookBenchmark
{
    private static final int INSTRUMENT = 1;
    private static final long MIN_PRICE = 1;
    private static final long MAX_PRICE = 20_000;
    private static final long MID = 10_000;
    /** Price levels of standing depth each side. */
    private static final int DEPTH_LEVELS = 50;
    private static final long MAKER = 1;
    private static final long TAKER = 2;
    private static final long RESTER = 3;

    private OrderBooks books;
    private long clientOrderId;

    /**
     * Builds the book: one order per level, {@link #DEPTH_LEVELS} levels each side, away from the
     * prices the benchmarks trade at.
     */
    @Setup
    public void buildBook()
    {
        books = new OrderBooks(new InstrumentSpec[] { new InstrumentSpec(INSTRUMENT, 1, 1, MIN_PRICE, MAX_PRICE) },
            1 << 16, 64, new Silent());
        for (int level = 1; level <= DEPTH_LEVELS; level++)
        {
            limit(MAKER, OrderTerms.BUY, MID - 10 - level, 100);
            limit(MAKER, OrderTerms.SELL, MID + 10 + level, 100);
        }
    }

    private long limit(final long account, final byte side, final long price, final long quantity)
    {
        return books.newOrder(++clientOrderId, account, INSTRUMENT, side, OrderTerms.LIMIT, OrderTerms.DAY, price,
            quantity, 0, false, OrderTerms.STP_CANCEL_RESTING);
    }

    /**
     * @return the order id plus the cancel's result (0).
     */
    @Benchmark
    public long addThenCancel()
    {
        final long orderId = limit(RESTER, OrderTerms.BUY, MID - 5, 10);
        return orderId + books.cancel(RESTER, clientOrderId, INSTRUMENT, OrderTerms.BUY);
    }

    /**
     * @return the two order ids' sum.
     */
    @Benchmark
    public long addThenMatch()
    {
        final long resting = limit(RESTER, OrderTerms.SELL, MID, 10);
        return resting + limit(TAKER, OrderTerms.BUY, MID, 10);
    }

    /** Listens to nothing: the benchmark measures the books alone. */
    private static final class Silent implements BookListener
    {
        @Override
        public void accepted(final int order)
        {
        }

        @Override
        public void traded(final int aggressor, final int resting, final long price, final long quantity,
            final long matchId)
        {
        }

        @Override
        public void rested(final int order)
        {
        }

        @Override
        public void canceled(final int order, final long canceled, final long shownRemoved, final int reason)
        {
        }

        @Override
        public void restated(final int order, final long decrement, final long shownRemoved)
        {
        }

        @Override
        public void replaced(final int order, final boolean keepsPriority, final long shownBefore,
            final boolean crossing)
        {
        }
    }
}
