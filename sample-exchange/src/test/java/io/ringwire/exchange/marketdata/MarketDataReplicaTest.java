package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.codecs.trading.OrderReplacedDecoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TradeDecoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.CAPACITY_EXCEEDED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.DUPLICATE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.GAP;
import static io.ringwire.exchange.marketdata.MarketDataBooks.IGNORED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.MALFORMED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.RECOVERED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replicas of a real matching engine's books, fed its market data as it sends it: the whole feed,
 * a feed with a message dropped, a feed joined half-way, and messages that are broken, repeated or
 * beyond a replica's capacity. The engine's own books are the truth, compared by
 * {@link PublicBookDigest}.
 */
class MarketDataReplicaTest
{
    private static final int INSTRUMENTS = 4;
    private static final int MAX_ORDERS = 200_000;
    /** Where the instrument id sits in every market-data message: the first field of the block. */
    private static final int INSTRUMENT_AT = MessageHeaderDecoder.ENCODED_LENGTH;

    @Test
    void aReplicaFedTheWholeFeedShowsTheEnginesPublicBooksAfterEveryTenThousandRequests()
    {
        final MarketDataBooks replica = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final FeedShape shape = new FeedShape();
        final long[] outcomes = new long[16];
        final TestExchange exchange = new TestExchange(0x5EED_A11L, INSTRUMENTS, (buffer, offset, length) ->
        {
            shape.see(buffer, offset);
            outcomes[replica.onMessage(buffer, offset, length)]++;
        });

        for (int round = 1; round <= 30; round++)
        {
            exchange.run(10_000);
            assertEquals(exchange.digest(), replica.publicDigest(), "public books after " + round * 10_000 + " requests");
            assertBooksWellFormed(replica);
        }

        assertEquals(exchange.marketDataMessages, outcomes[APPLIED], "every message applied");
        assertEquals(0, replica.gaps() + replica.streamGaps() + replica.inconsistencies() + replica.capacityExceeded());
        shape.assertCoversTheRules();
    }

    @Test
    void aDroppedIncrementalIsAGapForItsInstrumentOnlyAndASnapshotFromTheServiceRecoversIt()
    {
        final MarketDataBooks service = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final SnapshotEncoder snapshots = new SnapshotEncoder(service, SnapshotEncoder.MAX_ORDERS_PER_PART);
        final MarketDataBooks client = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        final Recovery recovery = new Recovery(20_000, 500);
        final TestExchange exchange = new TestExchange(0x5EED_B22L, INSTRUMENTS, (buffer, offset, length) ->
        {
            service.onMessage(buffer, offset, length);
            final long index = recovery.seen++;
            if (index == recovery.dropAt)
            {
                recovery.dropped = instrumentOf(buffer, offset);
                return;
            }
            final int outcome = client.onMessage(buffer, offset, length);
            if (outcome == GAP)
            {
                recovery.gapOn = instrumentOf(buffer, offset);
                recovery.answerAt = index + recovery.delay;
            }
            if (index == recovery.answerAt)
            {
                recovery.staleBeforeSnapshot = staleInstruments(client);
                snapshots.encode(recovery.gapOn, partBuffer, 0, (part, partOffset, partLength) ->
                    recovery.lastSnapshotOutcome = client.onMessage(part, partOffset, partLength));
            }
        });

        exchange.run(100_000);

        assertTrue(recovery.dropped > 0 && recovery.answerAt > 0, "a message was dropped and its gap answered");
        assertEquals(recovery.dropped, recovery.gapOn, "the gap shows on the dropped message's instrument");
        assertEquals(Set.of(recovery.dropped), recovery.staleBeforeSnapshot, "only that instrument is stale");
        assertEquals(RECOVERED, recovery.lastSnapshotOutcome);
        assertEquals(1, client.gaps());
        assertEquals(1, client.streamGaps());
        assertEquals(1, client.recoveries());
        assertTrue(client.staleIgnored() > 0, "incrementals for the stale book were dropped until the snapshot");
        assertEquals(Set.of(), staleInstruments(client));
        assertEquals(exchange.digest(), client.publicDigest(), "the recovered client shows the engine's books");
        assertEquals(service.publicDigest(), client.publicDigest());
        for (int round = 0; round < 3; round++)
        {
            exchange.run(10_000);
            assertEquals(exchange.digest(), client.publicDigest(), "and keeps them after");
        }
    }

