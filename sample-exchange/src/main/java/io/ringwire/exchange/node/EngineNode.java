package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.engine.DigestAgent;
import io.ringwire.exchange.engine.DigestRing;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.engine.SnapshotReplica;
import io.ringwire.exchange.journal.Journal;
import io.ringwire.exchange.journal.JournalContext;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.host.OnlineCpus;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * The matching engine as a role: reads the gateway's stamped requests, journals and applies each
 * ({@link JournaledEngine}), and publishes its execution reports to the gateway and its order-level
 * feed to the market-data service. Each report leaves with the engine's own two ledger times
 * stamped after the output digest took it (so the digest stays a function of the journal): when the
 * request was taken, and when the report was sent.
 *
 * <p>A request the journal refuses (a segment that cannot be made, a full file system) is not
 * applied; its client gets a reject that says so ({@link JournalRefusals}), unsequenced, since no
 * replay makes it.
 *
 * <p>The feed to the market-data service drops what it cannot deliver; whenever the service
 * connects anew, or a feed message was dropped while it was connected, the engine sends its changed
 * books into the feed as BookSnapshots between two requests ({@link FeedSnapshots}), outside the
 * output digest, so the service's replica recovers what it missed.
 *
 * <p>Where the machine has {@value EngineThreads#JOURNALLER_MIN_CPUS} CPUs or more, the journal runs ahead of
 * the engine, in LMAX's shape: a {@link Journaller} on a thread of its own, spinning, takes the
 * gateway's requests, checks and journals each (on pages it touched ahead, into segments it made
 * ahead) and hands it on through a ring ({@link JournaledRequests}); the engine's thread applies
 * what was journaled and answers, and rejects what the journal refused. With fewer CPUs a third
 * spinning thread would take its time from the engine's, and the engine journals each request
 * itself before applying it, preparing the journal's pages and next segment when it has no request.
 *
 * <p>The engine opens its journal ({@link #open()}) once its publications are connected: what
 * recovery replays is sent again, so after a restart the gateway receives every report the engine
 * made, and drops by sequence the ones it had (the resend from its last sequence).
 *
 * <p>Where the machine has {@value EngineThreads#DIGEST_THREAD_MIN_CPUS} CPUs or more, the output digest is kept
 * off the engine's thread: the engine copies each message it sends into a {@link DigestRing}, and a
 * {@link DigestAgent} on a thread of its own, which backs off when idle, hashes it in order.
 * {@link #digest()} settles it. On two CPUs both are taken by spinning threads, and a third thread
 * with work would take its time slices from them, milliseconds at a time, where hashing inline
 * costs the engine a fraction of a microsecond a request: the engine hashes inline there. The
 * digest leaves the engine's thread only with the snapshots (the replica keeps a chain of its own
 * for them): a snapshot the engine's thread writes holds the chain at its point, which only the
 * thread that keeps the digest can read.
 *
 * <p>Where the machine has {@value EngineThreads#REPLICA_MIN_CPUS} CPUs or more, the snapshots are kept off the
 * engine's thread too: a {@link SnapshotReplica} on a thread of its own follows the journal up to
 * what the engine has applied and sent, and writes them (allocating, forcing the file) there. With
 * fewer, the replica's matching would take CPU from the spinning threads, and the engine writes its
 * snapshots itself, between requests, each once the output it covers has left the process
 * ({@link JournaledEngine#writePendingSnapshot}).
 *
 * <p>A failure on any of these threads is logged and kept ({@link #backgroundFailure()}).
 *
 * <p>Threading: one thread (the agent's), which should spin on a core of its own; the journaller's,
 * the digest's and the replica's beside it where there are, started by {@link #open()}; the
 * journaller spins where {@value EngineThreads#JOURNALLER_MIN_CPUS} CPUs allow it, the other two back off when idle.
 */
public final class EngineNode implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 16;
    /** Journal pages an idle poll prepares: a few microseconds, so a request arriving meanwhile waits little. */
    private static final int IDLE_JOURNAL_PAGES = 1;
    /** The journal's segment length when it is new: a roll is rare. */
    public static final int JOURNAL_SEGMENT = 64 << 20;
    private final Subscription requests;
    private final Outbound reports;
    private final Outbound feed;
    private final Path journal;
    private final EngineConfig config;
    private final int segmentLength;
    private JournaledEngine engine;
    /** Sends the books into the feed when a market-data service connects anew; set by open(). */
    private FeedSnapshots feedSnapshots;
    private final UnsafeBuffer report = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
    private final ExecutionReportEncoder reportEncoder = new ExecutionReportEncoder();
    private final FragmentHandler onRequest = this::onRequest;
    private long takenNs;
    private volatile boolean taking = true;
    /** Whether {@link #finishJournaled} ended the journaller: the engine's thread polls nothing more. */
    private boolean journalFinished;
    private final JournalRefusals refusals = new JournalRefusals();
    private long refused;
    private long refusalsReported;
    /** Requests that named another engine life (a gateway of an engine since replaced): refused. */
    private long otherLifeRefused;
    private final EngineThreads threads;
    private final EngineHelpers helpers;
    private final RunFlag running;
    /**
     * While recovery replays, the reports' backlog past this waits for the gateway to take some:
     * the replay makes reports faster than any gateway takes them, and a full backlog would drop
     * the last ones, which the gateway would then never get (nothing sends them again).
     */
    private final int recoveryBacklogBytes;
    /** What {@link #open(IntSupplier)} was given: the other roles' duty, run while recovery waits. */
    private IntSupplier othersDuty = () -> 0;
    private final IdleStrategy recoveryIdle = new BackoffIdleStrategy(64, 64, 1_000, 100_000);
    private final MessageHandler onJournaled = this::onJournaled;
    /** Journal records the engine has applied and answered: the replica's limit. */
    private final AtomicLong applied = new AtomicLong();

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
        this(context, layout, journal, config, running, segmentLength, EngineThreads.forCpus(OnlineCpus.count()));
    }

    /**
     * @param threads which of the engine's work runs on threads of its own.
     * @see #EngineNode(MessagingContext, ExchangeLayout, Path, EngineConfig, RunFlag)
     */
    public EngineNode(final MessagingContext context, final ExchangeLayout layout, final Path journal,
        final EngineConfig config, final RunFlag running, final int segmentLength, final EngineThreads threads)
    {
        this(context, layout, journal, config, running, segmentLength, threads, Outbound.MAX_BACKLOG);
    }

    /**
     * @param reportBacklogBytes the most the reports' backlog holds (tests: a small one).
     * @see #EngineNode(MessagingContext, ExchangeLayout, Path, EngineConfig, RunFlag)
     */
    EngineNode(final MessagingContext context, final ExchangeLayout layout, final Path journal,
        final EngineConfig config, final RunFlag running, final int segmentLength, final EngineThreads threads,
        final int reportBacklogBytes)
    {
        this.threads = threads;
        this.helpers = new EngineHelpers(threads);
        this.running = running;
        this.recoveryBacklogBytes = reportBacklogBytes / 4;
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
            // The gateway is the reports' only way on: while it is away they wait (the engine takes
            // nothing meanwhile). The feed drops instead: a market-data service that is gone must
            // not halt trading, and its subscribers recover from snapshots.
            this.reports = Outbound.holdingWhileDisconnected(toGateway, reportBacklogBytes);
            // Room for a whole snapshot of the largest book the engine can hold (a journal's own
            // configuration, where none is given, may hold as many orders as a store does).
            this.feed = new Outbound(toMarketData, FeedSnapshots.backlogBytes(
                null == config ? OrderStore.MAX_CAPACITY : config.maxOrders(), Outbound.MAX_BACKLOG));
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
     * again. Call once the publications are connected, where the gateway runs on another thread:
     * recovery waits for it to take its reports.
     *
     * @return this.
     */
    public EngineNode open()
    {
        return open(() -> 0);
    }

    /**
     * Opens the engine as {@link #open()} does, where the roles recovery waits for run on this
     * thread too.
     *
     * @param othersDuty one duty cycle of the other roles this thread drives (the gateway, market
     *                   data), run while recovery waits for the gateway to take its reports.
     * @return this.
     */
    public EngineNode open(final IntSupplier othersDuty)
    {
        if (null == engine)
        {
            this.othersDuty = othersDuty;
            // A snapshot replica writes the snapshots; without one the engine's thread does.
            final boolean engineSnapshots = !threads.replica();
            Journal appendable = null;
            try
            {
                if (threads.journaller())
                {
                    engine = JournaledEngine.recover(journal, config, new Output(), engineSnapshots);
                    appendable = openForJournaller();
                }
                else
                {
                    engine = JournaledEngine.open(journal, config, new Output(), segmentLength, engineSnapshots);
                }
                // Before the helpers start: nothing after them may fail and leave them running.
                feedSnapshots = new FeedSnapshots(engine.engine(), feed, engine.life());
                helpers.start(engine, journal, applied, appendable, requests, taking);
            }
            catch (final RuntimeException | Error ex)
            {
                // Nothing half-open stays behind: the journal's lock goes, and open() may be tried
                // again; the helpers that started stopped (doWork, which runs before a successful
                // open too, would take one still set for running beside an engine that is gone).
                CloseHelper.quietCloseAll(appendable, engine);
                engine = null;
                throw ex;
            }
        }
        return this;
    }

    /**
     * Sets where the threads of the engine's helpers come from: a test makes one fail, as starting a
     * thread can (no memory for its stack, a process's thread limit). Before {@link #open()}.
     *
     * @param factory makes each helper's thread.
     * @return this.
     */
    EngineNode helperThreads(final ThreadFactory factory)
    {
        helpers.threadFactory(factory);
        return this;
    }

    /** @return the journal, open for appending at the end the engine recovered to. */
    private Journal openForJournaller()
    {
        final Journal opened = Journal.open(new JournalContext().directory(journal).segmentLength(segmentLength)
            .maxPayloadLength(JournaledEngine.MAX_REQUEST_LENGTH).conclude());
        engine.requireWhole(opened);
        return opened;
    }

    @Override
    public int doWork()
    {
        final long nowNs = System.nanoTime(); // one clock read for both publications' duty cycles
        int work = reports.doWork(nowNs) + feed.doWork(nowNs);
        // A market-data service that connected anew gets the books before the next request's changes.
        work += null == engine ? 0 : feedSnapshots.doWork();
        // Before the engine opens, publications are accepted but no request is taken; while a
        // subscriber is behind, requests wait in their ring (or the journaller's), and the gateway
        // backs off in turn.
        final boolean outputKeepsUp = !reports.isBehind() && !feed.isBehind();
        if (null != helpers.journaled() && !journalFinished)
        {
            work += outputKeepsUp ? helpers.journaled().read(onJournaled, FRAGMENT_LIMIT) : 0;
        }
        else if (null == engine || !taking || !outputKeepsUp)
        {
            work += requests.doWork();
        }
        else
        {
            final int taken = requests.poll(onRequest, FRAGMENT_LIMIT);
            work += taken > 0 ? taken : engine.prepareJournal(IDLE_JOURNAL_PAGES);
        }
        publishSent();
        return work + (null == engine ? 0 : engine.writePendingSnapshot());
    }

    /**
     * Tells the replica how far the engine's output has left: the records applied, once no report
     * or feed message waits in a backlog (which a kill would lose, and which only a replay from an
     * earlier snapshot sends again).
     */
    private void publishSent()
    {
        if (null != helpers.replica() && outputLeft())
        {
            applied.lazySet(engine.applied());
        }
    }

    /**
     * @return whether everything the engine has made has left: no report or feed message waits,
     *         and no report was ever dropped. A dropped report (its backlog past its bound) is sent
     *         again only by a replay from a snapshot taken before it, so from then on no snapshot
     *         is taken in this run, and the next start sends it.
     */
    private boolean outputLeft()
    {
        return !reports.isBehind() && !feed.isBehind() && reports.dropped() == 0;
    }

    private void onRequest(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        takenNs = ExchangeClock.nowNs();
        if (length > JournaledEngine.MAX_REQUEST_LENGTH)
        {
            refused++; // as the journaller drops it, so the output is the same whichever thread journals
            return;
        }
        final int result = engine.accept(buffer, offset, length);
        if (result < 0)
        {
            refused++;
            if (result == JournaledEngine.JOURNAL_REFUSED)
            {
                rejectUnjournaled(buffer, offset, RejectReason.JOURNAL_REFUSED);
            }
            else if (result == JournaledEngine.OTHER_LIFE)
            {
                otherLifeRefused++;
                rejectUnjournaled(buffer, offset, RejectReason.OTHER_ENGINE_LIFE);
            }
        }
    }

    /** A request the journaller handed on: applied, rejected as the journal refused it, or counted as malformed. */
    private void onJournaled(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        takenNs = buffer.getLong(index + JournaledRequests.TAKEN_NS_OFFSET);
        final int offset = index + JournaledRequests.REQUEST_OFFSET;
        final int requestLength = length - JournaledRequests.REQUEST_OFFSET;
        if (type == JournaledRequests.JOURNALED)
        {
            engine.applyJournaled(buffer, offset, requestLength);
            return;
        }
        refused++;
        if (type == JournaledRequests.REFUSED)
        {
            rejectUnjournaled(buffer, offset, RejectReason.JOURNAL_REFUSED);
        }
        else if (type == JournaledRequests.OTHER_LIFE)
        {
            otherLifeRefused++;
            rejectUnjournaled(buffer, offset, RejectReason.OTHER_ENGINE_LIFE);
        }
        else
        {
            engine.engine().apply(buffer, offset, requestLength); // fails the check: counts it, changes nothing
        }
    }

    /**
     * Not journaled, so not applied: its client waits on an answer all the same (and a gateway of
     * another engine life learns from it that the engine was replaced).
     */
    private void rejectUnjournaled(final DirectBuffer buffer, final int offset, final RejectReason reason)
    {
        final int reject = refusals.reject(buffer, offset, report, takenNs, engine.life(), reason);
        if (reject > 0)
        {
            if (reports.send(report, 0, reject))
            {
                refusalsReported++; // one the outbound dropped is counted there
            }
        }
    }

    /**
     * Stops taking requests; what the journaller took is still applied, and what the engine has
     * sent still drains. Any thread (after {@link #open()} where a journaller runs).
     */
    public void stopTaking()
    {
        taking = false;
        if (null != helpers.journaller())
        {
            helpers.journaller().stopTaking();
        }
    }

    /**
     * Ends the run's input for good: stops taking requests, ends the journaller's thread, then
     * applies every request it journaled that the engine has not, whether or not the output keeps
     * up. So the engine's digest covers everything the journal holds, as {@code exchange replay}'s
     * does; their reports go as usual, and one that cannot (past its backlog's bound, or held for a
     * gateway that does not come back before the process ends) goes again at the next start, from
     * the journal. The requests subscription's housekeeping goes on in {@link #doWork()}. On the
     * engine's thread, or once it stopped; where no journaller runs there is nothing to apply.
     * Called again (a request that threw part way), it applies what is left.
     *
     * <p>A journaller that ended on its own failure (its ring refused a journaled request, which
     * its room check rules out) leaves that one request in the journal and not in the ring: the
     * failure is kept ({@link #backgroundFailure()}), and the digest then differs from replay's.
     *
     * @return requests applied (or rejected as refused) here.
     */
    public int finishJournaled()
    {
        stopTaking();
        if (null == engine || null == helpers.journaled())
        {
            return 0;
        }
        helpers.stopJournaller();
        journalFinished = true;
        int applied = 0;
        for (int read; (read = helpers.journaled().read(onJournaled, FRAGMENT_LIMIT)) > 0; )
        {
            applied += read;
        }
        return applied;
    }

    /** @return whether the journaller handed on requests the engine has not yet applied (any thread, late). */
    boolean journaledWaiting()
    {
        return null != helpers.journaled() && !helpers.journaled().isEmpty();
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

    /**
     * The digest of everything the engine sent, as {@code exchange replay} prints it for the same
     * journal. Call once the engine's thread has stopped: this stops the digest's thread, digests
     * what its ring still holds on the calling thread, and from then on the engine digests inline,
     * on whichever thread drives it.
     *
     * @return the digest, or null before {@link #open()}.
     */
    public String digest()
    {
        if (null == engine)
        {
            return null;
        }
        helpers.settleDigest(engine);
        return engine.digest();
    }

    /**
     * @return the first failure of the journaller's, the digest's or the replica's thread, or null.
     *         A failure on the digest's thread leaves {@link #digest()} {@code broken}.
     */
    public Throwable backgroundFailure()
    {
        return helpers.failure();
    }

    /** @return whether a journaller, where one runs, spins (the machine has the CPUs for it) or backs off. */
    public static boolean journallerSpins()
    {
        return OnlineCpus.count() >= EngineThreads.JOURNALLER_MIN_CPUS;
    }

    /** @return which of the engine's work runs on threads of its own. */
    public EngineThreads threads()
    {
        return threads;
    }

    /** @return snapshots written since open, by the replica or the engine (any thread, late). */
    public long snapshotsTaken()
    {
        final SnapshotReplica replica = helpers.replica();
        return null != replica ? replica.snapshotsTaken() : null == engine ? 0 : engine.snapshotsTaken();
    }

    /** @return snapshots that could not be written, by the replica or the engine (any thread, late). */
    public long snapshotFailures()
    {
        final SnapshotReplica replica = helpers.replica();
        return null != replica ? replica.snapshotFailures() : null == engine ? 0 : engine.snapshotFailures();
    }

    /**
     * @return 1 when recovery found the journal's last record torn (a write the process died in) and
     *         left it unapplied, else 0.
     */
    public long tornTailsDiscarded()
    {
        return null != engine && null != engine.recovery() && engine.recovery().tornTail() ? 1 : 0;
    }

    /** @return messages the digest's thread has hashed (any thread, late). */
    public long digestedMessages()
    {
        return helpers.digestedMessages();
    }

    /**
     * @return writes to the digest's thread dropped once that thread failed (its digest {@code broken});
     *         the engine's thread, or late.
     */
    public long digestWritesDropped()
    {
        return helpers.digestWritesDropped();
    }

    /**
     * @return requests the engine refused: malformed, the journal full, or naming another engine life
     *         ({@link #otherLifeRefused}); read late from other threads.
     */
    public long refused()
    {
        final Journaller journaller = helpers.journaller();
        return refused + (null == journaller ? 0 : journaller.oversized());
    }

    /**
     * @return the journal's failures: segments not made at a roll, writes the file system refused,
     *         refusals met preparing pages and segments ahead (read late from other threads; each
     *         also logged with its cause).
     */
    public long journalFailures()
    {
        final Journaller journaller = helpers.journaller();
        return null == journaller ? engine.journalFailures() : journaller.journalFailures();
    }

    /**
     * @return requests not journaled (the journal refused them, or they named another engine life)
     *         whose clients were sent a reject; read late from other threads.
     */
    public long refusalsReported()
    {
        return refusalsReported;
    }

    /**
     * @return requests refused, unjournaled, for naming an engine life other than this engine's
     *         (their gateway serves an engine since replaced on a new journal); each answered.
     */
    public long otherLifeRefused()
    {
        return otherLifeRefused;
    }

    /**
     * @return book snapshots handed to the feed for market-data services that connected anew (or
     *         after a drop); see {@link FeedSnapshots#booksSent}.
     */
    public long feedSnapshotsSent()
    {
        return null == feedSnapshots ? 0 : feedSnapshots.booksSent();
    }

    /** @return whether reports wait in their backlog: the gateway is behind, and the engine takes no request. */
    boolean reportsBehind()
    {
        return reports.isBehind();
    }

    /** @return reports and feed messages dropped because their subscriber was gone. */
    public long dropped()
    {
        return reports.dropped() + feed.dropped();
    }

    /**
     * @return feed messages that found the market-data service behind: the engine takes no request
     *         while one waits.
     */
    public long feedBackPressured()
    {
        return feed.backPressured();
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
        if (null != engine)
        {
            helpers.settleDigest(engine); // the engine's close reports the final digest to its listener
        }
        try
        {
            helpers.stop();
        }
        finally
        {
            // Whatever a helper's stop threw, the journal's lock and the publications are let go.
            CloseHelper.quietCloseAll(engine, requests, reports.publication(), feed.publication());
            engine = null;
        }
    }

    /**
     * Recovery's wait for the gateway to take its reports down to half the bound (the run stopping
     * ends it: what waits is sent again at the next start). The gateway away holds them meanwhile.
     */
    private void awaitGateway()
    {
        recoveryIdle.reset();
        while (reports.backlogBytes() > recoveryBacklogBytes / 2 && running.isRunning())
        {
            // The request subscription's housekeeping too: the gateway's link stays alive meanwhile.
            recoveryIdle.idle(reports.doWork() + feed.doWork() + requests.doWork() + othersDuty.getAsInt());
        }
    }

    /** Sends the engine's output on: reports stamped with the engine's life and times, the feed as it is. */
    private final class Output implements EngineOutput
    {
        private long life;

        @Override
        public void engineLife(final long life)
        {
            this.life = life;
        }

        @Override
        public void executionReport(final DirectBuffer buffer, final int offset, final int length)
        {
            report.putBytes(0, buffer, offset, length);
            reportEncoder.wrap(report, MessageHeaderEncoder.ENCODED_LENGTH)
                .engineInTime(takenNs)
                .engineOutTime(ExchangeClock.nowNs())
                .engineLife(life);
            reports.send(report, 0, length);
            // The engine is null until open()'s replay returns: this is recovery's output.
            if (null == engine && reports.backlogBytes() > recoveryBacklogBytes)
            {
                awaitGateway();
            }
        }

        @Override
        public void marketData(final DirectBuffer buffer, final int offset, final int length)
        {
            feed.send(buffer, offset, length);
        }

        @Override
        public boolean isSent()
        {
            return outputLeft();
        }
    }
}
