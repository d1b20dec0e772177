package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The engine sequences a clients process received: each taken once, in a window that slides with the highest. */
class EngineSequencesTest
{
    @Test
    void eachSequenceIsTakenOnceAndAReportWithoutOneIsNone()
    {
        final EngineSequences sequences = new EngineSequences(64);
        assertEquals(EngineSequences.FIRST, sequences.onSequence(3));
        assertEquals(EngineSequences.FIRST, sequences.onSequence(1));
        assertEquals(EngineSequences.DUPLICATE, sequences.onSequence(3));
        assertEquals(EngineSequences.NONE, sequences.onSequence(0));
        assertEquals(EngineSequences.NONE, sequences.onSequence(Long.MIN_VALUE));
        assertEquals(3, sequences.highest());
    }

    @Test
    void sequencesPastTheFirstWindowAreStillCheckedAsTheWindowSlides()
    {
        final EngineSequences sequences = new EngineSequences(64);
        for (long sequence = 1; sequence <= 1000; sequence++)
        {
            assertEquals(EngineSequences.FIRST, sequences.onSequence(sequence), "sequence " + sequence);
        }
        // The slot of 1000 was 936's, 872's, ...: each new sequence emptied it first.
        assertEquals(EngineSequences.DUPLICATE, sequences.onSequence(1000));
        assertEquals(EngineSequences.DUPLICATE, sequences.onSequence(1000 - 63), "the window's oldest");
        assertEquals(EngineSequences.UNCHECKED, sequences.onSequence(1000 - 64), "behind the window");
        // Out of order within the window, and a jump of more than a window.
        assertEquals(EngineSequences.FIRST, sequences.onSequence(1010));
        assertEquals(EngineSequences.FIRST, sequences.onSequence(1005));
        assertEquals(EngineSequences.DUPLICATE, sequences.onSequence(1005));
        assertEquals(EngineSequences.FIRST, sequences.onSequence(5000));
        assertEquals(EngineSequences.FIRST, sequences.onSequence(4990), "the jump emptied every slot it passed");
        assertEquals(EngineSequences.UNCHECKED, sequences.onSequence(1010));
        assertEquals(EngineSequences.FIRST, sequences.onSequence(Long.MAX_VALUE), "the largest: a jump, no wrap");
        assertEquals(EngineSequences.DUPLICATE, sequences.onSequence(Long.MAX_VALUE));
    }

    @Test
    void theDefaultWindowReachesPastWhereAFixedTableOfItsSizeStopped()
    {
        final EngineSequences sequences = new EngineSequences();
        final long past = EngineSequences.WINDOW + 5L;
        assertEquals(EngineSequences.FIRST, sequences.onSequence(past));
        assertEquals(EngineSequences.DUPLICATE, sequences.onSequence(past));
        assertEquals(EngineSequences.FIRST, sequences.onSequence(past - 1));
    }

    @Test
    void aWindowThatIsNoPowerOfTwoIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new EngineSequences(100));
    }
}