    @Test
    void aLateJoinerGetsSnapshotsOfEveryInstrumentInBandAndEndsWithTheEnginesBooks()
    {
        final MarketDataBooks service = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final SnapshotEncoder snapshots = new SnapshotEncoder(service, SnapshotEncoder.MAX_ORDERS_PER_PART);
        final SnapshotSchedule schedule = new SnapshotSchedule(service, snapshots);
        final MarketDataBooks late = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        final Messages request = new Messages(0);
        final int requestLength = request.snapshotRequest(0);
        final long[] state = { 0, -1, 0 }; // messages seen since joining, when the answer goes out, parts sent
        final boolean[] joined = { false };
        final TestExchange exchange = new TestExchange(0x5EED_C33L, INSTRUMENTS, (buffer, offset, length) ->
        {
            service.onMessage(buffer, offset, length);
            if (!joined[0])
            {
                return;
            }
            late.onMessage(buffer, offset, length);
            if (state[0]++ == state[1])
            {
                assertTrue(schedule.request(request.buffer, 0, requestLength));
                while (schedule.hasWanted())
                {
                    state[2] += schedule.sendDue(0, partBuffer, 0,
                        (part, partOffset, partLength) -> late.onMessage(part, partOffset, partLength));
                }
            }
        });

        exchange.run(100_000);
        joined[0] = true;
        state[1] = 300;
        exchange.run(100_000);

        assertTrue(state[2] >= INSTRUMENTS, "a part or more per instrument: " + state[2]);
        assertTrue(late.gaps() >= 1, "joining mid-stream shows as gaps first");
        assertEquals(INSTRUMENTS, late.recoveries());
        assertEquals(Set.of(), staleInstruments(late));
        assertEquals(exchange.digest(), late.publicDigest(), "the late joiner shows the engine's books");
        for (int instrument = 1; instrument <= INSTRUMENTS; instrument++)
        {
            assertEquals(service.sequence(instrument), late.sequence(instrument));
        }
        assertBooksWellFormed(late);
    }

    @Test
    void aBookLargerThanOnePartRoundTripsThroughItsSnapshotParts()
    {
        final MarketDataBooks service = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final TestExchange exchange = new TestExchange(0x5EED_D44L, INSTRUMENTS,
            (buffer, offset, length) -> service.onMessage(buffer, offset, length));
        exchange.run(100_000);
        int largest = 1;
        for (int instrument = 2; instrument <= INSTRUMENTS; instrument++)
        {
            largest = service.orderCount(instrument) > service.orderCount(largest) ? instrument : largest;
        }
        final int orders = service.orderCount(largest);
        assertTrue(orders > SnapshotEncoder.MAX_ORDERS_PER_PART, "the largest book has " + orders + " orders");

        for (final int perPart : new int[] { SnapshotEncoder.MAX_ORDERS_PER_PART, 7 })
        {
            final SnapshotEncoder snapshots = new SnapshotEncoder(service, perPart);
            final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
            final MarketDataBooks fresh = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
            final List<Integer> outcomes = new ArrayList<>();
            final int parts = snapshots.encode(largest, partBuffer, 0, (part, partOffset, partLength) ->
            {
                assertTrue(partLength <= snapshots.maxPartLength());
                outcomes.add(fresh.onMessage(part, partOffset, partLength));
            });

            assertEquals((orders + perPart - 1) / perPart, parts, perPart + " orders a part");
            assertEquals(RECOVERED, outcomes.getLast());
            assertEquals(parts - 1, outcomes.stream().filter(outcome -> outcome == APPLIED).count());
            assertEquals(orders, fresh.orderCount(largest));
            assertEquals(service.sequence(largest), fresh.sequence(largest));

            snapshots.encode(0, partBuffer, 0, (part, partOffset, partLength) -> fresh.onMessage(part, partOffset, partLength));
            assertEquals(exchange.digest(), fresh.publicDigest(), "every book through parts of " + perPart);
            assertEquals(INSTRUMENTS, fresh.recoveries());
        }
    }

