package io.ringwire.perf.exchange;

import io.ringwire.exchange.book.BookListener;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderBooks;
import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.book.OrderTerms;
import io.ringwire.exchange.engine.EngineConfig;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes the matching benchmark's {@link RecordedFlow}. Like exchange-core's generator it runs each
 * request it makes against a book of its own, here the engine's {@link OrderBooks} with this class
 * as the listener, so that it knows what the engine will know: which orders still rest and with
 * what, the book's size, and the last trade price, which steers new prices and moves (see
 * {@link InstrumentFlow} for the rules). Every request is valid when made, so a replay on a fresh
 * engine rejects none and ends with the same books.
 *
 * <p>Each instrument first gets requests of its own until its book is filled (the prefill); then
 * every measured request goes to an instrument drawn uniformly, as exchange-core merges its
 * instruments' flows at random (there weighted by size; here the books have one target).
 *
 * <p>Client order ids: a GTC order's is {@code replaces << 32 | handle}, its handle numbering it
 * among the flow's GTC orders, so every replace gives it a new one, as a FIX client would; IOC
 * orders and cancel requests take negative ids of their own.
 *
 * <p>Threading: the calling thread; allocates freely (nothing here is timed).
 */
final class FlowGenerator implements BookListener
{
    /** Accounts the orders come from (exchange-core's benchmark: about 1000 active accounts). */
    static final int ACCOUNTS = 1_000;
    /** The measured flow's books are sampled for their size every this many requests. */
    private static final int SAMPLE_INTERVAL = 1_024;
    private static final int NOT_RESTING = 0;
    private static final int RESTING = 1;

    private final InstrumentFlow[] flows;
    private final EngineConfig config;
    private final OrderBooks books;
    private final OrderStore orders;
    private final OldestOrders live;
    private final FlowRecorder recorder;
    /** Per handle: the order's slot in the model's store. */
    private int[] slotOf = new int[1024];
    /** Per handle: replaces so far (the high half of its client order id). */
    private int[] replaces = new int[1024];
    /** Per handle: whether it rests in the book now. */
    private byte[] resting = new byte[1024];
    private int nextHandle = 1;
    private long nextRequestId = 1;
    private boolean traded;
    private final long[] kindCounts = new long[RequestKind.ALL.length];
    private final long[] tradingCounts = new long[RequestKind.ALL.length];

    private FlowGenerator(final int instruments, final int bookOrders, final int measured, final long seed)
    {
        flows = new InstrumentFlow[instruments];
        final List<InstrumentSpec> specs = new ArrayList<>(instruments);
        for (int i = 0; i < instruments; i++)
        {
            flows[i] = new InstrumentFlow(i + 1, seed, bookOrders);
            specs.add(flows[i].spec());
        }
        // Room for every book at twice its target, and the overshoot of one look at its size.
        final int maxOrders = instruments * (2 * bookOrders + 2 * InstrumentFlow.SIZE_CHECK_INTERVAL);
        config = new EngineConfig(specs, maxOrders, ACCOUNTS, 0);
        books = new OrderBooks(specs.toArray(new InstrumentSpec[0]), maxOrders, ACCOUNTS, this);
        orders = books.orders();
        live = new OldestOrders(instruments);
        recorder = new FlowRecorder(measured + instruments * 3 * bookOrders);
    }

    /**
     * Generates and records a flow.
     *
     * @param instruments instruments, ids 1 to N.
     * @param bookOrders  resting orders each book keeps.
     * @param measured    measured requests, after the prefill.
     * @param seed        the seed: the same arguments give the same flow.
     * @return the flow.
     */
    static RecordedFlow generate(final int instruments, final int bookOrders, final int measured, final long seed)
    {
        final FlowGenerator generator = new FlowGenerator(instruments, bookOrders, measured, seed);
        for (final InstrumentFlow flow : generator.flows)
        {
            while (!flow.filled)
            {
                generator.request(flow, false);
            }
        }
        final int prefill = generator.recorder.count();
        final SplittableRandom instrumentChoice = new SplittableRandom(~seed);
        double restingSum = 0;
        int samples = 0;
        for (int i = 0; i < measured; i++)
        {
            generator.request(generator.flows[instruments == 1 ? 0 : instrumentChoice.nextInt(instruments)], true);
            if (i % SAMPLE_INTERVAL == 0)
            {
                restingSum += generator.restingPerBook();
                samples++;
            }
        }
        return new RecordedFlow(generator.recorder.requests(), generator.recorder.offsets(), generator.recorder.kinds(),
            prefill, generator.config, generator.kindCounts, generator.tradingCounts, restingSum / samples,
            generator.levelsPerBook(), generator.orders.live());
    }

