package io.ringwire.exchange.fix;

import java.util.concurrent.atomic.AtomicLong;

/**
 * ExecIDs (17) for the reports the engine does not number: the gateway's rejects (their SBE
 * report's execId is 0) and the door's own refusals. FIX wants an ExecID that no other report of
 * the session carries, and a session outlives a door's process (its sequence numbers and sent
 * messages are kept in the store), so each is the door's start in milliseconds (base 36) and a
 * count, {@code R<start>-<n>}: never one of an earlier process, nor one of the engine's, which are
 * all digits.
 *
 * <p>Threading: any thread (QuickFIX/J's and the door's sender).
 */
public final class FixExecIds
{
    private final String prefix;
    private final AtomicLong count = new AtomicLong();

    /**
     * @param startEpochMs when the door started, in milliseconds since the epoch.
     */
    public FixExecIds(final long startEpochMs)
    {
        prefix = "R" + Long.toString(startEpochMs, 36) + "-";
    }

    /**
     * @param engineExecId an SBE report's execId: the engine's number, or 0 where the gateway sent it.
     * @return the engine's number, or a new ExecID of the door's where there is none.
     */
    public String of(final long engineExecId)
    {
        return engineExecId != 0 ? Long.toString(engineExecId) : next();
    }

    /** @return a new ExecID of the door's. */
    public String next()
    {
        return prefix + count.incrementAndGet();
    }
}
