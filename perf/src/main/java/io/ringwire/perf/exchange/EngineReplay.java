package io.ringwire.perf.exchange;

import io.ringwire.exchange.engine.DigestFeed;
import io.ringwire.exchange.engine.EngineCounters;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.engine.OutputDigest;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ways the matching benchmark replays a {@link RecordedFlow} on a {@link MatchingEngine}: a
 * fresh engine with its books filled by the flow's prefill, then the measured requests back to
 * back, each timed on its own, or offered at a fixed rate. The loops allocate nothing; nothing in
 * them but {@link MatchingEngine#applyChecked} (the flow was validated when generated, as the
 * journaller validates before the engine applies) and the clock.
 *
 * <p>Threading: the benchmark's thread; an engine is replayed once.
 */
final class EngineReplay
{
    /** Latencies above this are recorded as this (a minute). */
    static final long HIGHEST_TRACKABLE_NS = 60_000_000_000L;
    /** The fixed-rate run's first request is due this long after the run starts. */
    private static final long FIRST_DUE_AFTER_NS = 100_000;

    private final RecordedFlow flow;
    private final UnsafeBuffer requests;
    private final int[] offsets;
    private final byte[] kinds;
    private final int from;
    private final int to;

    /**
     * @param flow the flow to replay.
     */
    EngineReplay(final RecordedFlow flow)
    {
        this.flow = flow;
        this.requests = flow.requests();
        this.offsets = flow.offsets();
        this.kinds = flow.kinds();
        this.from = flow.prefill();
        this.to = flow.count();
    }

    /** @return the measured requests. */
    int measured()
    {
        return to - from;
    }

    /** @return a histogram for nanoseconds up to {@link #HIGHEST_TRACKABLE_NS}, 3 significant digits. */
    static Histogram histogram()
    {
        return new Histogram(HIGHEST_TRACKABLE_NS, 3);
    }

    /**
     * @param output where the engine's messages go.
     * @return a new engine for the flow, its books filled by the flow's prefill (not timed); it
     *         hashes nothing, as the exchange's engine leaves its digest to the digest agent.
     */
    MatchingEngine freshEngine(final EngineOutput output)
    {
        final MatchingEngine engine = new MatchingEngine(flow.config(), output, new OutputDigest(), DigestFeed.NONE);
        for (int i = 0; i < from; i++)
        {
            engine.applyChecked(requests, offsets[i], offsets[i + 1] - offsets[i]);
        }
        return engine;
    }

    /**
     * Applies the measured requests back to back.
     *
     * @return nanoseconds taken.
     */
    long backToBack(final MatchingEngine engine)
    {
        final UnsafeBuffer buffer = requests;
        final int[] at = offsets;
        final long startNs = System.nanoTime();
        for (int i = from, end = to; i < end; i++)
        {
            engine.applyChecked(buffer, at[i], at[i + 1] - at[i]);
        }
        return System.nanoTime() - startNs;
    }

    /**
     * Applies the measured requests, timing each apply on its own (two clock reads around it).
     *
     * @param all    takes every service time.
     * @param byKind takes each service time by the request's {@link RequestKind} ordinal.
     * @param nsByKind adds up the service times by kind.
     */
    void timedEach(final MatchingEngine engine, final Histogram all, final Histogram[] byKind, final long[] nsByKind)
    {
        final UnsafeBuffer buffer = requests;
        final int[] at = offsets;
        final byte[] kind = kinds;
        for (int i = from, end = to; i < end; i++)
        {
            final int offset = at[i];
            final int length = at[i + 1] - offset;
            final long startNs = System.nanoTime();
            engine.applyChecked(buffer, offset, length);
            final long serviceNs = System.nanoTime() - startNs;
            all.recordValue(serviceNs);
            byKind[kind[i]].recordValue(serviceNs);
            nsByKind[kind[i]] += serviceNs;
        }
    }