    // ---------------------------------------------------------------- one request

    private void request(final InstrumentFlow flow, final boolean measured)
    {
        final byte side = flow.side();
        final int shortfall = flow.shortfall(side);
        final boolean grow = shortfall > 0;
        final boolean fast = flow.fillsFast(shortfall);
        if (!flow.filled && !grow)
        {
            flow.filled = true;
        }
        final int draw = flow.random.nextInt(grow ? (fast ? 2 : 10) : 40);
        traded = false;
        final RequestKind kind;
        if (draw < 2 || live.size(flow.index) == 0)
        {
            kind = grow ? newGtc(flow, side) : newIoc(flow, side);
        }
        else if (draw == 2)
        {
            kind = cancel(flow, live.pick(flow.index, flow.random));
        }
        else
        {
            kind = move(flow, live.pick(flow.index, flow.random));
        }
        flow.counted();
        if (measured)
        {
            kindCounts[kind.ordinal()]++;
            if (traded)
            {
                tradingCounts[kind.ordinal()]++;
            }
        }
    }

    private RequestKind newGtc(final InstrumentFlow flow, final byte side)
    {
        final long account = 1 + flow.random.nextInt(ACCOUNTS);
        final long price = flow.gtcPrice(side);
        final long quantity = flow.size();
        final int handle = nextHandle++;
        ensureHandle(handle);
        recorder.newOrder(RequestKind.NEW_GTC, handle, account, flow.instrumentId, side, OrderTerms.GTC, price, quantity);
        expectAccepted(books.newOrder(handle, account, flow.instrumentId, side, OrderTerms.LIMIT, OrderTerms.GTC, price,
            quantity, 0, false, OrderTerms.STP_CANCEL_RESTING), RequestKind.NEW_GTC);
        return RequestKind.NEW_GTC;
    }

    private RequestKind newIoc(final InstrumentFlow flow, final byte side)
    {
        final long account = 1 + flow.random.nextInt(ACCOUNTS);
        final long quantity = flow.size();
        final long price = flow.instantPrice(side);
        final long clientOrderId = -nextRequestId++;
        recorder.newOrder(RequestKind.NEW_IOC, clientOrderId, account, flow.instrumentId, side, OrderTerms.IOC, price,
            quantity);
        expectAccepted(books.newOrder(clientOrderId, account, flow.instrumentId, side, OrderTerms.LIMIT, OrderTerms.IOC,
            price, quantity, 0, false, OrderTerms.STP_CANCEL_RESTING), RequestKind.NEW_IOC);
        return RequestKind.NEW_IOC;
    }

    private RequestKind cancel(final InstrumentFlow flow, final int handle)
    {
        final int order = slotOf[handle];
        final long clientOrderId = orders.clientOrderId(order);
        final long account = orders.account(order);
        final byte side = orders.side(order);
        recorder.cancel(RequestKind.CANCEL, -nextRequestId++, clientOrderId, account, flow.instrumentId, side);
        expectAccepted(books.cancel(account, clientOrderId, flow.instrumentId, side), RequestKind.CANCEL);
        return RequestKind.CANCEL;
    }

    private RequestKind move(final InstrumentFlow flow, final int handle)
    {
        final int order = slotOf[handle];
        return replace(flow, handle, RequestKind.MOVE, flow.movedPrice(orders.price(order)), orders.quantity(order));
    }

    private RequestKind replace(final InstrumentFlow flow, final int handle, final RequestKind kind, final long price,
        final long quantity)
    {
        final int order = slotOf[handle];
        final long clientOrderId = orders.clientOrderId(order);
        final long account = orders.account(order);
        final byte side = orders.side(order);
        final long newClientOrderId = (long)++replaces[handle] << 32 | handle;
        recorder.replace(kind, newClientOrderId, clientOrderId, account, flow.instrumentId, side, price, quantity);
        expectAccepted(books.replace(account, clientOrderId, newClientOrderId, flow.instrumentId, side, price,
            quantity), kind);
        return kind;
    }

