package io.ringwire.messaging.system;

import io.ringwire.messaging.Publication;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * One publisher's {@link TestMessages} offered in sequence: each message is encoded once, however
 * often its offer is retried (back-pressure), and the sequence moves on when an offer succeeds.
 *
 * <p>Threading: the publishing thread. Allocation-free after construction.
 */
final class SequencedOffers
{
    private final MessageLengths lengths;
    private final long seed;
    private final int source;
    private final UnsafeBuffer message;
    private int sequence;
    private int encoded = -1;

    /**
     * @param lengths  the lengths of the messages.
     * @param seed     their content's seed.
     * @param source   this publisher's number.
     * @param capacity the longest message.
     */
    SequencedOffers(final MessageLengths lengths, final long seed, final int source, final int capacity)
    {
        this.lengths = lengths;
        this.seed = seed;
        this.source = source;
        this.message = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
    }

    /** @return the sequence of the next message to offer (the count offered so far). */
    int sequence()
    {
        return sequence;
    }

    /** @return the length of the next message. */
    int nextLength()
    {
        return lengths.lengthOf(source, sequence);
    }

    /** @return true when the next message has not been offered yet (its first attempt is next). */
    boolean firstAttempt()
    {
        return encoded != sequence;
    }

    /**
     * Offers the next message once.
     *
     * @param publication to offer it to.
     * @return the offer's result; the sequence moved on when it is positive.
     */
    long offerNext(final Publication publication)
    {
        final int length = nextLength();
        if (encoded != sequence)
        {
            TestMessages.encode(message, 0, length, seed, source, sequence);
            encoded = sequence;
        }
        final long result = publication.offer(message, 0, length);
        if (result > 0)
        {
            sequence++;
        }
        return result;
    }
}
