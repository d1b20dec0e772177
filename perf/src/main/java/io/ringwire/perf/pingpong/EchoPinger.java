package io.ringwire.perf.pingpong;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;

/**
 * A pinger whose transport hands it each echo in a handler that runs inside a poll (Aeron's and
 * messaging's fragment handlers): the handler records the echo ({@link #echoed}, or
 * {@link #echoRefused}), and {@link #awaitEcho} polls ({@link #pollEchoes}) until it has, then
 * checks it against the ping. {@link #sendUntilTaken} sends through a transport that may refuse a
 * ping for a while.
 *
 * <p>Threading: the pinger thread only; the handler runs on it inside the poll.
 */
public abstract class EchoPinger extends Pinger
{
    // Written by the handler, which runs on the pinger thread inside poll.
    private long echoes;
    private long echoedSequence;
    private long echoedSentNs;
    private int echoedLength;
    private String refusal;

    /**
     * @param plan     where the thread runs and how it idles.
     * @param watched  the connection to watch while waiting for an echo.
     * @param warmup   unrecorded round trips.
     * @param messages recorded round trips.
     */
    protected EchoPinger(final ThreadPlan plan, final WatchedConnection watched, final long warmup,
        final long messages)
    {
        super(plan, watched, warmup, messages);
    }

    /**
     * Polls the transport once; its handler records each echo.
     *
     * @return fragments handled, 0 when there was nothing.
     */
    protected abstract int pollEchoes();

    /**
     * Records an echo, from the handler.
     *
     * @param sequence the sequence it carries.
     * @param sentNs   the send timestamp it carries.
     * @param length   its length.
     */
    protected final void echoed(final long sequence, final long sentNs, final int length)
    {
        echoedSequence = sequence;
        echoedSentNs = sentNs;
        echoedLength = length;
        echoes++;
    }

    /**
     * Records an echo that could not be read, from the handler (a failure path: it may allocate).
     *
     * @param why what was wrong with it.
     */
    protected final void echoRefused(final String why)
    {
        refusal = why;
        echoes++;
    }

    /**
     * Hands the transport the ping, trying again while it refuses it for now and idling in between,
     * until it takes it, refuses it for good or the wait times out.
     *
     * @param offer    the transport's tries.
     * @param sequence the ping's sequence.
     * @param sendNs   its send timestamp, from which the wait is timed.
     * @return false, with {@link #failureDetail} set, when the ping was not taken.
     */
    protected final boolean sendUntilTaken(final PingOffer offer, final long sequence, final long sendNs)
    {
        long result;
        while ((result = offer.offer(sequence, sendNs)) < 0)
        {
            final String forGood = offer.refusedForGood(result);
            if (null != forGood)
            {
                failureDetail = forGood;
                return false;
            }
            if (idleWhileWaiting(sendNs, offer.refusedForNow(result)))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Polls until the handler has recorded the next echo, idling while there is none.
     *
     * @param startNs        when the round trip began, for the wait's timeout.
     * @param expectedLength the ping's length, which the echo must have.
     * @return false, with {@link #failureDetail} set, when none came in time, it was refused or its
     *         length is not the ping's.
     */
    protected final boolean awaitEcho(final long startNs, final int expectedLength)
    {
        final long expectedEchoes = echoes + 1;
        while (echoes < expectedEchoes)
        {
            if (pollEchoes() == 0 && idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        if (null != refusal)
        {
            failureDetail = refusal;
            return false;
        }
        return echoLengthMatches("an echo", echoedLength, expectedLength);
    }

    /**
     * @param sequence the ping's sequence.
     * @param sentNs   its send timestamp.
     * @return whether the last echo carries them; false with {@link #failureDetail} set when not.
     */
    protected final boolean echoMatchesPing(final long sequence, final long sentNs)
    {
        return echoMatches(sequence, sentNs, echoedSequence, echoedSentNs);
    }
}
