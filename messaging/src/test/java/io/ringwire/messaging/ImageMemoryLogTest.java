package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameAppender;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.FrameSigner;
import io.ringwire.messaging.protocol.JoinLayout;
import io.ringwire.messaging.status.SubscriptionCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.QueuePair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.messaging.protocol.FrameDescriptor.FRAME_LENGTH_OFFSET;
import static io.ringwire.messaging.protocol.FrameDescriptor.LINE_ALIGNMENT;
import static io.ringwire.messaging.protocol.FrameDescriptor.ORDER;
import static io.ringwire.messaging.protocol.FrameDescriptor.UNFRAGMENTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An image over a memory log (shm) holds its position to the frame grid and to what it delivered:
 * a JOIN off the grid is a protocol error before any read, and a handler that throws leaves every
 * frame up to and including the one it threw on delivered once, the rest still to come, whole. On
 * a stream with checksums every frame's trailer is checked, a PAD frame's too: a PAD frame's length
 * says how far to skip, so a corrupted one would pass over frames unseen.
 */
class ImageMemoryLogTest
{
    private static final int CAPACITY = 4096;
    private static final int SESSION = 0x0BAD_CAFE;
    private static final int STREAM = 3;
    private static final long WORD = FrameDescriptor.sessionStreamWord(SESSION, STREAM);

    @TempDir
    Path directory;

    private ShmImageFixture fixture;
    private SubscriptionCounters counters;
    private MemoryRegion ring;
    private MemoryRegion credit;
    private MemoryRegion join;
    private QueuePair queuePair;

    @BeforeEach
    void open()
    {
        fixture = new ShmImageFixture(directory, CAPACITY, STREAM);
        counters = fixture.counters;
        ring = fixture.ring;
        credit = fixture.credit;
        join = fixture.join;
        queuePair = fixture.queuePair;
    }

    @AfterEach
    void close()
    {
        fixture.close();
    }

    private Image image()
    {
        return image(false);
    }

    private Image image(final boolean checksums)
    {
        return new Image(SESSION, "shared", STREAM, queuePair, ring, credit, join, 0, 0, 0, 4, 16, checksums, true, 0);
    }

    private int joinAt(final Image image, final long position)
    {
        join.buffer().putLong(JoinLayout.POSITION_OFFSET, position, ORDER);
        return image.onJoin(JoinLayout.LENGTH, 0, counters);
    }

    @Test
    void aJoinOffTheLineGridNegativeOrAtTheEndOfThePositionSpaceIsAProtocolError()
    {
        for (final long position : new long[]{ -LINE_ALIGNMENT, 8, CAPACITY - 8, LINE_ALIGNMENT + 56,
            Long.MAX_VALUE - (LINE_ALIGNMENT - 1), Long.MAX_VALUE - 2L * CAPACITY + LINE_ALIGNMENT })
        {
            assertEquals(Image.PROTOCOL_ERROR, joinAt(image(), position), "JOIN at " + position);
        }
        assertEquals(Image.VALID, joinAt(image(), 5L * CAPACITY + 3 * LINE_ALIGNMENT));
        assertEquals(Image.VALID, joinAt(image(), (Long.MAX_VALUE - 2L * CAPACITY) & -LINE_ALIGNMENT),
            "as near the end as a publication goes");
    }

    @Test
    void aPositionOffTheLineGridIsAProtocolErrorBeforeAnyRead()
    {
        final Image image = image();
        final long start = 2L * CAPACITY;
        assertEquals(Image.VALID, joinAt(image, start));
        new FrameAppender(ring.buffer(), true).appendData(start, UNFRAGMENTED, new UnsafeBuffer(new byte[8]), 0, 8, 0,
            WORD);
        // Only a frame announced as over RDMA (which a memory log's subscription refuses) moves the
        // position by other than whole lines: the log's reader would then read past the ring's end.
        image.position = start + CAPACITY - FrameDescriptor.ALIGNMENT;
        final int[] delivered = { 0 };
        assertEquals(Image.LOG_PROTOCOL_ERROR, image.pollLog((buffer, offset, length, header) -> delivered[0]++, 10,
            counters, new SubscriptionTallies(), 0));
        assertEquals(0, delivered[0]);
    }

