package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameAppender;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.FrameReader;
import io.ringwire.messaging.protocol.FrameSigner;
import io.ringwire.messaging.protocol.JoinLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.SplittableRandom;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An image folds {@link FrameReader}'s rules into one test per header word on its hot path; it must
 * accept exactly the frames the reader accepts, and deliver exactly the data frames among them.
 */
class ImageFrameCheckTest
{
    private static final int CAPACITY = 4096;
    private static final int SESSION = 0x1234_5678;
    private static final int STREAM = 9;

    @TempDir
    Path directory;

    private ShmImageFixture fixture;

    @BeforeEach
    void open()
    {
        fixture = new ShmImageFixture(directory, CAPACITY, STREAM);
    }

    @AfterEach
    void close()
    {
        fixture.close();
    }

    /** An RDMA image (not a memory log) of the fixture's ring. */
    private Image image(final boolean checksums)
    {
        return new Image(SESSION, "shared", STREAM, fixture.queuePair, fixture.ring, fixture.credit, fixture.join, 0, 0,
            0, 4, 16, checksums, false, 0);
    }

    @Test
    void theImageAcceptsExactlyWhatTheFrameReaderAcceptsForSeededValidAndDamagedFrames()
    {
        final long start = 7L * CAPACITY + 256;
        final Image image = image(false);
        fixture.join.buffer().putLong(JoinLayout.POSITION_OFFSET, start, ORDER);
        assertEquals(Image.VALID, image.onJoin(JoinLayout.LENGTH, 0, fixture.counters));

        final FrameAppender appender = new FrameAppender(fixture.ring.buffer());
        final FrameReader reader = new FrameReader(fixture.ring.buffer(),
            FrameDescriptor.sessionStreamWord(SESSION, STREAM));
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[CAPACITY]);
        final long[] delivered = new long[1];
        final SubscriptionTallies tallies = new SubscriptionTallies();
        final FragmentHandler handler = (buffer, offset, length, header) -> delivered[0]++;
        final SplittableRandom random = new SplittableRandom(20261126L);
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final long position = image.position;
            final int length = random.nextInt(0, 200);
            final int kind = random.nextInt(3);
            final long framePosition = kind == 0 ?
                appender.appendData(position, UNFRAGMENTED, payload, 0, length, 0,
                    FrameDescriptor.sessionStreamWord(SESSION, STREAM)) :
                kind == 1 ? appender.appendHeartbeat(position, FrameDescriptor.sessionStreamWord(SESSION, STREAM)) :
                appender.claim(position, HEADER_LENGTH + length, UNFRAGMENTED, TYPE_PAD,
                    FrameDescriptor.sessionStreamWord(SESSION, STREAM));
            if (kind == 2)
            {
                appender.commit(framePosition, FrameDescriptor.sessionStreamWord(SESSION, STREAM));
            }
            int immediate = framePosition != position ? (int)(framePosition - position) :
                kind == 1 ? HEADER_LENGTH : HEADER_LENGTH + length;
            if (random.nextInt(4) == 0)
            {
                // Damage one header byte, or the immediate, of the frame the image must read next.
                if (random.nextBoolean())
                {
                    final int at = (int)(position & (CAPACITY - 1)) + random.nextInt(Math.min(HEADER_LENGTH,
                        CAPACITY - (int)(position & (CAPACITY - 1))));
                    final AtomicBuffer frames = fixture.ring.buffer();
                    frames.putByte(at, (byte)(frames.getByte(at) ^ (1 << random.nextInt(8))));
                }
                else
                {
                    immediate += random.nextInt(-16, 17);
                }
            }
            final int expected = reader.read(position, immediate);
            final long deliveredBefore = delivered[0];
            final int outcome = image.onFrame(immediate, handler, fixture.counters, tallies, 0);
            assertEquals(expected >= 0, outcome == Image.VALID, "case " + i + ": reader said " + expected);
            assertEquals(expected == FrameReader.DATA ? 1 : 0, delivered[0] - deliveredBefore, "case " + i);
            if (outcome == Image.VALID)
            {
                accepted++;
                assertEquals(position + alignedLength(immediate), image.position, "case " + i);
            }
            else
            {
                refused++;
                assertEquals(position, image.position, "a refused frame leaves the position, case " + i);
            }
        }
        assertTrue(accepted > 10_000 && refused > 1_000, accepted + " accepted, " + refused + " refused");
    }

    @Test
    void aSignedFrameWhoseSessionOrPositionWordWasCorruptedIsCountedAsAChecksumError()
    {
        final long word = FrameDescriptor.sessionStreamWord(SESSION, STREAM);
        final FrameAppender appender = new FrameAppender(fixture.ring.buffer());
        final FrameSigner signer = new FrameSigner(fixture.ring.buffer());
        signer.checksums(true);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[24]);
        final SubscriptionTallies tallies = new SubscriptionTallies();
        final long[] delivered = new long[1];
        final FragmentHandler handler = (buffer, offset, length, header) -> delivered[0]++;
        final int frameLength = HEADER_LENGTH + payload.capacity() + signer.trailerLength();
        final int[] corruptAt = {SESSION_ID_OFFSET, POSITION_OFFSET + 3};
        for (int i = 0; i < corruptAt.length; i++)
        {
            final Image image = image(true);
            fixture.join.buffer().putLong(JoinLayout.POSITION_OFFSET, 0, ORDER);
            assertEquals(Image.VALID, image.onJoin(JoinLayout.LENGTH, 0, fixture.counters));
            appender.appendData(0, (byte)(UNFRAGMENTED | signer.flag()), payload, 0, payload.capacity(),
                signer.trailerLength(), word);
            signer.sign(appender.offset(0), frameLength);
            final int at = appender.offset(0) + corruptAt[i];
            fixture.ring.buffer().putByte(at, (byte)(fixture.ring.buffer().getByte(at) ^ 0x10));
            assertEquals(Image.PROTOCOL_ERROR, image.onFrame(frameLength, handler, fixture.counters, tallies, 0));
            assertEquals(i + 1, fixture.counters.checksumErrors.get(), "damage at header byte " + corruptAt[i]);
        }
        assertEquals(0, delivered[0]);
    }
}