    /**
     * Offers the measured requests at a fixed rate: request {@code i} is due {@code i / rate} seconds
     * after the first, and is applied when it is due or, when the engine is behind, as soon as the
     * one before is done. Its latency runs from when it was due to when its apply returned, so time
     * spent behind counts against every request it delays.
     *
     * @param ratePerSecond requests offered a second.
     * @param latency       takes each request's latency.
     * @return nanoseconds from the first request's due time to the last one's completion.
     */
    long atRate(final MatchingEngine engine, final long ratePerSecond, final Histogram latency)
    {
        final UnsafeBuffer buffer = requests;
        final int[] at = offsets;
        final long firstDueNs = System.nanoTime() + FIRST_DUE_AFTER_NS;
        long doneNs = firstDueNs;
        for (int i = from, end = to; i < end; i++)
        {
            final long dueNs = awaitDue(firstDueNs, i - from, ratePerSecond);
            engine.applyChecked(buffer, at[i], at[i + 1] - at[i]);
            doneNs = System.nanoTime();
            latency.recordValue(Math.min(doneNs - dueNs, HIGHEST_TRACKABLE_NS));
        }
        return doneNs - firstDueNs;
    }

    /**
     * The fixed-rate schedule of {@link #atRate} with nothing applied: the same due times, spin and
     * clock reads, and a request's latency from its due time to the clock read after it. What it
     * records is the floor the thread and the machine put under the fixed-rate figures: an
     * interrupt, a hypervisor taking the CPU, or the clock itself delays a request by as much
     * whatever the engine does.
     *
     * @param ratePerSecond requests offered a second.
     * @param latency       takes each request's latency.
     */
    void scheduleAlone(final long ratePerSecond, final Histogram latency)
    {
        final long firstDueNs = System.nanoTime() + FIRST_DUE_AFTER_NS;
        for (int i = from, end = to; i < end; i++)
        {
            final long dueNs = awaitDue(firstDueNs, i - from, ratePerSecond);
            latency.recordValue(Math.min(System.nanoTime() - dueNs, HIGHEST_TRACKABLE_NS));
        }
    }

    /**
     * Spins until the {@code index}th request of a fixed-rate schedule is due. The thread has its CPU
     * to itself, so it spins without a pause: a park's or a pause's wake-up would add to the time
     * measured from the due time.
     *
     * @return the request's due time.
     */
    private static long awaitDue(final long firstDueNs, final int index, final long ratePerSecond)
    {
        final long dueNs = firstDueNs + index * 1_000_000_000L / ratePerSecond;
        while (System.nanoTime() < dueNs)
        {
            // spin
        }
        return dueNs;
    }

    /**
     * Checks that a replay did what the generator expected: no request refused or dropped, the
     * books left as the generator's, and (when given) the same books and output counts as the
     * first replay.
     *
     * @param expectedOutcome the outcome of a replay before, or null.
     * @return the replay's outcome: its books' digest and how many messages it sent.
     * @throws IllegalStateException when the replay diverged.
     */
    String verify(final MatchingEngine engine, final String expectedOutcome)
    {
        final EngineCounters counters = engine.counters();
        final int live = engine.books().orders().live();
        if (counters.rejected() != 0 || counters.malformed() != 0 || counters.unknownTemplates() != 0 ||
            live != flow.liveOrdersAtEnd())
        {
            throw new IllegalStateException("the replay diverged from the generated flow: " + counters.rejected() +
                " rejected, " + counters.malformed() + " malformed, " + live + " orders left where the generator left " +
                flow.liveOrdersAtEnd());
        }
        final String outcome = "books " + engine.booksDigest() + ", " + counters.executionReports() + " reports, " +
            counters.marketDataMessages() + " market-data messages";
        if (null != expectedOutcome && !expectedOutcome.equals(outcome))
        {
            throw new IllegalStateException("two replays of one flow ended differently: " + outcome + " against " +
                expectedOutcome);
        }
        return outcome;
    }
}
