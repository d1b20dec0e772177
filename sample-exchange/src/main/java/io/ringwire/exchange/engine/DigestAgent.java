package io.ringwire.exchange.engine;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Keeps the engine's output digest off the engine's thread: reads the engine's output from a
 * {@link DigestRing} in the order it was sent and feeds it to the {@link OutputDigest}, linking the
 * chain at the snapshot points the engine marked and telling the digest's listener its value at
 * each DIGEST command. The digest it reaches is the one an engine feeding its digest itself
 * reaches on the same journal, and the one {@code exchange replay} prints.
 *
 * <p>Threading: its own (an agent's), which may back off; the engine hands it the digest before it
 * starts. Allocation-free but at a DIGEST command (the value's text).
 */
public final class DigestAgent implements Agent
{
    private static final int MESSAGE_LIMIT = 4096;

    private final DigestRing feed;
    private final OneToOneRingBuffer ring;
    private final OutputDigest digest;
    private final MessageHandler onMessage = this::onMessage;
    /** Written by the agent's thread only; others read them late. */
    private long messages;
    private long links;
    /** Whether the value's listener is being told (a failure there misses no output). */
    private boolean inListener;
    private long drainFailures;

    /**
     * @param ring   the engine's output.
     * @param digest the digest, which the engine fed until now and restored from its snapshot.
     */
    public DigestAgent(final DigestRing ring, final OutputDigest digest)
    {
        this.feed = ring;
        this.ring = ring.ring();
        this.digest = digest;
    }

    /**
     * A message that failed here has left the ring all the same, and an Error ends this agent's
     * thread: either way the digest misses output, so it is marked broken and the ring abandoned
     * (the engine stops waiting on it) before the failure goes on to the agent's runner. Only the
     * value's listener failing at a DIGEST command misses nothing: the digest has taken every byte
     * before the listener is told, so it stays whole.
     */
    @Override
    public int doWork()
    {
        try
        {
            return ring.read(onMessage, MESSAGE_LIMIT);
        }
        catch (final RuntimeException ex)
        {
            if (!inListener)
            {
                broken();
            }
            inListener = false;
            throw ex;
        }
        catch (final Error ex)
        {
            broken();
            throw ex;
        }
    }

    private void broken()
    {
        digest.markBroken();
        feed.abandon();
    }

    /**
     * Reads everything in the ring, but for a digest already broken. Call once the engine has
     * stopped and this agent's thread has (then the digest is up to date for any thread that calls
     * this). It throws nothing: it runs on the thread that closes the engine, whose other closes
     * must still run; a failure is judged as {@link #doWork()} judges it and counted.
     *
     * @return the digest.
     */
    public OutputDigest drain()
    {
        boolean more = true;
        while (more && !digest.isBroken())
        {
            try
            {
                more = doWork() > 0;
            }
            catch (final RuntimeException | Error ex)
            {
                drainFailures++;
            }
        }
        return digest;
    }

    /** @return failures while draining (the closing thread's; late). */
    public long drainFailures()
    {
        return drainFailures;
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        switch (type)
        {
            case DigestRing.UPDATE ->
            {
                digest.update(buffer, index, length);
                messages++;
            }
            case DigestRing.LINK ->
            {
                digest.link(buffer.getLong(index));
                links++;
            }
            case DigestRing.VALUE ->
            {
                inListener = true;
                digest.valueRequested();
                inListener = false;
            }
            default -> throw new IllegalStateException("not a digest ring message: type " + type);
        }
    }

    /** @return messages digested (any thread, late). */
    public long messages()
    {
        return messages;
    }

    /** @return links made (any thread, late). */
    public long links()
    {
        return links;
    }

    @Override
    public String roleName()
    {
        return "digest";
    }
}
