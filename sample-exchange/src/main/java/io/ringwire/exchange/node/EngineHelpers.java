package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.DigestAgent;
import io.ringwire.exchange.engine.DigestRing;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.engine.SnapshotReplica;
import io.ringwire.exchange.journal.Journal;
import io.ringwire.messaging.Subscription;
import org.agrona.LangUtil;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.nio.file.Path;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The threads beside the engine's, as {@link EngineThreads} says: the snapshot replica's, the
 * output digest's and the journaller's (see {@link EngineNode} for when each runs). They start
 * together ({@link #start}), where a failure part way stops those that started and forgets them all,
 * and stop together ({@link #stop}), the digest's apart ({@link #settleDigest}) and the journaller's
 * thread earlier where a clean stop ends it ({@link #stopJournaller}), after which the engine's
 * thread drives the requests subscription. A failure on any of them later is logged and kept
 * ({@link #failure()}).
 *
 * <p>Threading: {@link #start}, {@link #stop}, {@link #settleDigest} and the getters of the helpers
 * on the engine's thread (or the one that opens and closes it); the counters from any thread, late.
 */
final class EngineHelpers
{
    /**
     * The digest ring's bytes: tens of milliseconds of the engine's output at a million requests a
     * second, so a digest thread that was parked or descheduled catches up without holding the engine.
     */
    static final int DIGEST_RING_BYTES = 16 << 20;
    /** The ring from the journaller to the engine: milliseconds of requests at a million a second. */
    static final int JOURNALED_REQUESTS_BYTES = 4 << 20;
    private static final System.Logger LOG = System.getLogger(EngineHelpers.class.getName());

    private final EngineThreads threads;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Where the helpers' threads come from (tests: one that fails, as a thread start can). */
    private ThreadFactory threadFactory = Thread::new;
    private SnapshotReplica replica;
    private AgentRunner replicaRunner;
    private DigestAgent digestAgent;
    private DigestRing digestRing;
    private AgentRunner digestRunner;
    private JournaledRequests journaled;
    private Journaller journaller;
    private AgentRunner journallerRunner;
    /** Whether {@link #stopJournaller} ended the journaller's thread (its journal stays open until {@link #stop}). */
    private boolean journallerStopped;

    /**
     * @param threads which helpers run.
     */
    EngineHelpers(final EngineThreads threads)
    {
        this.threads = threads;
    }

    /**
     * @param factory makes each helper's thread.
     */
    void threadFactory(final ThreadFactory factory)
    {
        threadFactory = factory;
    }

    /**
     * Starts the helpers {@link EngineThreads} names. Where one fails to start, those that
     * started are stopped and all are forgotten before the failure goes on: nothing is taken for
     * running beside an engine that did not open.
     *
     * @param engine     the engine, recovered.
     * @param journal    its journal directory, which the replica follows.
     * @param applied    the records the engine has applied and sent: the replica's limit.
     * @param appendable the journal open for appending, which the journaller takes; null for none.
     * @param requests   the gateway's requests, which the journaller polls from now on (until
     *                   {@link #stopJournaller}).
     * @param taking     whether requests are taken (false once the node stopped taking).
     */
    void start(final JournaledEngine engine, final Path journal, final AtomicLong applied, final Journal appendable,
        final Subscription requests, final boolean taking)
    {
        try
        {
            if (threads.replica())
            {
                // The replica's limit stays below what recovery sent again until the node sees that
                // output leave: a replayed report still in a backlog is one a kill would lose.
                replica = new SnapshotReplica(journal, applied);
                replicaRunner = new AgentRunner(new BackoffIdleStrategy(64, 64, 1_000, 1_000_000),
                    ex -> failed("the snapshot replica", ex), null, replica);
                AgentRunner.startOnThread(replicaRunner, threadFactory);
            }
            if (threads.digest())
            {
                // Recovery digested what it replayed on this thread; from here the digest's thread does.
                final DigestRing ring = new DigestRing(DIGEST_RING_BYTES);
                digestRing = ring;
                digestAgent = new DigestAgent(ring, engine.engine().digest());
                engine.engine().feedDigest(ring);
                digestRunner = new AgentRunner(new BackoffIdleStrategy(64, 64, 1_000, 100_000),
                    ex -> failed("the output digest", ex), null, digestAgent);
                AgentRunner.startOnThread(digestRunner, threadFactory);
            }
            if (null != appendable)
            {
                journaled = new JournaledRequests(JOURNALED_REQUESTS_BYTES);
                journaller = new Journaller(requests, appendable, journaled, taking, engine.life());
                // Spinning where the CPUs were counted for it; forced on a smaller machine, it backs off.
                final IdleStrategy idle = EngineNode.journallerSpins() ? new BusySpinIdleStrategy() :
                    new BackoffIdleStrategy(64, 64, 1_000, 100_000);
                journallerRunner = new AgentRunner(idle, ex -> failed("the journaller", ex), null, journaller);
                AgentRunner.startOnThread(journallerRunner, threadFactory);
            }
        }
        catch (final RuntimeException | Error ex)
        {
            try
            {
                stop();
            }
            catch (final Throwable stopFailure)
            {
                ex.addSuppressed(stopFailure); // the start's failure is the one to tell
            }
            replica = null;
            digestAgent = null;
            digestRing = null;
            journaled = null;
            journaller = null;
            throw ex;
        }
    }

    /**
     * Stops the journaller's thread (which polls the requests, closed after it) and closes its
     * journal, and stops the replica's; the digest's is settled apart ({@link #settleDigest}), or
     * stopped here where it was not.
     */
    void stop()
    {
        // Each close runs whatever an earlier one threw (no helper's thread outlives the engine);
        // the first failure goes on, the later ones suppressed in it.
        Throwable failure = null;
        if (null != journallerRunner)
        {
            final AgentRunner runner = journallerRunner;
            journallerRunner = null;
            failure = close(null, journallerStopped ? null : runner);
            journallerStopped = false;
            failure = close(failure, journaller);
        }
        if (null != replicaRunner)
        {
            final AgentRunner runner = replicaRunner;
            replicaRunner = null;
            failure = close(failure, runner);
            failure = close(failure, replica);
        }
        if (null != digestRunner)
        {
            final AgentRunner runner = digestRunner;
            digestRunner = null;
            failure = close(failure, runner);
        }
        if (null != failure)
        {
            LangUtil.rethrowUnchecked(failure);
        }
    }

    /** @return the earlier failure (this one suppressed in it), this close's, or null. */
    private static Throwable close(final Throwable earlier, final AutoCloseable closeable)
    {
        if (null == closeable)
        {
            return earlier;
        }
        try
        {
            closeable.close();
            return earlier;
        }
        catch (final Throwable ex)
        {
            if (null == earlier)
            {
                return ex;
            }
            earlier.addSuppressed(ex);
            return earlier;
        }
    }

    /**
     * Ends the journaller's thread, its journal left open until {@link #stop}. Once this returns,
     * every request the journaller took is in {@link #journaled()}'s ring and no more come; the
     * requests subscription is the caller's to drive from then on.
     *
     * @return whether it ended one (false where none runs, or it ended already).
     */
    boolean stopJournaller()
    {
        if (null == journallerRunner || journallerStopped)
        {
            return false;
        }
        journallerStopped = true;
        journallerRunner.close();
        return true;
    }

    /**
     * Stops the digest's thread, digests what its ring still holds on the calling thread, and has
     * the engine digest inline from then on.
     *
     * @param engine the engine whose digest the thread kept.
     */
    void settleDigest(final JournaledEngine engine)
    {
        if (null != digestRunner)
        {
            digestRunner.close();
            digestRunner = null;
            digestAgent.drain();
            engine.engine().feedDigest(engine.engine().digest());
        }
    }

    /** @return the journaller, or null where none runs. */
    Journaller journaller()
    {
        return journaller;
    }

    /** @return the ring the journaller hands the engine its requests through, or null where none runs. */
    JournaledRequests journaled()
    {
        return journaled;
    }

    /** @return the snapshot replica, or null where none runs. */
    SnapshotReplica replica()
    {
        return replica;
    }

    /** @return messages the digest's thread has hashed (any thread, late). */
    long digestedMessages()
    {
        return null == digestAgent ? 0 : digestAgent.messages();
    }

    /**
     * @return the engine's output the digest ring dropped once its thread failed (the digest says
     *         {@code broken} then); the engine's thread, or late.
     */
    long digestWritesDropped()
    {
        return null == digestRing ? 0 : digestRing.dropped();
    }

    /** @return the first failure of a helper's thread, or null (any thread). */
    Throwable failure()
    {
        return failure.get();
    }

    /** Logs the first failure of a helper's thread and keeps it; later ones repeat it. */
    private void failed(final String what, final Throwable ex)
    {
        if (failure.compareAndSet(null, ex))
        {
            LOG.log(System.Logger.Level.ERROR, "engine: " + what + " failed", ex);
        }
    }
}
