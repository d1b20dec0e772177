package io.ringwire.exchange.node;

import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.journal.Journal;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Subscription;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

/**
 * The journal ahead of the engine (LMAX's input side): takes the gateway's requests, checks each
 * once ({@link MatchingEngine#check}; the engine does not check again), appends it to the
 * {@link Journal}, and hands it to the engine through {@link JournaledRequests}. A request the
 * journal refuses goes to the engine marked {@link JournaledRequests#REFUSED}, and its client gets
 * a reject, as does one that names another engine life, marked {@link JournaledRequests#OTHER_LIFE}
 * and not journaled; one that fails the check goes marked {@link JournaledRequests#MALFORMED}, to be counted
 * where the engine counts malformed requests; one longer than
 * {@link JournaledEngine#MAX_REQUEST_LENGTH} is counted here and dropped, as the engine drops it
 * where it journals itself.
 *
 * <p>It takes requests only while the engine's ring surely has room for a poll's worth (each
 * counted at its longest), so every request it takes reaches the engine; while the engine is behind, requests wait in the gateway's
 * ring, and the gateway backs off in turn. When idle it prepares the journal ahead of its appends
 * ({@link Journal#prepareAhead}): pages touched and the next segment made, so no append waits on
 * the file system.
 *
 * <p>Order of its stores: the append (payload and checksum, then the length with release), then
 * the hand-over (release), so an engine that applies a request applies one the journal holds, and
 * a process killed at any point has journaled every request the engine answered.
 *
 * <p>Threading: one thread (the agent's). Allocation-free in steady state.
 */
final class Journaller implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 16;
    /** Pages an idle call touches: a few microseconds, so a request that arrives meanwhile waits little. */
    private static final int IDLE_PAGES = 1;

    private final Subscription requests;
    private final Journal journal;
    private final JournaledRequests engineInput;
    private final FragmentHandler onRequest = this::onRequest;
    private volatile boolean taking;
    private long oversized;
    /** The engine's life: a request naming another is not journaled. */
    private final long engineLife;

    /**
     * @param requests    the gateway's requests; this agent's thread polls it from now on.
     * @param journal     open for appending, holding what the engine recovered.
     * @param engineInput the engine's ring.
     * @param taking      whether it takes requests from the start (see {@link #stopTaking()}).
     * @param engineLife  the engine's life ({@link JournaledEngine#life()}).
     */
    Journaller(final Subscription requests, final Journal journal, final JournaledRequests engineInput,
        final boolean taking, final long engineLife)
    {
        this.engineLife = engineLife;
        this.requests = requests;
        this.journal = journal;
        this.engineInput = engineInput;
        this.taking = taking;
    }

    @Override
    public int doWork()
    {
        final int work = taking && engineInput.hasRoomFor(FRAGMENT_LIMIT) ? requests.poll(onRequest, FRAGMENT_LIMIT) :
            requests.doWork();
        return work > 0 ? work : journal.prepareAhead(IDLE_PAGES);
    }

    private void onRequest(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final long takenNs = ExchangeClock.nowNs();
        if (length > JournaledEngine.MAX_REQUEST_LENGTH)
        {
            oversized++;
            return;
        }
        if (MatchingEngine.check(buffer, offset, length) < 0)
        {
            engineInput.offer(JournaledRequests.MALFORMED, takenNs, buffer, offset, length);
            return;
        }
        if (JournaledEngine.namesOtherLife(buffer, offset, length, engineLife))
        {
            engineInput.offer(JournaledRequests.OTHER_LIFE, takenNs, buffer, offset, length);
            return;
        }
        if (journal.append(buffer, offset, length) < 0)
        {
            engineInput.offer(JournaledRequests.REFUSED, takenNs, buffer, offset, length);
            return;
        }
        if (!engineInput.offer(JournaledRequests.JOURNALED, takenNs, buffer, offset, length))
        {
            // The room check before the poll makes this unreachable; were it reached, the engine
            // would no longer apply what the journal holds, so this agent stops taking requests
            // for good (its runner ends on this exception; the engine logs and keeps it).
            taking = false;
            throw new AgentTerminationException("the engine's ring refused a journaled request: the room check is wrong");
        }
    }

    /** Stops taking requests (the subscription's housekeeping goes on). Any thread. */
    void stopTaking()
    {
        taking = false;
    }

    /** @return the journal's {@link Journal#failures()} (read late from other threads). */
    long journalFailures()
    {
        return journal.failures();
    }

    /** @return requests longer than the engine takes, dropped here (read late from other threads). */
    long oversized()
    {
        return oversized;
    }

    @Override
    public String roleName()
    {
        return "journaller";
    }

    /** Closes the journal (not the subscription, which the engine's role owns). */
    @Override
    public void close()
    {
        journal.close();
    }
}
