package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;

import java.util.Arrays;

/**
 * Checks every whole message it is handed (put it behind a {@code FragmentAssembler}): byte-exact
 * against its seed, of the expected length, and, per publisher, in sequence with none missing;
 * every session carries one publisher only. Remembers the first failure and ignores everything
 * after it. Allocation-free until something fails.
 *
 * <p>Threading: the polling thread; read the results there or after it stopped.
 */
final class MessageVerifier implements FragmentHandler
{
    private static final int UNSET = -1;

    private final long seed;
    private final MessageLengths lengths;
    private final boolean startAnywhere;
    private final int[] nextSequence;
    private final int[] firstSequence;
    private final long[] receivedBySource;
    private final Int2IntHashMap sourceBySession = new Int2IntHashMap(UNSET);
    private long received;
    private long bytes;
    private String failure;

    /**
     * @param seed          the run's seed.
     * @param lengths       the lengths the publishers use.
     * @param sources       publishers 0..sources-1.
     * @param startAnywhere true when a publisher's first message seen may have any sequence (a
     *                      subscriber joining a running stream), false when it must be 0.
     */
    MessageVerifier(final long seed, final MessageLengths lengths, final int sources, final boolean startAnywhere)
    {
        this.seed = seed;
        this.lengths = lengths;
        this.startAnywhere = startAnywhere;
        this.nextSequence = new int[sources];
        this.firstSequence = new int[sources];
        this.receivedBySource = new long[sources];
        Arrays.fill(nextSequence, UNSET);
        Arrays.fill(firstSequence, UNSET);
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if (null != failure)
        {
            return;
        }
        final int reason = TestMessages.verify(buffer, offset, length, seed);
        if (reason != TestMessages.VALID)
        {
            failure = "message #" + received + " (" + length + " bytes, embedded sequence " +
                (length >= 4 ? TestMessages.sequenceOf(buffer, offset) : -1) + ", session " + header.sessionId() +
                "): " + TestMessages.describe(reason);
            return;
        }
        final int source = TestMessages.sourceOf(buffer, offset);
        final int sequence = TestMessages.sequenceOf(buffer, offset);
        if (source < 0 || source >= nextSequence.length)
        {
            failure = "message #" + received + " names publisher " + source + " of " + nextSequence.length;
            return;
        }
        final int expectedLength = lengths.lengthOf(source, sequence);
        if (expectedLength != length)
        {
            failure = "publisher " + source + " message " + sequence + " is " + length + " bytes, expected " +
                expectedLength;
            return;
        }
        final int expected = nextSequence[source];
        if (expected == UNSET)
        {
            if (!startAnywhere && sequence != 0)
            {
                failure = "publisher " + source + "'s first message is " + sequence + ", expected 0";
                return;
            }
            firstSequence[source] = sequence;
        }
        else if (sequence != expected)
        {
            failure = "publisher " + source + ": message " + sequence + " after " + (expected - 1) + " (expected " +
                expected + "; " + (sequence > expected ? "lost " + (sequence - expected) : "duplicate or reordered") + ")";
            return;
        }
        final int sessionId = header.sessionId();
        final int sessionSource = sourceBySession.get(sessionId);
        if (sessionSource == UNSET)
        {
            sourceBySession.put(sessionId, source);
        }
        else if (sessionSource != source)
        {
            failure = "session " + sessionId + " carried publisher " + sessionSource + " and then publisher " + source;
            return;
        }
        nextSequence[source] = sequence + 1;
        receivedBySource[source]++;
        received++;
        bytes += length;
    }

    /** @return whole valid messages received. */
    long received()
    {
        return received;
    }

    /** @return bytes of those. */
    long bytes()
    {
        return bytes;
    }

    /**
     * @param source a publisher.
     * @return its valid messages received.
     */
    long receivedFrom(final int source)
    {
        return receivedBySource[source];
    }

    /**
     * @param source a publisher.
     * @return the sequence of its first message received, or -1.
     */
    int firstSequenceFrom(final int source)
    {
        return firstSequence[source];
    }

    /** @return the first failure, or null. */
    String failure()
    {
        return failure;
    }
}
