package io.ringwire.perf.jmh;

import io.ringwire.messaging.protocol.FrameAppender;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.messaging.protocol.FrameReader;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Messaging's framing alone, no transport: {@link FrameAppender} laying data frames into a ring
 * (wrapping with a PAD frame at its end, as a publication's ring does) and {@link FrameReader}
 * checking a frame's header against the rules a subscriber applies before it hands the payload on.
 * Both are public in {@code io.ringwire.messaging.protocol}, so this measures them directly.
 *
 * <p>Threading: one benchmark thread per state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameBenchmark
{
    private static final int RING_CAPACITY = 64 * 1024;
    private static final int SESSION_ID = 7;
    private static final int STREAM_ID = 90;

    /** Payload bytes per frame. */
    @Param("64")
    public int payloadLength;

    private final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(RING_CAPACITY));
    private final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final long sessionStreamWord = FrameDescriptor.sessionStreamWord(SESSION_ID, STREAM_ID);
    private FrameAppender appender;
    private FrameReader reader;
    private long position;
    private int frameLength;

    /**
     * Creates the appender and reader over one ring and writes the frame the read benchmark checks.
     */
    @Setup
    public void createRing()
    {
        appender = new FrameAppender(ring);
        reader = new FrameReader(ring, sessionStreamWord);
        frameLength = FrameDescriptor.HEADER_LENGTH + payloadLength;
        appender.appendData(0, FrameDescriptor.UNFRAGMENTED, payload, 0, payloadLength, 0, sessionStreamWord);
        position = 0;
    }

    /**
     * @return the position after the appended frame.
     */
    @Benchmark
    public long append()
    {
        final long framePosition = appender.appendData(position, FrameDescriptor.UNFRAGMENTED, payload, 0,
            payloadLength, 0, sessionStreamWord);
        position = framePosition + FrameDescriptor.alignedLength(frameLength);
        return position;
    }

    /**
     * @return the frame's type ({@link FrameReader#DATA}) or the rule it breaks.
     */
    @Benchmark
    public int read()
    {
        return reader.read(0, frameLength);
    }
}