    @Test
    void aHandlerThatThrowsLeavesTheFramesUpToItDeliveredOnceAndTheRestWhole()
    {
        final Image image = image();
        final long start = 3L * CAPACITY + 512;
        assertEquals(Image.VALID, joinAt(image, start));
        final FrameAppender appender = new FrameAppender(ring.buffer(), true);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[100]); // 124 bytes with the header: two lines
        long position = start;
        for (int frame = 0; frame < 6; frame++)
        {
            for (int i = 0; i < payload.capacity(); i++)
            {
                payload.putByte(i, (byte)(frame * 31 + i + 1));
            }
            appender.appendData(position, UNFRAGMENTED, payload, 0, payload.capacity(), 0, WORD);
            position += 2 * LINE_ALIGNMENT;
        }
        final List<Integer> delivered = new ArrayList<>();
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            final int frame = ((buffer.getByte(offset) & 0xFF) - 1) / 31;
            for (int i = 0; i < length; i++)
            {
                assertEquals((byte)(frame * 31 + i + 1), buffer.getByte(offset + i), "frame " + frame + " byte " + i);
            }
            delivered.add(frame);
            if (frame == 2)
            {
                throw new IllegalStateException("the application fails on frame 2");
            }
        };
        final SubscriptionTallies tallies = new SubscriptionTallies();
        assertThrows(IllegalStateException.class, () -> image.pollLog(handler, 10, counters, tallies, 0));
        assertEquals(List.of(0, 1, 2), delivered);
        assertEquals(start + 3 * 2 * LINE_ALIGNMENT, image.position, "frame 2 counts as delivered");

        assertEquals(3, image.pollLog(handler, 10, counters, tallies, 0));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), delivered, "no frame twice, none lost");
        assertEquals(0, image.pollLog(handler, 10, counters, tallies, 0));
    }

    @Test
    void theHeaderAHandlerIsGivenSaysWhatTheImageCheckedNotWhatThePublisherWroteOverItSince()
    {
        final Image image = image();
        final long start = 5L * CAPACITY + LINE_ALIGNMENT;
        assertEquals(Image.VALID, joinAt(image, start));
        final FrameAppender appender = new FrameAppender(ring.buffer(), true);
        appender.appendData(start, FrameDescriptor.BEGIN_FLAG, new UnsafeBuffer(new byte[20]), 0, 20, 0, WORD);
        final List<String> seen = new ArrayList<>();
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            // The publisher's process stores over the committed frame's header while it is handled.
            final int frame = offset - FrameDescriptor.HEADER_LENGTH;
            ring.buffer().putByte(frame + FrameDescriptor.FLAGS_OFFSET, FrameDescriptor.UNFRAGMENTED);
            ring.buffer().putInt(frame + FRAME_LENGTH_OFFSET, 4000, ORDER);
            ring.buffer().putLong(frame + FrameDescriptor.POSITION_OFFSET, 12345L, ORDER);
            seen.add(header.flags() + "/" + header.frameLength() + "/" + header.position() + "/" + header.sessionId());
        };
        assertEquals(1, image.pollLog(handler, 10, counters, new SubscriptionTallies(), 0));
        assertEquals(List.of(FrameDescriptor.BEGIN_FLAG + "/" + (FrameDescriptor.HEADER_LENGTH + 20) + "/" + start + "/" +
            SESSION), seen, "flags, length, position and session as checked");
    }

    @Test
    void aPadFrameWhoseLengthWasCorruptedIsAChecksumErrorNotASkipOverTheFramesAfterIt()
    {
        final long start = 4L * CAPACITY;
        final FrameAppender appender = new FrameAppender(ring.buffer(), true);
        final FrameSigner signer = new FrameSigner(ring.buffer());
        signer.checksums(true);
        final long pad = appendSigned(appender, signer, start, 1) + LINE_ALIGNMENT;
        appender.abort(pad, 2 * LINE_ALIGNMENT, WORD);
        appender.commit(pad, WORD);
        signer.sign(appender.offset(pad), 2 * LINE_ALIGNMENT);
        long position = pad + 2 * LINE_ALIGNMENT;
        for (int frame = 2; frame <= 3; frame++)
        {
            position = appendSigned(appender, signer, position, frame) + LINE_ALIGNMENT;
        }

        final Image intact = image(true);
        assertEquals(Image.VALID, joinAt(intact, start));
        final List<Integer> delivered = new ArrayList<>();
        final FragmentHandler handler = (buffer, offset, length, header) -> delivered.add((int)buffer.getByte(offset));
        assertEquals(4, intact.pollLog(handler, 10, counters, new SubscriptionTallies(), 0), "a signed PAD is skipped");
        assertEquals(List.of(1, 2, 3), delivered);
        assertEquals(0, counters.checksumErrors.get());

        // The PAD's length now reaches past frame 2 to frame 3's line, as a stray store could make it.
        ring.buffer().putInt(appender.offset(pad) + FRAME_LENGTH_OFFSET, 3 * LINE_ALIGNMENT, ORDER);
        delivered.clear();
        final Image corrupted = image(true);
        assertEquals(Image.VALID, joinAt(corrupted, start));
        assertEquals(Image.LOG_PROTOCOL_ERROR, corrupted.pollLog(handler, 10, counters, new SubscriptionTallies(), 0));
        assertEquals(List.of(1), delivered, "nothing past the corrupted PAD is handed over, frame 3 not without 2");
        assertEquals(1, counters.checksumErrors.get());
        assertEquals(pad, corrupted.position, "the image stays at the PAD frame");

        // A PAD that carries no checksum where the stream requires them is refused the same way.
        appender.abort(pad, 2 * LINE_ALIGNMENT, WORD);
        appender.commit(pad, WORD);
        final Image unsigned = image(true);
        assertEquals(Image.VALID, joinAt(unsigned, start));
        assertEquals(Image.LOG_PROTOCOL_ERROR, unsigned.pollLog(handler, 10, counters, new SubscriptionTallies(), 0));
        assertEquals(2, counters.checksumErrors.get());
        assertEquals(List.of(1, 1), delivered, "frame 1 again, nothing after it");
    }

    /** Appends and signs a one-line data frame whose 8-byte payload starts with the frame's number. */
    private static long appendSigned(final FrameAppender appender, final FrameSigner signer, final long position,
        final int frame)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
        payload.putByte(0, (byte)frame);
        final long framePosition = appender.appendData(position, (byte)(UNFRAGMENTED | signer.flag()), payload, 0,
            payload.capacity(), signer.trailerLength(), WORD);
        signer.sign(appender.offset(framePosition), FrameDescriptor.HEADER_LENGTH + 8 + signer.trailerLength());
        return framePosition;
    }
}
