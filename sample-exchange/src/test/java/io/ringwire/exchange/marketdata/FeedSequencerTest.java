package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.TradeDecoder;
import org.junit.jupiter.api.Test;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.CAPACITY_EXCEEDED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.DUPLICATE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.GAP;
import static io.ringwire.exchange.marketdata.MarketDataBooks.IGNORED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.INCONSISTENT;
import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.RECOVERED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.STALE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sequencing rules alone, on sequence numbers without messages or books: which incremental is
 * due, what a gap and a stale book do, the steps of a snapshot, and what is counted.
 */
class FeedSequencerTest
{
    private static final long NO_STREAM = TradeDecoder.streamSequenceNullValue();

    private final FeedSequencer sequencer = new FeedSequencer(4);

    @Test
    void theNextSequenceIsDueAndALowerOneIsADuplicate()
    {
        assertEquals(APPLIED, sequencer.admit(0, 1, 1));
        assertEquals(APPLIED, sequencer.changed(0, APPLIED));
        assertEquals(DUPLICATE, sequencer.admit(0, 1, 2));

        assertEquals(1, sequencer.sequence(0));
        assertEquals(1, sequencer.applied());
        assertEquals(1, sequencer.duplicates());
        assertFalse(sequencer.isStale(0));
    }

    @Test
    void aGapMakesTheBookStaleAndItsIncrementalsAreDroppedUntilASnapshot()
    {
        assertEquals(GAP, sequencer.admit(0, 2, NO_STREAM));
        assertTrue(sequencer.isStale(0));
        assertEquals(STALE, sequencer.admit(0, 3, NO_STREAM));
        assertEquals(STALE, sequencer.admit(0, 1, NO_STREAM), "even the one that was missing");

        assertEquals(0, sequencer.sequence(0), "the book keeps the sequence of what it holds");
        assertEquals(1, sequencer.gaps());
        assertEquals(2, sequencer.staleIgnored());
        assertFalse(sequencer.isStale(1), "other books are not touched");
    }

    @Test
    void aStreamGapIsCountedOnAnyInstrumentAndTheStreamNeverGoesBack()
    {
        assertEquals(APPLIED, sequencer.admit(0, 1, 1));
        assertEquals(APPLIED, sequencer.admit(1, 1, 3));
        assertEquals(APPLIED, sequencer.admit(0, 2, 2));

        assertEquals(1, sequencer.streamGaps());
        assertEquals(3, sequencer.streamSequence());
        assertEquals(0, sequencer.gaps(), "no instrument missed anything");
    }

    @Test
    void anInstrumentWithoutASlotIsCapacityExceeded()
    {
        assertEquals(CAPACITY_EXCEEDED, sequencer.admit(NONE, 1, 1));
        assertEquals(CAPACITY_EXCEEDED, sequencer.snapshotPart(NONE, 5, 0, 1));
        assertEquals(2, sequencer.capacityExceeded());
        assertEquals(1, sequencer.streamSequence(), "the stream is watched all the same");
    }

    @Test
    void aChangeThatDidNotFitMakesTheBookStale()
    {
        assertEquals(APPLIED, sequencer.admit(0, 1, 1));
        assertEquals(INCONSISTENT, sequencer.changed(0, INCONSISTENT));
        assertTrue(sequencer.isStale(0));
        assertEquals(APPLIED, sequencer.admit(1, 1, 2));
        assertEquals(CAPACITY_EXCEEDED, sequencer.changed(1, CAPACITY_EXCEEDED));
        assertTrue(sequencer.isStale(1));

        assertEquals(1, sequencer.inconsistencies());
        assertEquals(1, sequencer.capacityExceeded());
        assertEquals(0, sequencer.applied());
    }

    @Test
    void aSnapshotStartsAtPartZeroAndItsLastPartMakesTheBookLiveAtItsSequence()
    {
        assertEquals(GAP, sequencer.admit(0, 3, 3));

        assertEquals(FeedSequencer.START, sequencer.snapshotPart(0, 7, 0, 9));
        assertEquals(APPLIED, sequencer.partLoaded(0, false));
        assertTrue(sequencer.isStale(0), "stale while parts arrive");
        assertEquals(FeedSequencer.CONTINUE, sequencer.snapshotPart(0, 7, 1, 9));
        assertEquals(RECOVERED, sequencer.partLoaded(0, true));

        assertFalse(sequencer.isStale(0));
        assertEquals(7, sequencer.sequence(0));
        assertEquals(1, sequencer.recoveries());
        assertEquals(APPLIED, sequencer.admit(0, 8, 10), "the incremental after the snapshot");
    }

    @Test
    void aSnapshotNoNewerThanALiveBookIsIgnoredAndALaterPartWithoutItsStartToo()
    {
        assertEquals(APPLIED, sequencer.admit(0, 1, 1));
        assertEquals(APPLIED, sequencer.admit(0, 2, 2));

        assertEquals(IGNORED, sequencer.snapshotPart(0, 2, 0, 2));
        assertEquals(IGNORED, sequencer.snapshotPart(0, 5, 1, 5));
        assertFalse(sequencer.isStale(0));
        assertEquals(FeedSequencer.START, sequencer.snapshotPart(0, 3, 0, 3), "a newer one replaces even a live book");
    }

    @Test
    void aRepeatedPartIsADuplicateAndOneOutOfOrderAbandonsTheSnapshot()
    {
        assertEquals(FeedSequencer.START, sequencer.snapshotPart(0, 4, 0, 4));
        assertEquals(APPLIED, sequencer.partLoaded(0, false));
        assertEquals(FeedSequencer.CONTINUE, sequencer.snapshotPart(0, 4, 1, 4));
        assertEquals(APPLIED, sequencer.partLoaded(0, false));

        assertEquals(DUPLICATE, sequencer.snapshotPart(0, 4, 1, 4));
        assertEquals(FeedSequencer.ABANDON, sequencer.snapshotPart(0, 4, 3, 4), "part 2 went missing");
        assertEquals(IGNORED, sequencer.snapshotPart(0, 4, 2, 4), "nothing is being collected now");
        assertTrue(sequencer.isStale(0));
        assertEquals(1, sequencer.duplicates());
        assertEquals(1, sequencer.snapshotsAbandoned());
    }

    @Test
    void aNewStartAbandonsTheSnapshotUnderWayAndAFailedPartLeavesTheBookStale()
    {
        assertEquals(FeedSequencer.START, sequencer.snapshotPart(0, 4, 0, 4));
        assertEquals(APPLIED, sequencer.partLoaded(0, false));
        assertEquals(FeedSequencer.START, sequencer.snapshotPart(0, 6, 0, 6));
        assertEquals(1, sequencer.snapshotsAbandoned());

        assertEquals(INCONSISTENT, sequencer.partFailed(0, INCONSISTENT));
        assertEquals(IGNORED, sequencer.snapshotPart(0, 6, 1, 6), "the failed snapshot is dropped");
        assertTrue(sequencer.isStale(0));
        assertEquals(1, sequencer.inconsistencies());
        assertEquals(0, sequencer.recoveries());
    }

    @Test
    void theStreamSequenceIsTakenFromASnapshotOnlyWhenNoneWasSeen()
    {
        assertEquals(FeedSequencer.START, sequencer.snapshotPart(0, 4, 0, 40));
        assertEquals(40, sequencer.streamSequence());
        assertEquals(FeedSequencer.START, sequencer.snapshotPart(1, 2, 0, 50));
        assertEquals(40, sequencer.streamSequence());
    }
}
