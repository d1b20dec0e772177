package io.ringwire.exchange.gateway;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's reply log over a plain ring: numbering, sending from its cursor, rewinding for a
 * logon, wrapping with and without padding, and overwriting the oldest, sent or not.
 */
class ReplyLogTest
{
    private static final int CAPACITY = 4096;

    private final UnsafeBuffer message = new UnsafeBuffer(new byte[CAPACITY]);

    /** Appends a message of {@code length} bytes whose every long-aligned word is {@code sequence}. */
    private int append(final ReplyLog log, final long sequence, final int length)
    {
        for (int i = 0; i + 8 <= length; i += 8)
        {
            message.putLong(i, sequence);
        }
        return log.append(message, 0, length);
    }

    /** Sends the next report, checking it is the one of {@code sequence} and {@code length} bytes. */
    private static boolean sendExpecting(final ReplyLog log, final long sequence, final int length)
    {
        assertTrue(log.hasUnsent(), "report " + sequence + " waits");
        assertEquals(sequence, log.sendSequence());
        assertEquals(length, log.sendLength(), "report " + sequence + "'s length");
        final int at = log.sendOffset();
        for (int i = 0; i + 8 <= length; i += 8)
        {
            assertEquals(sequence, log.buffer().getLong(at + i), "report " + sequence + "'s bytes");
        }
        return log.sent();
    }

