package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.engine.EngineConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ringwire.exchange.marketdata.SnapshotSchedule.BOOKS_PER_CALL;
import static io.ringwire.exchange.marketdata.SnapshotSchedule.MIN_INTERVAL_NS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A snapshot goes to every subscriber, so the service sends each wanted book once however many
 * requests want it, and no book more often than once an interval: a subscriber that floods the
 * request stream cannot make the service repeat the market to everyone.
 */
class SnapshotScheduleTest
{
    private static final int INSTRUMENTS = 20;

    private final MarketDataBooks books = new MarketDataBooks(EngineConfig.uniformInstruments(INSTRUMENTS, 1, 1_000), 100);
    private final SnapshotEncoder encoder = new SnapshotEncoder(books, SnapshotEncoder.MAX_ORDERS_PER_PART);
    private final SnapshotSchedule schedule = new SnapshotSchedule(books, encoder);
    private final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[encoder.maxPartLength()]);
    private final Messages requests = new Messages(0);
    private final List<Integer> sent = new ArrayList<>();
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final BookSnapshotDecoder snapshot = new BookSnapshotDecoder();
    private final SnapshotEncoder.PartSink sink = (buffer, offset, length) ->
    {
        header.wrap(buffer, offset);
        snapshot.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
        sent.add(snapshot.instrumentId());
    };

    private void request(final int instrument)
    {
        assertTrue(schedule.request(requests.buffer, 0, requests.snapshotRequest(instrument)));
    }

    private int sendAllDue(final long nowNs)
    {
        int parts = 0;
        int sentNow;
        while ((sentNow = schedule.sendDue(nowNs, partBuffer, 0, sink)) > 0)
        {
            parts += sentNow;
        }
        return parts;
    }

    @Test
    void aThousandRequestsForEveryBookSendEachBookOnce()
    {
        for (int i = 0; i < 1_000; i++)
        {
            request(0);
            request(1 + i % INSTRUMENTS);
        }
        assertEquals(INSTRUMENTS, sendAllDue(0));
        assertEquals(INSTRUMENTS, sent.stream().distinct().count(), "every book once: " + sent);
        assertEquals(2_000, schedule.requests());
        assertEquals(INSTRUMENTS, schedule.booksSent());
        assertFalse(schedule.hasWanted());
    }

    @Test
    void aBookAskedForAgainWithinTheIntervalWaitsForItsEndThenGoesOnce()
    {
        request(3);
        assertEquals(1, sendAllDue(1_000));
        sent.clear();

        for (int i = 0; i < 100; i++)
        {
            request(3);
            assertEquals(0, schedule.sendDue(1_000 + i * (MIN_INTERVAL_NS / 100), partBuffer, 0, sink),
                "not again within the interval");
        }
        assertTrue(schedule.hasWanted(), "the request waits, it is not dropped");
        assertEquals(1, schedule.sendDue(1_000 + MIN_INTERVAL_NS, partBuffer, 0, sink));
        assertEquals(List.of(3), sent);
        assertEquals(0, schedule.sendDue(1_000 + 2 * MIN_INTERVAL_NS, partBuffer, 0, sink), "answered once");
    }

    @Test
    void aBookNotSentLatelyGoesAtOnceWhileAnotherWaitsOutItsInterval()
    {
        request(1);
        assertEquals(1, sendAllDue(0));
        request(1);
        request(2);
        assertEquals(1, sendAllDue(10));
        assertEquals(List.of(1, 2), sent);
        assertEquals(1, sendAllDue(MIN_INTERVAL_NS));
        assertEquals(List.of(1, 2, 1), sent);
    }

    @Test
    void oneCallSendsAtMostItsShareOfBooksAndTheNextCallGoesOnFromThere()
    {
        request(0);
        assertEquals(BOOKS_PER_CALL, schedule.sendDue(0, partBuffer, 0, sink));
        assertEquals(BOOKS_PER_CALL, schedule.sendDue(0, partBuffer, 0, sink));
        assertEquals(INSTRUMENTS - 2 * BOOKS_PER_CALL, schedule.sendDue(0, partBuffer, 0, sink));
        final List<Integer> inOrder = new ArrayList<>();
        for (int instrument = 1; instrument <= INSTRUMENTS; instrument++)
        {
            inOrder.add(instrument);
        }
        assertEquals(inOrder, sent);
    }

    @Test
    void aMalformedRequestIsCountedAndAnUnlistedInstrumentAnswersNothing()
    {
        final Messages feed = new Messages(1);
        assertFalse(schedule.request(feed.buffer, 0, feed.added(1, Side.BUY, 1, 1)), "not a SnapshotRequest");
        assertFalse(schedule.request(requests.buffer, 0, 3), "too short to be one");
        assertEquals(2, schedule.badRequests());
        request(INSTRUMENTS + 1);
        assertFalse(schedule.hasWanted());
        assertEquals(0, sendAllDue(0));
        assertEquals(1, schedule.requests());
    }

    @Test
    void aBookAskedForWhileTheReplicaHasItStaleWaitsUntilTheReplicaRecoversThenGoesOnce()
    {
        // The replica misses the book's second change (the service missed part of the feed); a
        // replica that saw every change stands for the engine, whose snapshot recovers it.
        final MarketDataBooks truth = new MarketDataBooks(EngineConfig.uniformInstruments(INSTRUMENTS, 1, 1_000), 100);
        final Messages feed = new Messages(3);
        int length = feed.added(1, Side.BUY, 100, 10);
        books.onMessage(feed.buffer, 0, length);
        truth.onMessage(feed.buffer, 0, length);
        length = feed.added(2, Side.SELL, 110, 5);
        truth.onMessage(feed.buffer, 0, length);
        length = feed.executed(1, 4, 100);
        truth.onMessage(feed.buffer, 0, length);
        assertEquals(MarketDataBooks.GAP, books.onMessage(feed.buffer, 0, length));

        request(3);
        request(4);
        assertEquals(1, sendAllDue(0), "only the live book goes");
        assertEquals(List.of(4), sent);
        assertTrue(schedule.hasWanted(), "the stale book still wanted");
        assertEquals(0, sendAllDue(MIN_INTERVAL_NS), "not while the replica's copy is stale");

        final UnsafeBuffer engineSnapshot = new UnsafeBuffer(new byte[encoder.maxPartLength()]);
        new SnapshotEncoder(truth, SnapshotEncoder.MAX_ORDERS_PER_PART).encode(3, engineSnapshot, 0,
            (buffer, offset, partLength) -> books.onMessage(buffer, offset, partLength));
        assertFalse(books.isStale(3), "the replica recovered");
        assertEquals(1, sendAllDue(2 * MIN_INTERVAL_NS), "the book goes once the replica has it");
        assertEquals(List.of(4, 3), sent);
        assertFalse(schedule.hasWanted());
    }
}
