package io.ringwire.exchange.engine;

import org.agrona.DirectBuffer;

/**
 * Where the engine's output goes to be digested, in the order it is sent: straight into an
 * {@link OutputDigest} on the engine's own thread (a replay, a replica, a test), or through a
 * {@link DigestRing} to the {@link DigestAgent} on a thread of its own, so that the engine's
 * thread does no hashing.
 *
 * <p>Threading: the engine's thread calls it.
 */
public interface DigestFeed
{
    /** Digests nothing: an engine measured alone. */
    DigestFeed NONE = new DigestFeed()
    {
        @Override
        public void update(final DirectBuffer buffer, final int offset, final int length)
        {
        }

        @Override
        public void link(final long journalSequence)
        {
        }

        @Override
        public void valueRequested()
        {
        }
    };

    /**
     * Adds one message the engine sent.
     *
     * @param buffer holds the message.
     * @param offset where it starts.
     * @param length its length.
     */
    void update(DirectBuffer buffer, int offset, int length);

    /**
     * A snapshot point: the chain takes in the bytes since the last link (see {@link OutputDigest}).
     *
     * @param journalSequence the journal records applied at this point.
     */
    void link(long journalSequence);

    /** The journaled DIGEST command: the digest so far goes to its listener. */
    void valueRequested();
}
