package io.ringwire.rdma.shm;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShmRecordRingTest
{
    private static final int RING_BYTES = 4096;
    private static final int SLOTS = RING_BYTES / ShmRecordRing.SLOT_LENGTH;

    private final AtomicBuffer slots = new UnsafeBuffer(BufferUtil.allocateDirectAligned(RING_BYTES, 64));
    private final AtomicBuffer acknowledgements = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private final ShmRecordRing producer = new ShmRecordRing(slots, acknowledgements, 8);
    private final ShmRecordRing consumer = new ShmRecordRing(slots, acknowledgements, 8);
    private final List<String> seen = new ArrayList<>();

    private final ShmRecordRing.RecordHandler recorder = (type, buffer, index, length, immediate) ->
    {
        if (ShmRecordRing.SEND_TYPE == type)
        {
            final byte[] payload = new byte[length];
            buffer.getBytes(index + ShmRecordRing.PAYLOAD_OFFSET, payload);
            seen.add("SEND " + new String(payload, java.nio.charset.StandardCharsets.US_ASCII));
        }
        else if (ShmRecordRing.WRITE_WITH_IMMEDIATE_TYPE == type)
        {
            seen.add("IMM " + buffer.getInt(index + ShmRecordRing.IMMEDIATE_OFFSET) + "/" + length);
        }
        else
        {
            seen.add("MALFORMED " + type);
        }
        return ShmRecordRing.CONTINUE;
    };

    private boolean notify(final int immediate, final int length)
    {
        final int index = producer.tryClaim(ShmRecordRing.WRITE_WITH_IMMEDIATE_TYPE, 0);
        if (index < 0)
        {
            return false;
        }
        slots.putInt(index + ShmRecordRing.IMMEDIATE_OFFSET, immediate);
        slots.putInt(index + ShmRecordRing.LENGTH_OFFSET, length);
        producer.commit(index);
        return true;
    }

    private boolean send(final byte[] payload)
    {
        final int index = producer.tryClaim(ShmRecordRing.SEND_TYPE, payload.length);
        if (index < 0)
        {
            return false;
        }
        slots.putInt(index + ShmRecordRing.LENGTH_OFFSET, payload.length);
        slots.putBytes(index + ShmRecordRing.PAYLOAD_OFFSET, payload);
        producer.commit(index);
        return true;
    }

    @Test
    void aNotificationTakesOneCacheLineSlotAndTheRingHoldsOnePerSlot()
    {
        int accepted = 0;
        while (notify(accepted, 8))
        {
            accepted++;
        }
        assertEquals(SLOTS, accepted);
        assertEquals(SLOTS, consumer.read(recorder, Integer.MAX_VALUE));
        assertEquals("IMM 0/8", seen.get(0));
        assertEquals("IMM " + (SLOTS - 1) + "/8", seen.get(SLOTS - 1));
        assertFalse(notify(1, 1), "no room until the consumer publishes what it consumed");
        consumer.publishConsumed();
        assertTrue(notify(1, 1));
    }

    @Test
    void aRecordThatDoesNotFitBeforeTheEndIsPaddedAndStartsAtSlotZero()
    {
        for (int i = 0; i < SLOTS - 2; i++)
        {
            assertTrue(notify(i, 1));
        }
        assertEquals(SLOTS - 2, consumer.read(recorder, Integer.MAX_VALUE));
        consumer.publishConsumed();
        seen.clear();

        final byte[] threeSlots = "x".repeat(3 * 64 - ShmRecordRing.PAYLOAD_OFFSET).getBytes();
        assertTrue(send(threeSlots), "two slots of padding, then the record at slot 0");
        assertEquals(1, consumer.read(recorder, Integer.MAX_VALUE));
        assertEquals(List.of("SEND " + new String(threeSlots)), seen);
    }

    @Test
    void aConsumerNeverTakesStalePayloadBytesForTheNextRecord()
    {
        // Record 1: a SEND over slots 0-7 whose payload holds, at every slot boundary, 59: the sequence
        // the consumer will expect at slot 1 one lap later, after records 2-57 (slots 8-63) and 58 (slot 0).
        final int recordSlots = 8;
        final long expectedAtSlotOne = 2 + (SLOTS - recordSlots) + 1;
        final byte[] payload = new byte[recordSlots * 64 - ShmRecordRing.PAYLOAD_OFFSET];
        final UnsafeBuffer view = new UnsafeBuffer(payload);
        for (int slot = 1; slot < recordSlots; slot++)
        {
            view.putLong(slot * 64 - ShmRecordRing.PAYLOAD_OFFSET, expectedAtSlotOne);
        }
        assertTrue(send(payload));
        assertEquals(1, consumer.read(recorder, Integer.MAX_VALUE));
        consumer.publishConsumed();
        for (int i = 0; i < SLOTS - recordSlots + 1; i++)
        {
            assertTrue(notify(i, 0));
            assertEquals(1, consumer.read(recorder, 1));
            consumer.publishConsumed();
        }
        assertEquals(0, consumer.read(recorder, Integer.MAX_VALUE),
            "slot 1 holds old payload equal to the expected sequence: it must not read as a record");
        assertTrue(notify(-1, 0));
        assertEquals(1, consumer.read(recorder, Integer.MAX_VALUE));
        assertEquals("IMM -1/0", seen.get(seen.size() - 1));
    }

    @Test
    void anAbortedRecordIsOfferedAgainAndABreakStopsAfterConsumingIt()
    {
        assertTrue(notify(1, 1));
        assertTrue(notify(2, 2));
        assertEquals(0, consumer.read((type, buffer, index, length, immediate) -> ShmRecordRing.ABORT, 10));
        assertEquals(1, consumer.read((type, buffer, index, length, immediate) -> ShmRecordRing.BREAK, 10));
        assertEquals(1, consumer.read(recorder, 10));
        assertEquals(List.of("IMM 2/2"), seen);
    }

    @Test
    void aHeaderThatDoesNotFitItsSpanIsHandedOverAsMalformed()
    {
        final int index = producer.tryClaim(ShmRecordRing.SEND_TYPE, 10);
        slots.putInt(index + ShmRecordRing.LENGTH_OFFSET, 500); // claims more than its one slot
        producer.commit(index);
        final int second = producer.tryClaim(ShmRecordRing.WRITE_WITH_IMMEDIATE_TYPE, 0);
        slots.putInt(second + ShmRecordRing.TYPE_AND_SLOTS_OFFSET,
            (SLOTS + 5) << 8 | ShmRecordRing.WRITE_WITH_IMMEDIATE_TYPE); // spans past the end
        producer.commit(second);
        assertEquals(2, consumer.read(recorder, 10));
        assertEquals(List.of("MALFORMED -1", "MALFORMED -1"), seen);
    }

    @Test
    void recordsOfMixedSizesCrossThreadsInOrderAndByteExact() throws InterruptedException
    {
        final int records = 300_000;
        final long seed = 0x5EED_1234L;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread producerThread = new Thread(() ->
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final byte[] payload = new byte[producer.maxPayloadLength()];
            for (int i = 0; i < records; i++)
            {
                final int length = random.nextInt(4) == 0 ? random.nextInt(payload.length + 1) : random.nextInt(40);
                random.nextBytes(payload);
                final int index;
                int claimed;
                while ((claimed = producer.tryClaim(ShmRecordRing.SEND_TYPE, length)) < 0)
                {
                    Thread.onSpinWait();
                }
                index = claimed;
                slots.putInt(index + ShmRecordRing.LENGTH_OFFSET, length);
                slots.putInt(index + ShmRecordRing.IMMEDIATE_OFFSET, i);
                slots.putBytes(index + ShmRecordRing.PAYLOAD_OFFSET, payload, 0, length);
                producer.commit(index);
            }
        }, "ring-producer");
        producerThread.start();

        final SplittableRandom expected = new SplittableRandom(seed);
        final byte[] expectedPayload = new byte[producer.maxPayloadLength()];
        final byte[] actual = new byte[producer.maxPayloadLength()];
        final int[] next = {0};
        final CRC32 expectedCrc = new CRC32();
        final CRC32 actualCrc = new CRC32();
        final ShmRecordRing.RecordHandler checker = (type, buffer, index, length, immediate) ->
        {
            final int expectedLength = expected.nextInt(4) == 0 ?
                expected.nextInt(expectedPayload.length + 1) : expected.nextInt(40);
            expected.nextBytes(expectedPayload);
            if (type != ShmRecordRing.SEND_TYPE || length != expectedLength ||
                buffer.getInt(index + ShmRecordRing.IMMEDIATE_OFFSET) != next[0])
            {
                failure.compareAndSet(null, new AssertionError("record " + next[0] + ": type " + type +
                    ", length " + length + " (expected " + expectedLength + ")"));
            }
            buffer.getBytes(index + ShmRecordRing.PAYLOAD_OFFSET, actual, 0, length);
            expectedCrc.update(expectedPayload, 0, expectedLength);
            actualCrc.update(actual, 0, length);
            next[0]++;
            return ShmRecordRing.CONTINUE;
        };
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (next[0] < records && null == failure.get() && System.nanoTime() < deadline)
        {
            if (consumer.read(checker, 16) > 0)
            {
                consumer.publishConsumed();
            }
        }
        producerThread.join(TimeUnit.SECONDS.toMillis(10));
        assertNull(failure.get());
        assertEquals(records, next[0]);
        assertEquals(expectedCrc.getValue(), actualCrc.getValue(), "payload checksum");
    }
}
