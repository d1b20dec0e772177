package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.codecs.trading.SnapshotRequestEncoder;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.marketdata.MarketDataBooks;
import io.ringwire.exchange.marketdata.SnapshotEncoder;
import io.ringwire.exchange.marketdata.StaleBooks;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.Outbound;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.function.IntConsumer;

/**
 * A market-data subscriber: builds every book from the market-data service's stream with
 * {@link MarketDataBooks}, asks for a snapshot of everything when it joins (it may join mid-stream;
 * every book is stale until its snapshot comes) and of one book whenever it finds a gap in that
 * book's sequence, and times each order's arrival on the feed from its gateway receipt (the
 * OrderAdded's transact time, the same host clock).
 *
 * <p>Threading: one thread (the agent's).
 */
public final class MarketDataClient implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 64;
    /** Every market-data message starts its block with the instrument id (an int32). */
    private static final int INSTRUMENT_OFFSET = MessageHeaderDecoder.ENCODED_LENGTH;

    private final int requesterId;
    private final Subscription marketData;
    private final Outbound requests;
    private final MarketDataBooks books;
    private final LatencyLedger ledger;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final OrderAddedDecoder added = new OrderAddedDecoder();
    private final MessageHeaderEncoder requestHeader = new MessageHeaderEncoder();
    private final SnapshotRequestEncoder request = new SnapshotRequestEncoder();
    private final UnsafeBuffer requestBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    /** Takes a message whole: a snapshot part is longer than a frame of a small ring, and comes in fragments there. */
    private final FragmentAssembler onMarketData =
        new FragmentAssembler(this::onMarketData, SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART));
    private final IntConsumer requestSnapshot = this::requestSnapshot;
    private final StaleBooks staleBooks;
    private boolean joined;
    /** A snapshot request the service was too far behind to take: 0 for every book, -1 for none. */
    private int heldRequest = -1;
    private long snapshotRequests;

    /**
     * @param context     messaging settings.
     * @param layout      where the service and this subscriber listen.
     * @param index       this subscriber's index among the layout's market-data endpoints.
     * @param engine      the engine's configuration (sizes the books).
     * @param ledger      where market-data arrival is timed; null for none.
     * @param running     the run's flag.
     */
    public MarketDataClient(final MessagingContext context, final ExchangeLayout layout, final int index,
        final EngineConfig engine, final LatencyLedger ledger, final RunFlag running)
    {
        this.requesterId = index + 1;
        this.ledger = ledger;
        // The books first: sizing them touches their memory (a fraction of a second for a million
        // orders), which would keep the connections opened below from being answered in time.
        this.books = new MarketDataBooks(engine.instruments(), engine.maxOrders());
        this.staleBooks = new StaleBooks(engine.instruments().stream().mapToInt(InstrumentSpec::id).toArray(),
            System.nanoTime());
        Subscription subscription = null;
        Publication toService = null;
        try
        {
            subscription = Subscription.open(context, layout.marketDataClientSubscription(index),
                ExchangeLayout.MARKET_DATA_STREAM);
            toService = Publication.open(context, layout.snapshotRequestsPublication(index),
                ExchangeLayout.SNAPSHOT_REQUESTS_STREAM);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(subscription, toService);
            throw ex;
        }
        this.marketData = subscription;
        // A new image is a new start: the first one, or one after the service cut this subscriber off
        // (it then missed what went out meanwhile, in books the stream may not touch again soon).
        // Every book is stale until its snapshot: one the stream does not touch would read live and
        // wrong, and one whose request is dropped is asked for again by StaleBooks.
        subscription.availableImageHandler(sessionId ->
        {
            joined = false;
            books.feedInterrupted();
        });
        subscription.unavailableImageHandler(onMarketData::freeSessionBuffer);
        this.requests = new Outbound(toService);
    }

    @Override
    public int doWork()
    {
        int work = requests.doWork();
        if (!joined && requests.isConnected() && marketData.imageCount() > 0)
        {
            joined = true;
            requestSnapshot(0);
            staleBooks.restart(System.nanoTime());
            work++;
        }
        if (heldRequest >= 0)
        {
            final int instrument = heldRequest;
            heldRequest = -1;
            requestSnapshot(instrument);
        }
        if (joined)
        {
            work += staleBooks.poll(System.nanoTime(), books, requestSnapshot);
        }
        return work + marketData.poll(onMarketData, FRAGMENT_LIMIT);
    }

    /**
     * Housekeeping alone, reading nothing: the subscriber stays alive (its credit and liveness go
     * out) while it falls behind, as a stalled process's messaging would.
     *
     * @return work done.
     */
    public int keepAliveWithoutReading()
    {
        return requests.doWork() + marketData.doWork();
    }

    private void onMarketData(final DirectBuffer buffer, final int offset, final int length, final Header frame)
    {
        final int outcome = books.onMessage(buffer, offset, length);
        if (outcome == MarketDataBooks.GAP)
        {
            requestSnapshot(buffer.getInt(offset + INSTRUMENT_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN));
        }
        else if (outcome == MarketDataBooks.APPLIED && null != ledger)
        {
            header.wrap(buffer, offset);
            if (header.templateId() == OrderAddedDecoder.TEMPLATE_ID)
            {
                added.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
                ledger.recordMarketData(added.transactTime(), ExchangeClock.nowNs());
            }
        }
    }

    /**
     * Asks for a snapshot without waiting on the service (which may be waiting on this subscriber
     * to read the stream): one that does not fit now is held, merged into one for every book if
     * another is held already.
     */
    private void requestSnapshot(final int instrumentId)
    {
        request.wrapAndApplyHeader(requestBuffer, 0, requestHeader).instrumentId(instrumentId).requesterId(requesterId);
        final int result = requests.trySend(requestBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + request.encodedLength());
        if (result == Outbound.SENT)
        {
            snapshotRequests++;
        }
        else if (result == Outbound.RETRY)
        {
            // A DROPPED one (the request path down) is not held: its book stays stale, and StaleBooks asks again.
            heldRequest = heldRequest < 0 || heldRequest == instrumentId ? instrumentId : 0;
        }
    }

    /** @return whether the feed and the request path are connected. */
    public boolean isConnected()
    {
        return requests.isConnected() && marketData.imageCount() > 0;
    }

    /** @return the books this subscriber built. */
    public MarketDataBooks books()
    {
        return books;
    }

    /** @return snapshot requests sent. */
    public long snapshotRequests()
    {
        return snapshotRequests;
    }

    @Override
    public String roleName()
    {
        return "market-data-subscriber";
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(marketData, requests.publication());
    }
}
