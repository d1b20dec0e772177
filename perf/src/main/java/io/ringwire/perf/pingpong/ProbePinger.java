package io.ringwire.perf.pingpong;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import org.agrona.DirectBuffer;

/**
 * A pinger that sends SBE {@code LatencyProbe}s and times their echoes, whatever carries them
 * (RingWire messaging, Aeron): for each round trip it reads the clock, sends a probe with that
 * timestamp and zero padding up to the size ({@link #sendProbe}), then polls ({@link #pollEchoes})
 * until its fragment handler has validated and decoded the echo ({@link #onProbe}), and reads the
 * clock again. The round trip is the second reading minus the decoded send timestamp, so both
 * carriers are timed from before the claim to after the decode, the same way.
 *
 * <p>Threading: the pinger thread only; the handler runs on it inside the poll.
 */
public abstract class ProbePinger extends Pinger
{
    /** Bytes per probe. */
    protected final int messageLength;
    /** Length of the probe's padding. */
    protected final int paddingLength;
    /** Zeros to pad each probe with. */
    protected final DirectBuffer zeroPadding;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();

    // Written by the fragment handler, which runs on the pinger thread inside poll.
    private long echoes;
    private long echoedSequence;
    private long echoedSendNs;
    private int echoedLength;
    private long roundTripNs;
    private int refusedEcho;

    /**
     * @param plan          where the thread runs and how it idles.
     * @param watched       the connection to watch while waiting for an echo.
     * @param messageLength bytes per probe ({@link LatencyProbeCodec#messageLength(int)}).
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    protected ProbePinger(final ThreadPlan plan, final WatchedConnection watched, final int messageLength,
        final long warmup, final long messages)
    {
        super(plan, watched, warmup, messages);
        this.messageLength = messageLength;
        this.paddingLength = LatencyProbeCodec.paddingLength(messageLength);
        this.zeroPadding = LatencyProbeCodec.zeroPadding(paddingLength);
    }

    @Override
    protected final long roundTrip(final long sequence)
    {
        final long sendNs = System.nanoTime();
        if (!sendProbe(sequence, sendNs) || !awaitEcho(sendNs) ||
            !echoMatches(sequence, sendNs, echoedSequence, echoedSendNs))
        {
            return FAILED;
        }
        return roundTripNs;
    }

    @Override
    protected final String finish()
    {
        return stopWith(LatencyProbeCodec.STOP_SEQUENCE);
    }

    /**
     * Sends one probe of {@link #messageLength} bytes: {@code sequence}, {@code sendNs} and
     * {@link #paddingLength} bytes of {@link #zeroPadding}. Must allocate nothing on success.
     *
     * @param sequence the probe's sequence.
     * @param sendNs   its send timestamp, read just before.
     * @return false with {@link #failureDetail} set when it could not be sent.
     */
    protected abstract boolean sendProbe(long sequence, long sendNs);

    /**
     * Polls the carrier once; its fragment handler passes each fragment to {@link #onProbe}.
     *
     * @return fragments handled, 0 when there was nothing.
     */
    protected abstract int pollEchoes();

    /**
     * Validates and decodes one echo, from the carrier's fragment handler.
     *
     * @param buffer the fragment's buffer.
     * @param offset where the probe starts.
     * @param length its length.
     */
    protected final void onProbe(final DirectBuffer buffer, final int offset, final int length)
    {
        final int decoded = codec.decode(buffer, offset, length);
        final long receivedNs = System.nanoTime();
        echoes++;
        if (decoded < 0)
        {
            refusedEcho = decoded;
            return;
        }
        echoedSequence = codec.sequence();
        echoedSendNs = codec.sendTimestampNs();
        echoedLength = length;
        roundTripNs = receivedNs - echoedSendNs;
    }

    private boolean awaitEcho(final long startNs)
    {
        final long expectedEchoes = echoes + 1;
        while (echoes < expectedEchoes)
        {
            if (pollEchoes() == 0 && idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        if (refusedEcho < 0)
        {
            failureDetail = "echo refused: " + LatencyProbeCodec.describe(refusedEcho);
            return false;
        }
        return echoLengthMatches("echo", echoedLength, messageLength);
    }
}
