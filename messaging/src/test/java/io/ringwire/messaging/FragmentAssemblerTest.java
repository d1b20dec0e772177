package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameAppender;
import io.ringwire.messaging.protocol.FrameDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ringwire.messaging.protocol.FrameDescriptor.BEGIN_FLAG;
import static io.ringwire.messaging.protocol.FrameDescriptor.END_FLAG;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The assembler over frames in a plain buffer: whole messages out, and a message that grows past
 * the largest dropped and counted rather than grown without bound.
 */
class FragmentAssemblerTest
{
    private static final long WORD = FrameDescriptor.sessionStreamWord(7, 3);

    private final UnsafeBuffer log = new UnsafeBuffer(new byte[4096]);
    private final FrameAppender appender = new FrameAppender(log, true);
    private final Header header = new Header();
    private final List<Integer> delivered = new ArrayList<>();
    private final FragmentAssembler assembler = new FragmentAssembler(
        (buffer, offset, length, frame) -> delivered.add(length), 100);

    private void fragment(final byte flags, final int length)
    {
        appender.appendData(0, flags, new UnsafeBuffer(new byte[length]), 0, length, 0, WORD);
        header.stream(WORD);
        header.frame(flags, FrameDescriptor.HEADER_LENGTH + length, 0);
        assembler.onFragment(log, FrameDescriptor.HEADER_LENGTH, length, header);
    }

    @Test
    void aMessageGrowingPastTheLargestIsDroppedUntilTheNextBeginAndCounted()
    {
        fragment(BEGIN_FLAG, 60);
        fragment((byte)0, 60);
        fragment((byte)0, 60);
        fragment(END_FLAG, 10);
        assertEquals(List.of(), delivered, "none of the oversized message");
        assertEquals(1, assembler.oversizedMessages());

        fragment(BEGIN_FLAG, 50);
        fragment(END_FLAG, 50);
        fragment(FrameDescriptor.UNFRAGMENTED, 8);
        assertEquals(List.of(100, 8), delivered, "a message of exactly the largest, then a whole one");
        assertEquals(1, assembler.oversizedMessages());
    }
}