    @Test
    void malformedAndDuplicateMessagesAreCountedAndChangeNothing()
    {
        final MarketDataBooks replica = new MarketDataBooks(TestExchange.instruments(16), MAX_ORDERS);
        final UnsafeBuffer earlier = new UnsafeBuffer(new byte[256]);
        final int[] earlierLength = { 0 };
        final TestExchange exchange = new TestExchange(0x5EED_E55L, INSTRUMENTS, (buffer, offset, length) ->
        {
            replica.onMessage(buffer, offset, length);
            if (earlierLength[0] == 0)
            {
                earlier.putBytes(0, buffer, offset, length);
                earlierLength[0] = length;
            }
        });
        exchange.run(20_000);
        final String before = replica.publicDigest();
        final long applied = replica.applied();
        final long[] sequences = sequences(replica);

        assertEquals(MALFORMED, replica.onMessage(earlier, 0, earlierLength[0] - 1), "truncated");
        assertEquals(MALFORMED, replica.onMessage(earlier, 0, 5), "shorter than a header");
        final UnsafeBuffer otherSchema = new UnsafeBuffer(new byte[256]);
        otherSchema.putBytes(0, earlier, 0, earlierLength[0]);
        otherSchema.putShort(4, (short)(MessageHeaderDecoder.SCHEMA_ID + 1), ByteOrder.LITTLE_ENDIAN);
        assertEquals(MALFORMED, replica.onMessage(otherSchema, 0, earlierLength[0]), "another schema");
        assertEquals(DUPLICATE, replica.onMessage(earlier, 0, earlierLength[0]), "the first message again");
        final Messages request = new Messages(0);
        assertEquals(IGNORED, replica.onMessage(request.buffer, 0, request.snapshotRequest(1)), "not market data");
        final SnapshotEncoder snapshots = new SnapshotEncoder(replica, SnapshotEncoder.MAX_ORDERS_PER_PART);
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        final UnsafeBuffer ownSnapshot = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        final int[] ownLength = { 0 };
        snapshots.encode(1, partBuffer, 0, (part, partOffset, partLength) ->
        {
            if (ownLength[0] == 0)
            {
                ownSnapshot.putBytes(0, part, partOffset, partLength);
                ownLength[0] = partLength;
            }
        });
        assertEquals(IGNORED, replica.onMessage(ownSnapshot, 0, ownLength[0]), "a snapshot no newer than a live book");

        assertEquals(3, replica.malformed());
        assertEquals(1, replica.duplicates());
        assertEquals(applied, replica.applied());
        assertEquals(before, replica.publicDigest());
        assertEquals(Arrays.toString(sequences), Arrays.toString(sequences(replica)));
        assertEquals(Set.of(), staleInstruments(replica));
        exchange.run(10_000);
        assertEquals(exchange.digest(), replica.publicDigest(), "the feed goes on as if they never came");
    }

