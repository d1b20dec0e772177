package io.ringwire.rdma.roce;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The index the fanout program gives the last member while another member closes, checked for
 * every group size the kernel allows: the kernel takes the program's result modulo the number of
 * members, so it must name the last member's slot before the close and the leaving member's slot,
 * which the last member moves into, after it.
 */
class PacketFanoutIndexTest
{
    @Test
    void namesTheLastSlotBeforeTheCloseAndTheLeavingSlotAfterIt()
    {
        for (int members = 2; members <= PacketFanout.MAX_MEMBERS; members++)
        {
            for (int leaving = 0; leaving < members - 1; leaving++)
            {
                final long index = Integer.toUnsignedLong(PacketFanout.transitionalIndex(members, leaving));
                assertEquals(members - 1, index % members, members + " members, " + leaving + " leaving: before");
                assertEquals(leaving, index % (members - 1), members + " members, " + leaving + " leaving: after");
            }
        }
    }
}