    private static void expectAccepted(final long result, final RequestKind kind)
    {
        if (result < 0)
        {
            throw new IllegalStateException("the flow generator made a " + kind.label() + " request the book refused " +
                "(reason " + -result + "): a generator bug");
        }
    }

    // ---------------------------------------------------------------- what the book tells

    @Override
    public void accepted(final int order)
    {
        final int handle = handleOf(order);
        if (handle > 0)
        {
            slotOf[handle] = order;
        }
    }

    @Override
    public void traded(final int aggressor, final int restingOrder, final long price, final long quantity,
        final long matchId)
    {
        traded = true;
        flows[orders.instrument(restingOrder) - 1].traded(price);
        if (orders.leaves(restingOrder) == 0)
        {
            gone(restingOrder);
        }
        if (orders.leaves(aggressor) == 0)
        {
            gone(aggressor);
        }
    }

    @Override
    public void rested(final int order)
    {
        final int handle = handleOf(order);
        final int instrument = orders.instrument(order) - 1;
        if (resting[handle] == NOT_RESTING)
        {
            resting[handle] = RESTING;
            flows[instrument].resting(orders.side(order), +1);
        }
        if (!live.contains(handle))
        {
            live.add(instrument, handle);
        }
    }

    @Override
    public void canceled(final int order, final long canceled, final long shownRemoved, final int reason)
    {
        if (reason == OrderTerms.IOC_REMAINDER)
        {
            // exchange-core's generator looks at the book again when an IOC is not filled.
            flows[orders.instrument(order) - 1].lookAtBookSize();
        }
        gone(order);
    }

    @Override
    public void restated(final int order, final long decrement, final long shownRemoved)
    {
        // Only self-trade prevention's decrement restates, and the flow does not use it.
    }

    @Override
    public void replaced(final int order, final boolean keepsPriority, final long shownBefore, final boolean crossing)
    {
        if (crossing)
        {
            leftBook(handleOf(order), order);
        }
    }

    /** A GTC order is done: out of the book and out of the orders the flow picks from. */
    private void gone(final int order)
    {
        final int handle = handleOf(order);
        if (handle <= 0)
        {
            return;
        }
        leftBook(handle, order);
        if (live.contains(handle))
        {
            live.remove(orders.instrument(order) - 1, handle);
        }
    }

    private void leftBook(final int handle, final int order)
    {
        if (resting[handle] == RESTING)
        {
            resting[handle] = NOT_RESTING;
            flows[orders.instrument(order) - 1].resting(orders.side(order), -1);
        }
    }

    /** @return the GTC handle of an order in the model's store, or 0 for an IOC. */
    private int handleOf(final int order)
    {
        final long clientOrderId = orders.clientOrderId(order);
        return clientOrderId < 0 ? 0 : (int)clientOrderId;
    }

    private void ensureHandle(final int handle)
    {
        if (handle >= slotOf.length)
        {
            final int length = slotOf.length * 2;
            slotOf = Arrays.copyOf(slotOf, length);
            replaces = Arrays.copyOf(replaces, length);
            resting = Arrays.copyOf(resting, length);
        }
    }

    // ---------------------------------------------------------------- the books' shape

    private double restingPerBook()
    {
        long total = 0;
        for (final InstrumentFlow flow : flows)
        {
            total += flow.restingBids + flow.restingAsks;
        }
        return total / (double)flows.length;
    }

    /** @return distinct price levels per book, bids and asks together, now. */
    private double levelsPerBook()
    {
        final long[] keys = new long[nextHandle];
        int count = 0;
        for (int handle = 1; handle < nextHandle; handle++)
        {
            if (resting[handle] == RESTING)
            {
                final int order = slotOf[handle];
                // instrument, side and price into one key; prices are below 2^40.
                keys[count++] = ((long)orders.instrument(order) << 42) | ((long)orders.side(order) << 40) |
                    orders.price(order);
            }
        }
        Arrays.sort(keys, 0, count);
        int levels = 0;
        for (int i = 0; i < count; i++)
        {
            if (i == 0 || keys[i] != keys[i - 1])
            {
                levels++;
            }
        }
        return levels / (double)flows.length;
    }
}