    @Test
    void messagesBeyondTheCapacityAreCountedAndMarkTheirBookStaleWithoutFailing()
    {
        final MarketDataBooks small = new MarketDataBooks(TestExchange.instruments(2), 300);
        final long[] outcomes = new long[16];
        final TestExchange exchange = new TestExchange(0x5EED_F66L, INSTRUMENTS,
            (buffer, offset, length) -> outcomes[small.onMessage(buffer, offset, length)]++);

        exchange.run(30_000);

        assertTrue(outcomes[CAPACITY_EXCEEDED] > 0);
        assertEquals(outcomes[CAPACITY_EXCEEDED], small.capacityExceeded());
        assertEquals(2, small.instruments());
        assertTrue(small.isStale(3) && small.isStale(4), "instruments the replica was not given have no book");
        assertEquals(0, small.orderCount(3));
        final Set<Integer> stale = staleInstruments(small);
        assertTrue(stale.contains(1) || stale.contains(2), "a book with more orders than fit is stale: " + stale);
        for (final int instrument : stale)
        {
            if (instrument <= 2)
            {
                assertEquals(0, small.orderCount(instrument), "a book that overflowed is emptied for the others");
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Checks the replica's own invariants through its read API. */
    private static void assertBooksWellFormed(final MarketDataBooks books)
    {
        assertTrue(books.levelsConsistent(), "every level's quantity and count are its orders'");
        for (int instrument = 1; instrument <= INSTRUMENTS; instrument++)
        {
            assertFalse(books.isStale(instrument));
            int orders = 0;
            for (final Side side : new Side[] { Side.BUY, Side.SELL })
            {
                long previous = side == Side.BUY ? Long.MAX_VALUE : Long.MIN_VALUE;
                for (int level = books.bestLevel(instrument, side); level != NONE; level = books.nextLevel(level))
                {
                    final long price = books.levelPrice(level);
                    assertTrue(side == Side.BUY ? price < previous : price > previous, "levels best first");
                    previous = price;
                    long quantity = 0;
                    int count = 0;
                    for (int order = books.firstOrder(level); order != NONE; order = books.nextOrder(order))
                    {
                        assertTrue(books.shown(order) > 0);
                        quantity += books.shown(order);
                        count++;
                    }
                    assertEquals(quantity, books.levelQuantity(level));
                    assertEquals(count, books.levelOrderCount(level));
                    orders += count;
                }
            }
            final int bid = books.bestLevel(instrument, Side.BUY);
            final int ask = books.bestLevel(instrument, Side.SELL);
            assertTrue(bid == NONE || ask == NONE || books.levelPrice(bid) < books.levelPrice(ask), "not crossed");
            assertEquals(orders, books.orderCount(instrument));
        }
    }

    private static int instrumentOf(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + INSTRUMENT_AT, ByteOrder.LITTLE_ENDIAN);
    }

    private static Set<Integer> staleInstruments(final MarketDataBooks books)
    {
        final Set<Integer> stale = new HashSet<>();
        for (int instrument = 1; instrument <= INSTRUMENTS; instrument++)
        {
            if (books.isStale(instrument))
            {
                stale.add(instrument);
            }
        }
        return stale;
    }

    private static long[] sequences(final MarketDataBooks books)
    {
        final long[] sequences = new long[INSTRUMENTS + 1];
        for (int instrument = 1; instrument <= INSTRUMENTS; instrument++)
        {
            sequences[instrument] = books.sequence(instrument);
        }
        return sequences;
    }

    /** What the client of the gap test saw, and when the service answers it. */
    private static final class Recovery
    {
        final long dropAt;
        final long delay;
        long seen;
        int dropped;
        int gapOn;
        long answerAt = -1;
        Set<Integer> staleBeforeSnapshot = Set.of();
        int lastSnapshotOutcome = -1;

        Recovery(final long dropAt, final long delay)
        {
            this.dropAt = dropAt;
            this.delay = delay;
        }
    }

    /** Counts the kinds of message the flow made the engine send, so the test knows it covered them. */
    private static final class FeedShape
    {
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        private final OrderReplacedDecoder replaced = new OrderReplacedDecoder();
        private final OrderAddedDecoder added = new OrderAddedDecoder();
        private final Set<Long> addedIds = new HashSet<>();
        private long trades;
        private long executed;
        private long canceled;
        private long replacesKeepingPriority;
        private long replacesLosingPriority;
        private long readded;

        void see(final DirectBuffer buffer, final int offset)
        {
            header.wrap(buffer, offset);
            final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
            switch (header.templateId())
            {
                case TradeDecoder.TEMPLATE_ID -> trades++;
                case 33 -> executed++;
                case 34 -> canceled++;
                case OrderReplacedDecoder.TEMPLATE_ID ->
                {
                    replaced.wrap(buffer, body, header.blockLength(), header.version());
                    if (replaced.keepsPriorityRaw() == BooleanType.TRUE.value())
                    {
                        replacesKeepingPriority++;
                    }
                    else
                    {
                        replacesLosingPriority++;
                    }
                }
                case OrderAddedDecoder.TEMPLATE_ID ->
                {
                    added.wrap(buffer, body, header.blockLength(), header.version());
                    if (!addedIds.add(added.orderId()))
                    {
                        readded++;
                    }
                }
                default ->
                {
                }
            }
        }

        void assertCoversTheRules()
        {
            final String shape = trades + " trades, " + executed + " executed, " + canceled + " canceled, " +
                replacesKeepingPriority + " replaces in place, " + replacesLosingPriority + " to the back, " + readded +
                " orders added again (iceberg refills, crossing replaces)";
            System.out.println(shape);
            assertTrue(Math.min(Math.min(trades, executed), Math.min(canceled, readded)) > 0 &&
                Math.min(replacesKeepingPriority, replacesLosingPriority) > 0, shape);
        }
    }
}
