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
public abstract class ProbePinger extends EchoPinger
{
    /** Bytes per probe. */
    protected final int messageLength;
    /** Length of the probe's padding. */
    protected final int paddingLength;
    /** Zeros to pad each probe with. */
    protected final DirectBuffer zeroPadding;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();

    /** The last echo's round trip, as its handler read the clock; the pinger thread only. */
    private long roundTripNs;

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
        if (!sendProbe(sequence, sendNs) || !awaitEcho(sendNs, messageLength) || !echoMatchesPing(sequence, sendNs))
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
        if (decoded < 0)
        {
            echoRefused("echo refused: " + LatencyProbeCodec.describe(decoded));
            return;
        }
        echoed(codec.sequence(), codec.sendTimestampNs(), length);
        roundTripNs = receivedNs - codec.sendTimestampNs();
    }
}