    @Test
    void aSendCursorOnPaddingThatIsDroppedAndWrittenOverMovesToTheNextReport()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        for (long sequence = 1; sequence <= 5; sequence++)
        {
            append(log, sequence, 1000); // 1,008-byte records: the fifth wraps past 64 bytes of padding
        }
        for (long sequence = 2; sequence <= 4; sequence++)
        {
            sendExpecting(log, sequence, 1000); // the first was overwritten; the cursor ends on the padding
        }
        for (long sequence = 6; sequence <= 8; sequence++)
        {
            append(log, sequence, 1000); // drop 2, 3 and 4: the padding is the oldest kept now
        }
        append(log, 9, 16); // fits where the padding was, which is dropped and written over
        assertEquals(5, log.oldestSequence());
        for (long sequence = 5; sequence <= 8; sequence++)
        {
            sendExpecting(log, sequence, 1000);
        }
        sendExpecting(log, 9, 16);
        assertFalse(log.hasUnsent());
        assertEquals(1, log.overwrittenUnsent());
    }

    @Test
    void reportsAreNumberedFromOneAndSentInOrderOnce()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        assertFalse(log.hasUnsent());
        for (long sequence = 1; sequence <= 3; sequence++)
        {
            assertEquals(sequence, log.nextSequence());
            assertTrue(append(log, sequence, 40 + (int)sequence * 8) >= 0);
        }
        for (long sequence = 1; sequence <= 3; sequence++)
        {
            assertFalse(sendExpecting(log, sequence, 40 + (int)sequence * 8), "a first send, not a resend");
        }
        assertFalse(log.hasUnsent());
        assertEquals(1, log.oldestSequence(), "sent reports stay for a later logon");
    }

    @Test
    void aRewindResendsFromTheAskedSequenceAndOnlyThoseCountAsResent()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        for (long sequence = 1; sequence <= 5; sequence++)
        {
            append(log, sequence, 64);
            log.sent();
        }
        assertEquals(3, log.rewind(3));
        assertTrue(sendExpecting(log, 3, 64));
        assertTrue(sendExpecting(log, 4, 64));
        append(log, 6, 64);
        assertTrue(sendExpecting(log, 5, 64));
        assertFalse(sendExpecting(log, 6, 64), "6 was never sent");
        assertFalse(log.hasUnsent());
    }

    @Test
    void aRewindAskingForNoneOrForASequenceThisLogNeverHadStartsAtTheNextNewReport()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        append(log, 1, 64);
        append(log, 2, 64);
        assertEquals(3, log.rewind(0), "0 asks for none");
        assertFalse(log.hasUnsent());
        assertEquals(3, log.rewind(-5));
        assertEquals(3, log.rewind(1_000), "another gateway's sequence: this log starts anew");
        assertEquals(3, log.rewind(3), "exactly the next new one");
        assertEquals(1, log.rewind(1));
        assertTrue(log.hasUnsent());
    }

    @Test
    void recordsThatFillTheRingExactlyWrapWithoutPadding()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        // 504 bytes and an 8-byte header: eight records fill the ring to its end exactly.
        for (long sequence = 1; sequence <= 8; sequence++)
        {
            assertEquals((int)(sequence - 1) * 512 + 8, append(log, sequence, 504));
        }
        assertEquals(1, log.oldestSequence());
        assertEquals(8, append(log, 9, 504), "the ninth starts the ring again, over the first");
        assertEquals(2, log.oldestSequence());
        assertEquals(2, log.rewind(1), "the first is no longer kept");
        for (long sequence = 2; sequence <= 9; sequence++)
        {
            sendExpecting(log, sequence, 504);
        }
        assertFalse(log.hasUnsent());
    }

    @Test
    void aRecordThatDoesNotFitBeforeTheEndIsPaddedAndTheReaderStepsOverThePadding()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        for (long sequence = 1; sequence <= 4; sequence++)
        {
            append(log, sequence, 1000); // 1,008-byte records: 4,032 bytes, 64 left at the end
        }
        for (long sequence = 1; sequence <= 4; sequence++)
        {
            sendExpecting(log, sequence, 1000);
        }
        assertEquals(8, append(log, 5, 1000), "padded to the ring's start");
        assertEquals(2, log.oldestSequence(), "the padding and the fifth took the first's room");
        sendExpecting(log, 5, 1000);
        assertEquals(2, log.rewind(2));
        for (long sequence = 2; sequence <= 5; sequence++)
        {
            assertTrue(sendExpecting(log, sequence, 1000));
        }
    }

    @Test
    void reportsOverwrittenBeforeTheyWereSentAreCountedAndTheCursorMovesToTheOldestKept()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        for (long sequence = 1; sequence <= 20; sequence++)
        {
            append(log, sequence, 504);
        }
        final long oldest = log.oldestSequence();
        assertEquals(13, oldest, "the last eight 512-byte records are kept");
        assertEquals(12, log.overwrittenUnsent());
        assertEquals(oldest, log.sendSequence());
        for (long sequence = oldest; sequence <= 20; sequence++)
        {
            assertFalse(sendExpecting(log, sequence, 504));
        }
    }

    @Test
    void randomSizesOverManyWrapsAlwaysResendExactlyTheKeptReports()
    {
        final Random random = new Random(42);
        final ReplyLog log = new ReplyLog(CAPACITY);
        final int[] lengths = new int[5_001];
        for (int sequence = 1; sequence <= 5_000; sequence++)
        {
            lengths[sequence] = 8 + 8 * random.nextInt(120);
            assertTrue(append(log, sequence, lengths[sequence]) >= 0);
            assertFalse(sendExpecting(log, sequence, lengths[sequence]));
            if (sequence % 97 == 0)
            {
                final long from = Math.max(1, sequence - random.nextInt(40));
                final long start = log.rewind(from);
                assertEquals(Math.max(from, log.oldestSequence()), start);
                for (long resent = start; resent <= sequence; resent++)
                {
                    assertTrue(sendExpecting(log, resent, lengths[(int)resent]));
                }
                assertFalse(log.hasUnsent());
            }
        }
        assertEquals(0, log.overwrittenUnsent());
    }

    @Test
    void aMessageLongerThanHalfTheRingIsRefusedAndAnOddSizedRingIsNoRing()
    {
        final ReplyLog log = new ReplyLog(CAPACITY);
        assertEquals(ReplyLog.TOO_LONG, log.append(message, 0, CAPACITY / 2));
        assertEquals(1, log.nextSequence(), "nothing was numbered");
        assertThrows(IllegalArgumentException.class, () -> new ReplyLog(5000));
        assertThrows(IllegalArgumentException.class, () -> new ReplyLog(2048));
    }

    @Test
    void aRewindWalksAtMostOneIndexStepOfRecordsWhateverTheLogHolds()
    {
        final ReplyLog log = new ReplyLog(1 << 22);
        final int length = 40;
        long last = 0;
        while (log.oldestSequence() == 1 || last < 150_000)
        {
            append(log, ++last, length); // past a wrap: the oldest kept is well past 1
        }
        final long oldest = log.oldestSequence();
        assertTrue(last - oldest > 10 * ReplyLog.INDEX_STEP, "a log of many index steps: " + oldest + ".." + last);

        assertEquals(last + 1, log.rewind(0));
        assertEquals(last + 1, log.rewind(Long.MAX_VALUE));
        assertEquals(last + 1, log.rewind(last + 1));
        assertEquals(0, log.recordsWalked(), "nothing to resend: no walk");
        assertFalse(log.hasUnsent());

        assertEquals(oldest, log.rewind(1));
        sendExpecting(log, oldest, length);
        for (final long from : new long[] { oldest + 1, (oldest + last) / 2, last - 1, last,
            ReplyLog.INDEX_STEP * (last / ReplyLog.INDEX_STEP), ReplyLog.INDEX_STEP * (last / ReplyLog.INDEX_STEP) - 1 })
        {
            final long walkedBefore = log.recordsWalked();
            assertEquals(from, log.rewind(from));
            assertTrue(log.recordsWalked() - walkedBefore < ReplyLog.INDEX_STEP,
                "rewound to " + from + " over " + (log.recordsWalked() - walkedBefore) + " records");
            sendExpecting(log, from, length);
        }
    }
}
