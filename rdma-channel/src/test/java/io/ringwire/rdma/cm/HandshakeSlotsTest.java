package io.ringwire.rdma.cm;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link HandshakeSlots} on its own: how many slots one source address takes a second, whether or
 * not it gives them back at once (each slot costs the listener a signed CHALLENGE).
 */
final class HandshakeSlotsTest
{
    private static final BiConsumer<ManagementChannel, InetAddress> NO_EVICTION = (victim, source) ->
    {
        throw new AssertionError("nothing is admitted, so nothing can be evicted");
    };

    @Test
    void aSourceThatConnectsAndClosesAtOnceTakesNoMoreThanItsRateOfSlotsAndOthersKeepTheirs() throws Exception
    {
        final int perSecond = 3;
        final HandshakeSlots slots = new HandshakeSlots(new ConnectionManagerConfig()
            .secret(CmTestSupport.SECRET)
            .challengesPerSource(perSecond)
            .conclude());
        final InetAddress looping = InetAddress.getByName("127.0.0.3");
        final InetAddress other = InetAddress.getByName("127.0.0.4");

        for (int i = 0; i < perSecond; i++)
        {
            assertEquals(HandshakeSlots.TAKEN, slots.take(looping, NO_EVICTION), "slot " + i + " of the burst");
            slots.giveBack(looping); // closed at once: its slot is free, its signature spent
        }
        assertEquals(HandshakeSlots.AT_SOURCE_RATE, slots.take(looping, NO_EVICTION));
        assertEquals(HandshakeSlots.TAKEN, slots.take(other, NO_EVICTION), "another source keeps its own rate");
    }
}
