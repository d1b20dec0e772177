package io.ringwire.exchange.fix;

import quickfix.MemoryStoreFactory;
import quickfix.MessageStore;
import quickfix.MessageStoreFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;

/**
 * A door session's QuickFIX/J message store that answers a ResendRequest from the last
 * {@code window} messages the door sent the member, whatever range the member asks for: QuickFIX/J
 * fills the numbers before them with a SequenceReset-GapFill, as it does for admin messages, so the
 * member's request is answered whole. QuickFIX/J loads a ResendRequest's whole range at once and
 * parses and sends every message of it on the session's thread, and a member can make the door
 * send as fast as it likes (each TestRequest draws a stored Heartbeat): without a window, one
 * ResendRequest from 1 to infinity costs work and memory in proportion to a day of messages.
 *
 * <p>Kept in memory (no store path), the messages take a ring of {@code window} slots by number, so
 * a session's memory is bounded too; on file, QuickFIX/J's file store keeps them (and its index of
 * them, until the daily reset) and only the range read is bounded. Sequence numbers and the
 * creation time are the inner store's either way.
 *
 * <p>Threading: the session's QuickFIX/J thread reads a resend's range while the door's sender
 * thread stores what it sends (QuickFIX/J takes no lock across the two), so the in-memory window is
 * read and written under this store's monitor, uncontended but for a resend.
 */
final class ResendWindowStore implements MessageStore, Closeable
{
    private final MessageStore numbers;
    private final boolean innerKeepsMessages;
    private final int window;
    private final String[] messages;
    private final int[] sequences;

    /**
     * @param numbers            the inner store: sequence numbers and creation time, and the messages
     *                           too when {@code innerKeepsMessages}.
     * @param innerKeepsMessages whether the inner store keeps the messages (a file store), else this
     *                           store keeps the window's in memory.
     * @param window             messages a ResendRequest is answered from, a power of two.
     */
    ResendWindowStore(final MessageStore numbers, final boolean innerKeepsMessages, final int window)
    {
        if (window < 1 || Integer.bitCount(window) != 1)
        {
            throw new IllegalArgumentException("a resend window is a power of two: " + window);
        }
        this.numbers = numbers;
        this.innerKeepsMessages = innerKeepsMessages;
        this.window = window;
        this.messages = innerKeepsMessages ? null : new String[window];
        this.sequences = innerKeepsMessages ? null : new int[window];
    }

    /**
     * @param keeping stores that keep the messages themselves (QuickFIX/J's file stores), or null to
     *                keep each session's window in memory.
     * @param window  messages a ResendRequest is answered from, a power of two.
     * @return the door's stores.
     */
    static MessageStoreFactory factory(final MessageStoreFactory keeping, final int window)
    {
        final MessageStoreFactory inner = null == keeping ? new MemoryStoreFactory() : keeping;
        return sessionId -> new ResendWindowStore(inner.create(sessionId), null != keeping, window);
    }

    @Override
    public synchronized boolean set(final int sequence, final String message) throws IOException
    {
        if (innerKeepsMessages)
        {
            return numbers.set(sequence, message);
        }
        final int slot = sequence & (window - 1);
        messages[slot] = message;
        sequences[slot] = sequence;
        return true;
    }

    @Override
    public synchronized void get(final int startSequence, final int endSequence, final Collection<String> out)
        throws IOException
    {
        final int next = numbers.getNextSenderMsgSeqNum();
        final int from = Math.max(startSequence, next - window);
        final int to = Math.min(endSequence, next - 1);
        if (from > to)
        {
            return;
        }
        if (innerKeepsMessages)
        {
            numbers.get(from, to, out);
            return;
        }
        for (int sequence = from; sequence <= to; sequence++)
        {
            final int slot = sequence & (window - 1);
            if (sequences[slot] == sequence && null != messages[slot])
            {
                out.add(messages[slot]);
            }
        }
    }

    @Override
    public int getNextSenderMsgSeqNum() throws IOException
    {
        return numbers.getNextSenderMsgSeqNum();
    }

    @Override
    public int getNextTargetMsgSeqNum() throws IOException
    {
        return numbers.getNextTargetMsgSeqNum();
    }

    @Override
    public void setNextSenderMsgSeqNum(final int next) throws IOException
    {
        numbers.setNextSenderMsgSeqNum(next);
    }

    @Override
    public void setNextTargetMsgSeqNum(final int next) throws IOException
    {
        numbers.setNextTargetMsgSeqNum(next);
    }

    @Override
    public void incrNextSenderMsgSeqNum() throws IOException
    {
        numbers.incrNextSenderMsgSeqNum();
    }

    @Override
    public void incrNextTargetMsgSeqNum() throws IOException
    {
        numbers.incrNextTargetMsgSeqNum();
    }

    @Override
    public Date getCreationTime() throws IOException
    {
        return numbers.getCreationTime();
    }

    @Override
    public synchronized void reset() throws IOException
    {
        numbers.reset();
        if (!innerKeepsMessages)
        {
            Arrays.fill(messages, null);
            Arrays.fill(sequences, 0);
        }
    }

    @Override
    public void refresh() throws IOException
    {
        numbers.refresh();
    }

    /** Closes the inner store where it holds files (QuickFIX/J closes a session's store if it can). */
    @Override
    public void close() throws IOException
    {
        if (numbers instanceof Closeable closeable)
        {
            closeable.close();
        }
    }
}
