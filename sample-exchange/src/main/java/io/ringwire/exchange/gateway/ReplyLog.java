package io.ringwire.exchange.gateway;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One session's execution reports, numbered 1, 2, ... over the gateway's life and kept in a ring of
 * fixed size, newest over oldest, with a cursor at the next one to send. A report is appended once
 * whether or not its session is logged on; the session's sending reads from the cursor, so what a
 * logged-off session misses, and what was in flight when it was lost, is sent at its next logon
 * from the sequence the client asks for ({@link #rewind}). A report overwritten before it was sent
 * is lost to the client, which sees the jump in the sequence.
 *
 * <p>Records: an 8-byte header (the message's length, or minus the bytes to skip to the ring's
 * start where a message would not fit before its end) and the message, 8-byte aligned. Positions
 * only grow; the ring's offset is the position masked. Every {@value #INDEX_STEP}th sequence's
 * position is kept aside, so a rewind walks at most that many records whatever the ring's size (it
 * runs at each logon, on the gateway's thread every session shares).
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class ReplyLog
{
    /** {@link #append}: the message is longer than the ring can keep. */
    static final int TOO_LONG = -1;

    /** A rewind starts at the kept position of a multiple of this sequence, or nearer. */
    static final int INDEX_STEP = 1024;
    private static final int HEADER = 8;
    private static final int ALIGNMENT = 8;

    private final UnsafeBuffer ring;
    private final int capacity;
    private final int mask;

    /** Position of the oldest kept record, and its sequence. */
    private long headPosition;
    private long headSequence = 1;
    /** Where the next record goes, and the sequence it takes. */
    private long tailPosition;
    private long nextSequence = 1;
    /** The next record to send, and its sequence. */
    private long sendPosition;
    private long sendSequence = 1;
    /** One past the highest sequence ever sent: a send below it is a resend. */
    private long firstUnsentEver = 1;
    /** Records overwritten before they were sent. */
    private long overwrittenUnsent;
    /**
     * The position of each sequence that is a multiple of {@link #INDEX_STEP}, by that multiple
     * modulo their length: room for every one the ring can keep at once (its records take a header
     * each at least).
     */
    private final long[] indexSequences;
    private final long[] indexPositions;
    /** Records a rewind stepped over, over the log's life (tests read it). */
    private long recordsWalked;

    /**
     * @param capacityBytes the ring's size: a power of two, at least 4 KiB.
     */
    ReplyLog(final int capacityBytes)
    {
        if (!BitUtil.isPowerOfTwo(capacityBytes) || capacityBytes < 4096)
        {
            throw new IllegalArgumentException("a reply log is a power of two of at least 4096 bytes: " + capacityBytes);
        }
        this.capacity = capacityBytes;
        this.mask = capacityBytes - 1;
        this.ring = new UnsafeBuffer(new byte[capacityBytes]);
        final int indexLength = capacityBytes / (HEADER * INDEX_STEP) + 2;
        this.indexSequences = new long[indexLength];
        this.indexPositions = new long[indexLength];
    }

    /** @return the sequence the next appended report takes. */
    long nextSequence()
    {
        return nextSequence;
    }

    /** @return the oldest sequence still kept ({@link #nextSequence()} when none is). */
    long oldestSequence()
    {
        return headSequence;
    }

    /** @return the sequence of the next report to send. */
    long sendSequence()
    {
        return sendSequence;
    }

    /** @return reports overwritten before they were sent. */
    long overwrittenUnsent()
    {
        return overwrittenUnsent;
    }

    /** @return whether a report waits to be sent. */
    boolean hasUnsent()
    {
        return sendSequence < nextSequence;
    }

    /**
     * Copies a message in as the next sequence, overwriting the oldest records it needs room from.
     *
     * @return the offset in {@link #buffer()} the copy starts at (to stamp it), or {@link #TOO_LONG}.
     */
    int append(final DirectBuffer message, final int offset, final int length)
    {
        final int recordLength = BitUtil.align(HEADER + length, ALIGNMENT);
        if (recordLength > capacity / 2)
        {
            return TOO_LONG;
        }
        final int tailOffset = (int)(tailPosition & mask);
        final int toEnd = capacity - tailOffset;
        final int padding = recordLength > toEnd ? toEnd : 0;
        makeRoom(padding + recordLength);
        if (padding > 0)
        {
            ring.putInt(tailOffset, -padding);
            tailPosition += padding;
        }
        if (nextSequence % INDEX_STEP == 0)
        {
            final int slot = (int)((nextSequence / INDEX_STEP) % indexSequences.length);
            indexSequences[slot] = nextSequence;
            indexPositions[slot] = tailPosition;
        }
        final int at = (int)(tailPosition & mask);
        ring.putInt(at, length);
        ring.putBytes(at + HEADER, message, offset, length);
        tailPosition += recordLength;
        nextSequence++;
        return at + HEADER;
    }

    /** Drops the oldest records until {@code bytes} more fit; the send cursor moves past any dropped. */
    private void makeRoom(final int bytes)
    {
        while (tailPosition + bytes - headPosition > capacity)
        {
            final int length = ring.getInt((int)(headPosition & mask));
            if (length < 0)
            {
                headPosition += -length;
                continue;
            }
            headPosition += BitUtil.align(HEADER + length, ALIGNMENT);
            headSequence++;
        }
        if (sendSequence < headSequence)
        {
            overwrittenUnsent += headSequence - sendSequence;
            sendSequence = headSequence;
            sendPosition = headPosition;
        }
        else if (sendPosition < headPosition)
        {
            // The cursor was on padding that is dropped now, and may be written over: the report it
            // stands before is the oldest kept.
            sendPosition = headPosition;
        }
    }

    /**
     * Points the send cursor at a client's next expected sequence: from there when it is kept, from
     * the oldest kept when it is older, and at the next new report when the client asks for none
     * (0 or less) or for one this log never sent (past {@link #nextSequence()}: another gateway's).
     *
     * @return the sequence sending starts from.
     */
    long rewind(final long requested)
    {
        final long from = requested <= 0 || requested > nextSequence ? nextSequence : Math.max(requested, headSequence);
        long position = headPosition;
        long sequence = headSequence;
        if (from == nextSequence)
        {
            position = tailPosition;
            sequence = from;
        }
        final long indexed = from - from % INDEX_STEP;
        if (indexed > sequence)
        {
            final int slot = (int)((indexed / INDEX_STEP) % indexSequences.length);
            if (indexSequences[slot] == indexed && indexPositions[slot] >= headPosition)
            {
                position = indexPositions[slot];
                sequence = indexed;
            }
        }
        if (sendSequence <= from && sendSequence > sequence)
        {
            position = sendPosition;
            sequence = sendSequence;
        }
        while (sequence < from)
        {
            recordsWalked++;
            final int length = ring.getInt((int)(position & mask));
            if (length >= 0)
            {
                sequence++;
                position += BitUtil.align(HEADER + length, ALIGNMENT);
            }
            else
            {
                position += -length;
            }
        }
        sendPosition = position;
        sendSequence = from;
        return from;
    }

    /** @return records rewinds have stepped over so far. */
    long recordsWalked()
    {
        return recordsWalked;
    }

    /** @return the ring, which holds the next report to send at {@link #sendOffset()}. */
    MutableDirectBuffer buffer()
    {
        return ring;
    }

    /**
     * @return the offset in {@link #buffer()} of the next report to send; call only while
     *         {@link #hasUnsent()}.
     */
    int sendOffset()
    {
        skipPadding();
        return (int)(sendPosition & mask) + HEADER;
    }

    /** @return the length of the next report to send. */
    int sendLength()
    {
        skipPadding();
        return ring.getInt((int)(sendPosition & mask));
    }

    /**
     * The next report went: the cursor moves to the one after.
     *
     * @return whether it had been sent before (a resend after a logon).
     */
    boolean sent()
    {
        skipPadding();
        sendPosition += BitUtil.align(HEADER + ring.getInt((int)(sendPosition & mask)), ALIGNMENT);
        final boolean resent = sendSequence < firstUnsentEver;
        sendSequence++;
        firstUnsentEver = Math.max(firstUnsentEver, sendSequence);
        return resent;
    }

    private void skipPadding()
    {
        final int length = ring.getInt((int)(sendPosition & mask));
        if (length < 0)
        {
            sendPosition += -length;
        }
    }
}
