package io.ringwire.exchange.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Following a journal while it is written: a tailer on one thread reads, below the count a writer
 * on another thread publishes after each append, every record whole and in order across many
 * segment rolls; the same journal read afterwards has no damage.
 */
class JournalTailerTest
{
    private static final int SEGMENT = 64 << 10;
    private static final int RECORDS = 200_000;

    @TempDir
    Path directory;

    @Test
    void aTailerFollowsAWriterOnAnotherThreadAcrossRollsAndReadsEveryRecordWhole() throws Exception
    {
        final TestRecords records = new TestRecords(26, 120, 4000, 97);
        final AtomicLong published = new AtomicLong();
        final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        final Journal journal = Journal.open(new JournalContext().directory(directory).segmentLength(SEGMENT).conclude());
        final Thread writer = Thread.ofPlatform().name("journal-writer").start(() ->
        {
            try
            {
                for (long sequence = 0; sequence < RECORDS; sequence++)
                {
                    final long appended = records.append(journal, sequence);
                    if (appended != sequence)
                    {
                        throw new IllegalStateException("append " + sequence + " returned " + appended);
                    }
                    published.lazySet(sequence + 1);
                }
            }
            catch (final Throwable ex)
            {
                writerFailure.set(ex);
            }
        });

        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        try (JournalTailer tailer = new JournalTailer(directory, 0))
        {
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (tailer.nextSequence() < RECORDS && null == writerFailure.get() && System.nanoTime() < deadline)
            {
                tailer.poll(handler, published.get(), 1000);
            }
        }
        writer.join(10_000);
        journal.close();
        assertNull(writerFailure.get(), "the writer");
        handler.assertDelivered(RECORDS);
        assertTrue(JournalDirectory.segmentBases(directory).length > 20, "many segments, so many rolls");

        final VerifyingHandler again = new VerifyingHandler(records, 0);
        final JournalReadResult read = new JournalReader(directory).readAll(again);
        assertTrue(read.clean(), read.toString());
        again.assertDelivered(RECORDS);
    }

    @Test
    void aTailerStartsAtAnySequenceAndWaitsAtThePublishedCount()
    {
        final TestRecords records = new TestRecords(27, 200, 200, 1000);
        try (Journal journal = Journal.open(new JournalContext().directory(directory).segmentLength(SEGMENT).conclude()))
        {
            for (long sequence = 0; sequence < 3_000; sequence++)
            {
                records.append(journal, sequence);
            }
            final VerifyingHandler handler = new VerifyingHandler(records, 1_234);
            try (JournalTailer tailer = new JournalTailer(directory, 1_234))
            {
                assertEquals(0, tailer.poll(handler, 1_234, 100), "nothing below the published count");
                assertEquals(100, tailer.poll(handler, 2_000, 100));
                while (tailer.poll(handler, 2_000, 100) > 0)
                {
                    assertTrue(tailer.nextSequence() <= 2_000);
                }
                handler.assertDelivered(2_000 - 1_234);
            }
        }
    }

    @Test
    void anInterruptPendingOnTheReaderCostsNoRecordAcrossSegmentsAndStaysTheReadersToClear()
    {
        final TestRecords records = new TestRecords(28, 200, 200, 1000);
        try (Journal journal = Journal.open(new JournalContext().directory(directory).segmentLength(SEGMENT).conclude()))
        {
            for (long sequence = 0; sequence < 3_000; sequence++)
            {
                records.append(journal, sequence);
            }
            assertTrue(JournalDirectory.segmentBases(directory).length > 2, "the records span segments");
            // A replica's or a recovery's thread is interrupted when it is closed; each segment it
            // moves to is mapped through a file channel, which the JDK fails for an interrupted thread.
            Thread.currentThread().interrupt();
            try
            {
                final VerifyingHandler tailed = new VerifyingHandler(records, 0);
                try (JournalTailer tailer = new JournalTailer(directory, 0))
                {
                    while (tailer.poll(tailed, 3_000, 1000) > 0)
                    {
                        assertTrue(tailer.nextSequence() <= 3_000);
                    }
                }
                tailed.assertDelivered(3_000);
                final VerifyingHandler read = new VerifyingHandler(records, 0);
                final JournalReadResult result = new JournalReader(directory).readAll(read);
                assertTrue(result.clean(), result.toString());
                read.assertDelivered(3_000);
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is still pending");
            }
            finally
            {
                Thread.interrupted();
            }
        }
    }
}
