package io.ringwire.exchange.engine;

import org.agrona.DirectBuffer;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * A SHA-256 digest of every byte the engine sent, in order, that survives a restart: it is a
 * chain, {@code chain = SHA-256(chain || SHA-256(bytes since the last link))}, and a link is made
 * at every snapshot, whose file keeps the chain. Snapshots are taken at points the journaled input
 * fixes (every N messages, and on the journaled command), so a replay of the journal makes the
 * links at the same points and reaches the same value. The value reported folds the bytes since
 * the last link in without making a link.
 *
 * <p>It is fed on the engine's thread ({@link DigestFeed}: a replay, a replica) or on the
 * {@link DigestAgent}'s, from a ring the engine writes (the live engine, whose thread does no
 * hashing).
 *
 * <p>Threading: one thread feeds it at a time; a handover from one to another needs a
 * happens-before edge (starting the new thread, say). Read its value on the thread that feeds it,
 * or once feeding has stopped. {@link #update} allocates nothing (the JDK's SHA-256 runs on the
 * CPU's SHA extensions where it has them).
 */
public final class OutputDigest implements DigestFeed
{
    /** Bytes of a SHA-256 value. */
    public static final int LENGTH = 32;
    /** The {@link #value()} of a digest that missed some of the output: no hash could stand for it. */
    public static final String BROKEN = "broken";

    private final MessageDigest sha;
    private final byte[] scratch = new byte[4096];
    private final byte[] chain = new byte[LENGTH];
    private final byte[] link = new byte[LENGTH];
    private long bytes;
    private Consumer<String> valueListener = value -> { };
    private volatile boolean broken;

    public OutputDigest()
    {
        try
        {
            sha = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("this JDK has no SHA-256", ex);
        }
    }

    /**
     * Adds a message's bytes.
     */
    @Override
    public void update(final DirectBuffer buffer, final int offset, final int length)
    {
        int done = 0;
        while (done < length)
        {
            final int chunk = Math.min(scratch.length, length - done);
            buffer.getBytes(offset + done, scratch, 0, chunk);
            sha.update(scratch, 0, chunk);
            done += chunk;
        }
        bytes += length;
    }

    /** A snapshot point: {@link #link()}. */
    @Override
    public void link(final long journalSequence)
    {
        link();
    }

    /** Tells the value listener the value so far (control path: allocates). */
    @Override
    public void valueRequested()
    {
        valueListener.accept(value());
    }

    /**
     * @param listener told the value at each {@link #valueRequested()}, on the thread that feeds
     *                 the digest.
     */
    public void onValue(final Consumer<String> listener)
    {
        this.valueListener = listener;
    }

    /** Makes a link: the chain takes in the bytes since the last one. */
    public void link()
    {
        try
        {
            sha.digest(link, 0, LENGTH);
            sha.update(chain, 0, LENGTH);
            sha.update(link, 0, LENGTH);
            sha.digest(chain, 0, LENGTH);
        }
        catch (final DigestException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the chain's current value (what a snapshot keeps), a copy. */
    public byte[] chain()
    {
        return chain.clone();
    }

    /** @return bytes digested in all. */
    public long bytes()
    {
        return bytes;
    }

    /**
     * Restores a chain from a snapshot taken right after a link.
     *
     * @param value the chain.
     * @param total bytes digested up to it.
     */
    public void restore(final byte[] value, final long total)
    {
        if (value.length != LENGTH)
        {
            throw new IllegalArgumentException("a chain is " + LENGTH + " bytes");
        }
        sha.reset();
        System.arraycopy(value, 0, chain, 0, LENGTH);
        bytes = total;
    }

    /** Some of the output will never be fed (its feeder failed): from now on the value is {@link #BROKEN}. */
    public void markBroken()
    {
        broken = true;
    }

    /** @return whether some of the output was never fed ({@link #markBroken()}). */
    public boolean isBroken()
    {
        return broken;
    }

    /**
     * @return the digest of everything sent so far, in hex: the chain with the bytes since the last
     *         link folded in, or {@link #BROKEN} where some of the output was never fed. Leaves the
     *         digest as it was.
     */
    public String value()
    {
        if (broken)
        {
            return BROKEN;
        }
        try
        {
            final MessageDigest pending = (MessageDigest)sha.clone();
            final byte[] tail = pending.digest();
            pending.update(chain);
            pending.update(tail);
            return HexFormat.of().formatHex(pending.digest());
        }
        catch (final CloneNotSupportedException ex)
        {
            throw new IllegalStateException("SHA-256 cannot be cloned here", ex);
        }
    }
}
