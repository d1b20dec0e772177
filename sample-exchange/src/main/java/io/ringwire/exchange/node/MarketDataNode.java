package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.marketdata.MarketDataBooks;
import io.ringwire.exchange.marketdata.SnapshotEncoder;
import io.ringwire.exchange.marketdata.SnapshotSchedule;
import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The market-data service as a role: reads the engine's order-level feed, keeps a replica of every
 * book from it ({@link MarketDataBooks}), and publishes the feed to every market-data subscriber
 * (one publication, one destination each: fan-out). A subscriber that joins late or finds a gap
 * asks for snapshots; the service answers in-band on the same stream, so each snapshot sits
 * exactly between the incrementals it includes and the ones after it, and one snapshot answers
 * every request for its book ({@link SnapshotSchedule}: at most one per book per interval, however
 * many subscribers ask how often). The replica itself recovers from the engine: whenever the
 * service connects anew, the engine sends a snapshot of every book into the feed
 * ({@link FeedSnapshots}), which the replica takes (a book that missed changes) or ignores, and
 * which go on to the subscribers, who do the same; a request for a book the replica has stale waits
 * until it is live again. A snapshot that names another engine life (an engine restarted on a new
 * journal) makes every book stale and empty, here and at every subscriber, until that life's
 * snapshots of it arrive. A subscriber that stops
 * reading holds the fan-out back until the slow-timeout cuts it off
 * ({@link ExchangeLayout#MARKET_DATA_SLOW_TIMEOUT_MS}); meanwhile the service keeps reading the
 * feed into its backlog, so the engine never waits on a subscriber. The backlog grows for that
 * (allocating, past its first megabyte) and is reused once drained. A subscriber that reads, but
 * slower than the feed, escapes the timeout (it reads a ring in time) and would hold the fan-out
 * back for ever: each time the backlog grows by another {@link #BACKLOG_STEP} from its lowest since
 * the last cut, the service cuts the subscriber that has held the fan-out back the longest without
 * a break ({@link Publication#disconnectSlowestSubscriber}), none where every one of several holds
 * it back. Past {@link #FEED_STOP_STEPS_QUARTERS} quarter steps the service stops reading the feed,
 * and the engine waits; while it waits the service cuts the slowest again every
 * {@link #STOPPED_CUT_INTERVAL_NS}, even where every one holds it back, so that only a service too
 * slow itself keeps the engine waiting.
 *
 * <p>Threading: one thread (the agent's).
 */
public final class MarketDataNode implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 32;
    /**
     * How far the backlog may grow, from its lowest since the last cut, before the service cuts the
     * subscriber holding the fan-out back the longest.
     */
    static final int BACKLOG_STEP = 32 << 20;
    /**
     * The backlog, in quarters of a step, past which the service stops reading the feed: just
     * below a power of two, so that the backlog's buffer, which doubles as it grows, stops at 128 MiB.
     */
    static final int FEED_STOP_STEPS_QUARTERS = 15;
    /** While the feed is not read, how often the service cuts the subscriber holding it back the longest. */
    static final long STOPPED_CUT_INTERVAL_NS = 100_000_000L;

    private final Subscription feed;
    private final Subscription snapshotRequests;
    private final Outbound marketData;
    private final MarketDataBooks replica;
    private final SnapshotSchedule snapshots;
    private final UnsafeBuffer snapshotBuffer;
    /**
     * Takes a feed message whole: a snapshot part is longer than a frame of a small ring, and comes
     * in fragments there.
     */
    private final FragmentAssembler onFeed =
        new FragmentAssembler(this::onFeed, SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART));
    private final FragmentHandler onSnapshotRequest = this::onSnapshotRequest;
    private final SnapshotEncoder.PartSink sendPart;
    private final long backlogStep;
    private final long feedStopBacklog;
    /** The backlog past which the service next cuts the subscriber holding the fan-out back the longest. */
    private long cutAtBacklog;
    /** Set at construction as if a cut had just gone by the stopped interval: the first is not held. */
    private long lastCutNs = System.nanoTime() - STOPPED_CUT_INTERVAL_NS;
    private long snapshotParts;
    /** Parts of the service's own snapshots waiting at the front of the fan-out's backlog. */
    private int snapshotPartsWaiting;
    private long engineSnapshotParts;
    private final MessageHeaderDecoder feedHeader = new MessageHeaderDecoder();
    private long backlogCuts;

    /**
     * @param context messaging settings.
     * @param layout  where everything listens.
     * @param engine  the engine's configuration (instruments and order capacity size the replica).
     * @param running the run's flag.
     */
    public MarketDataNode(final MessagingContext context, final ExchangeLayout layout, final EngineConfig engine,
        final RunFlag running)
    {
        this(context, layout, engine, running, BACKLOG_STEP);
    }

    /**
     * @param backlogStep the backlog's growth at which it cuts the subscribers holding it back
     *                    ({@link #BACKLOG_STEP}; tests make it small).
     */
    MarketDataNode(final MessagingContext context, final ExchangeLayout layout, final EngineConfig engine,
        final RunFlag running, final int backlogStep)
    {
        if (backlogStep <= 0 || backlogStep > BACKLOG_STEP)
        {
            throw new IllegalArgumentException("backlog step " + backlogStep + " out of (0, " + BACKLOG_STEP + "]");
        }
        this.backlogStep = backlogStep;
        this.feedStopBacklog = (long)backlogStep * FEED_STOP_STEPS_QUARTERS / 4;
        this.cutAtBacklog = backlogStep;
        // The books first: sizing them touches their memory (a fraction of a second for a million
        // orders), which would keep the connections opened below from being answered in time.
        // The engine's capacity, and no stale book's orders kept: the live books then always fit.
        this.replica = new MarketDataBooks(engine.instruments(), engine.maxOrders(), false);
        Subscription fromEngine = null;
        Subscription requests = null;
        Publication toSubscribers = null;
        try
        {
            fromEngine = Subscription.open(context, layout.marketDataFeedSubscription(), ExchangeLayout.FEED_STREAM);
            requests = Subscription.open(context, layout.snapshotRequestsSubscription(),
                ExchangeLayout.SNAPSHOT_REQUESTS_STREAM);
            toSubscribers = Publication.open(context, layout.marketDataPublication(), ExchangeLayout.MARKET_DATA_STREAM);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(fromEngine, requests, toSubscribers);
            throw ex;
        }
        this.feed = fromEngine;
        fromEngine.unavailableImageHandler(onFeed::freeSessionBuffer);
        // A new image may start mid-stream (the service or the engine restarted): every replica
        // book is stale, and no request for it is answered, until the engine's round of snapshots
        // that every new connection of the feed starts reaches it.
        fromEngine.availableImageHandler(sessionId -> replica.feedInterrupted());
        this.snapshotRequests = requests;
        this.marketData = new Outbound(toSubscribers, fanOutBacklogBytes(engine.maxOrders()));
        final SnapshotEncoder encoder = new SnapshotEncoder(replica, SnapshotEncoder.MAX_ORDERS_PER_PART);
        this.snapshots = new SnapshotSchedule(replica, encoder);
        this.snapshotBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(encoder.maxPartLength()));
        // A snapshot starts only on an empty backlog, so the parts of one that wait are the
        // backlog's first messages: counted as they go, not as they are queued, since a part
        // still waiting when the last subscriber leaves is dropped.
        this.sendPart = (buffer, offset, length) ->
        {
            final long sentBefore = marketData.sent();
            if (marketData.send(buffer, offset, length))
            {
                if (marketData.sent() != sentBefore)
                {
                    snapshotParts++;
                }
                else
                {
                    snapshotPartsWaiting++;
                }
            }
        };
        marketData.backlogListener(sent ->
        {
            if (snapshotPartsWaiting > 0)
            {
                snapshotPartsWaiting--;
                snapshotParts += sent ? 1 : 0;
            }
        });
    }

    @Override
    public int doWork()
    {
        int work = marketData.doWork();
        final long backlog = marketData.backlogBytes();
        final boolean feedStopped = backlog > feedStopBacklog;
        if (backlog > cutAtBacklog || (feedStopped && System.nanoTime() - lastCutNs > STOPPED_CUT_INTERVAL_NS))
        {
            // Grown by a step from its lowest (or the engine waiting): the subscriber holding the
            // fan-out back without a break is slower than the feed, however steadily it reads.
            // One found no one to cut (none held the fan-out back long enough yet): asked again next
            // cycle, the step not spent on it. While the engine waits, a subscriber is cut even when
            // every one holds the fan-out back (as several steadily slow ones do): only the service's
            // own pace may keep the engine waiting.
            if (marketData.publication().disconnectSlowestSubscriber(feedStopped) == 1)
            {
                backlogCuts++;
                cutAtBacklog = backlog + backlogStep;
                lastCutNs = System.nanoTime();
                work++;
            }
        }
        else if (backlog + backlogStep < cutAtBacklog)
        {
            cutAtBacklog = backlog + backlogStep; // a draining backlog: growth counts from its lowest
        }
        final int feedWork = feedStopped ? feed.doWork() : feed.poll(onFeed, FRAGMENT_LIMIT);
        final int requestWork = snapshotRequests.poll(onSnapshotRequest, FRAGMENT_LIMIT);
        // Snapshots, large and asked for at will, wait until the fan-out keeps up.
        final int snapshotWork = !snapshots.hasWanted() || marketData.isBehind() ? 0 :
            snapshots.sendDue(System.nanoTime(), snapshotBuffer, 0, sendPart);
        return work + feedWork + requestWork + snapshotWork;
    }

    private void onFeed(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if (replica.onMessage(buffer, offset, length) == MarketDataBooks.MALFORMED)
        {
            // Counted by the replica (feedMalformed in the REPORT): what fails the validator is the engine's
            // fault, and passing it on would have every subscriber count it as its own.
            return;
        }
        if (feedHeader.wrap(buffer, offset).templateId() == BookSnapshotDecoder.TEMPLATE_ID)
        {
            engineSnapshotParts++;
        }
        // The engine's snapshots go on too: a subscriber's book that missed what the replica missed
        // (a drop in the feed) takes them as the replica does, with no request of its own.
        marketData.send(buffer, offset, length);
    }

    private void onSnapshotRequest(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        snapshots.request(buffer, offset, length);
    }

    /** @return whether a subscriber's destination is connected. */
    public boolean isConnected()
    {
        return marketData.isConnected();
    }

    /** @return the service's replica of the books. */
    public MarketDataBooks replica()
    {
        return replica;
    }

    /** @return feed messages published to the subscribers (the engine's snapshot parts among them). */
    public long published()
    {
        return marketData.sent() - snapshotParts;
    }

    /** @return parts of the engine's snapshots taken from the feed (and published, among the feed's messages). */
    public long engineSnapshotParts()
    {
        return engineSnapshotParts;
    }

    /**
     * @return messages the fan-out let go (no subscriber connected, or its backlog full): feed
     *         messages and snapshot parts alike.
     */
    public long dropped()
    {
        return marketData.dropped();
    }

    /** @return snapshot parts published. */
    public long snapshotParts()
    {
        return snapshotParts;
    }

    /**
     * @return subscribers cut off for holding the fan-out back: past its slow-timeout, or as the
     *         backlog grew ({@link #backlogCuts()}).
     */
    public long slowSubscribers()
    {
        return marketData.publication().slowSubscribers();
    }

    /**
     * @return subscribers cut off because the backlog behind the fan-out grew by a step while they
     *         held it back, or held it back while the feed was not read.
     */
    public long backlogCuts()
    {
        return backlogCuts;
    }

    /** @return snapshot requests that were not well-formed. */
    public long badRequests()
    {
        return snapshots.badRequests();
    }

    /** @return well-formed snapshot requests taken. */
    public long snapshotRequests()
    {
        return snapshots.requests();
    }

    /** @return book snapshots sent, each answering every request for its book since the last. */
    public long booksSnapshotted()
    {
        return snapshots.booksSent();
    }

    /** @return publications its feed and snapshot-request endpoints refused at the handshake for their identity. */
    public long identitiesRefused()
    {
        return feed.identitiesRefused() + snapshotRequests.identitiesRefused();
    }

    @Override
    public String roleName()
    {
        return "market-data";
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(feed, snapshotRequests, marketData.publication());
    }

    /**
     * The fan-out's backlog: room for what one call of the snapshot schedule sends onto an empty
     * backlog, {@link SnapshotSchedule#BOOKS_PER_CALL} books, which hold at most every order the
     * engine does (each book's last part may be short: a part's worth more each), as the engine's
     * feed has room for its round's book. A backlog that cut a snapshot would drop its last part,
     * and the book it answers for would never go live at any subscriber however often it asked.
     *
     * @param maxOrders the most orders the engine, and so the replica, holds.
     * @return bytes of backlog, a power of two, at least {@link Outbound#MAX_BACKLOG}.
     */
    static int fanOutBacklogBytes(final int maxOrders)
    {
        return FeedSnapshots.backlogBytes(
            maxOrders + SnapshotSchedule.BOOKS_PER_CALL * SnapshotEncoder.MAX_ORDERS_PER_PART, Outbound.MAX_BACKLOG);
    }
}
