package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.JournaledEngine;
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
import java.nio.file.Path;

/**
 * The matching engine as a role: reads the gateway's stamped requests, journals and applies each
 * ({@link JournaledEngine}), and publishes its execution reports to the gateway and its order-level
 * feed to the market-data service. Each report leaves with the engine's own two ledger times
 * stamped after the output digest took it (so the digest stays a function of the journal): when the
 * request was taken, and when the report was sent.
 *
 * <p>A request the journal refuses (a segment that cannot be made) is not applied; its client gets
 * a reject that says so ({@link JournalRefusals}), unsequenced, since no replay makes it.
 *
 * <p>The engine opens its journal ({@link #open()}) once its publications are connected: what
 * recovery replays is sent again, so after a restart the gateway receives every report the engine
 * made, and drops by sequence the ones it had (the resend from its last sequence).
 *
 * <p>Threading: one thread (the agent's), which should spin on a core of its own.
 */
public final class EngineNode implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 16;
    /** The journal's segment length when it is new: a roll is rare. */
    public static final int JOURNAL_SEGMENT = 64 << 20;

    private final Subscription requests;
    private final Outbound reports;
    private final Outbound feed;
    private final Path journal;
    private final EngineConfig config;
    private final int segmentLength;
    private JournaledEngine engine;
    private final UnsafeBuffer report = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
    private final ExecutionReportEncoder reportEncoder = new ExecutionReportEncoder();
    private final FragmentHandler onRequest = this::onRequest;
    private long takenNs;
    private volatile boolean taking = true;
    private final JournalRefusals refusals = new JournalRefusals();
    private long refused;
    private long refusalsReported;

    /**
     * Opens the engine's subscription and publications; the engine itself opens with {@link #open()}.
     *
     * @param context   messaging settings.
     * @param layout    where everything listens.
     * @param journal   the journal directory.
     * @param config    the engine's configuration (a journal that exists keeps its own, see
     *                  {@link JournaledEngine#open}).
     * @param running   the run's flag.
     */
    public EngineNode(final MessagingContext context, final ExchangeLayout layout, final Path journal,
        final EngineConfig config, final RunFlag running)
    {
        this(context, layout, journal, config, running, JOURNAL_SEGMENT);
    }

    /**
     * @param segmentLength the journal's segment length when it is new, a power of two.
     * @see #EngineNode(MessagingContext, ExchangeLayout, Path, EngineConfig, RunFlag)
     */
    public EngineNode(final MessagingContext context, final ExchangeLayout layout, final Path journal,
        final EngineConfig config, final RunFlag running, final int segmentLength)
    {
        Subscription subscription = null;
        Publication toGateway = null;
        Publication toMarketData = null;
        try
        {
            subscription = Subscription.open(context, layout.engineRequestsSubscription(),
                ExchangeLayout.REQUESTS_STREAM);
            toGateway = Publication.open(context, layout.gatewayReportsPublication(), ExchangeLayout.REPORTS_STREAM);
            toMarketData = Publication.open(context, layout.marketDataFeedPublication(), ExchangeLayout.FEED_STREAM);
            this.requests = subscription;
            this.reports = new Outbound(toGateway);
            this.feed = new Outbound(toMarketData);
            this.journal = journal;
            this.config = config;
            this.segmentLength = segmentLength;
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(subscription, toGateway, toMarketData);
            throw ex;
        }
    }

    /**
     * Opens the engine from its journal, recovering what is there and sending recovery's output
     * again. Call once the publications are connected.
     *
     * @return this.
     */
    public EngineNode open()
    {
        if (null == engine)
        {
            engine = JournaledEngine.open(journal, config, new Output(), segmentLength);
        }
        return this;
    }

    @Override
    public int doWork()
    {
        final int work = reports.doWork() + feed.doWork();
        // Before the engine opens, publications are accepted but no request is taken; while a
        // subscriber is behind, requests wait in their ring, and the gateway backs off in turn.
        if (null == engine || !taking || reports.isBehind() || feed.isBehind())
        {
            return work + requests.doWork();
        }
        return work + requests.poll(onRequest, FRAGMENT_LIMIT);
    }

    private void onRequest(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        takenNs = System.nanoTime();
        final int result = engine.accept(buffer, offset, length);
        if (result < 0)
        {
            refused++;
            if (result == JournaledEngine.JOURNAL_REFUSED)
            {
                // Not journaled, so not applied: its client waits on an answer all the same.
                final int reject = refusals.reject(buffer, offset, report, takenNs);
                if (reject > 0)
                {
                    reports.send(report, 0, reject);
                    refusalsReported++;
                }
            }
        }
    }

    /** Stops taking requests; what the engine has sent still drains. Any thread. */
    public void stopTaking()
    {
        taking = false;
    }

    /** @return whether both publications reach their subscribers. */
    public boolean isConnected()
    {
        return reports.isConnected() && feed.isConnected();
    }

    /** @return the engine, for its digest and counters. */
    public JournaledEngine engine()
    {
        return engine;
    }

    /** @return requests the engine refused (malformed, or the journal full). */
    public long refused()
    {
        return refused;
    }

    /** @return requests the journal refused whose clients were sent a reject (read late from other threads). */
    public long refusalsReported()
    {
        return refusalsReported;
    }

    /** @return reports and feed messages dropped because their subscriber was gone. */
    public long dropped()
    {
        return reports.dropped() + feed.dropped();
    }

    /** @return publications its request endpoint refused at the handshake for their identity. */
    public long identitiesRefused()
    {
        return requests.identitiesRefused();
    }

    @Override
    public String roleName()
    {
        return "engine";
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(engine, requests, reports.publication(), feed.publication());
        engine = null;
    }

    /** Sends the engine's output on: reports stamped with the engine's times, the feed as it is. */
    private final class Output implements EngineOutput
    {
        @Override
        public void executionReport(final DirectBuffer buffer, final int offset, final int length)
        {
            report.putBytes(0, buffer, offset, length);
            reportEncoder.wrap(report, MessageHeaderEncoder.ENCODED_LENGTH)
                .engineInTime(takenNs)
                .engineOutTime(System.nanoTime());
            reports.send(report, 0, length);
        }

        @Override
        public void marketData(final DirectBuffer buffer, final int offset, final int length)
        {
            feed.send(buffer, offset, length);
        }
    }
}
