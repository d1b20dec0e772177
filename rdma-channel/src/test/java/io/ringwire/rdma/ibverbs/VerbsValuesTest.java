package io.ringwire.rdma.ibverbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class VerbsValuesTest
{
    @Test
    void pathMtuBytesMapToTheLargestVerbsMtuNotAboveThem()
    {
        assertEquals(1, VerbsValues.mtuEnum(256));
        assertEquals(3, VerbsValues.mtuEnum(1024));
        assertEquals(3, VerbsValues.mtuEnum(1500), "an Ethernet MTU carries IBV_MTU_1024 payloads");
        assertEquals(5, VerbsValues.mtuEnum(4096));
        assertEquals(5, VerbsValues.mtuEnum(9000));
        assertEquals(1, VerbsValues.mtuEnum(100), "never below IBV_MTU_256");
        assertEquals(4096, VerbsValues.mtuBytes(5));
        assertEquals(256, VerbsValues.mtuBytes(1));
        assertEquals(0, VerbsValues.mtuBytes(0));
    }

    @Test
    void theAckTimeoutBecomesTheSmallestIbExponentThatIsAtLeastAsLong()
    {
        assertEquals(9, VerbsValues.ackTimeoutExponent(2_000_000), "2 ms -> 4.096 us * 2^9 = 2.097 ms");
        assertEquals(8, VerbsValues.ackTimeoutExponent(1_048_576), "exactly 4.096 us * 2^8");
        assertEquals(2, VerbsValues.ackTimeoutExponent(10_000), "10 us -> 16.4 us");
        assertEquals(1, VerbsValues.ackTimeoutExponent(1), "never 0, which means wait forever");
        assertEquals(31, VerbsValues.ackTimeoutExponent(Long.MAX_VALUE));
    }

    @Test
    void portStatesAndLinkLayersHaveTheirVerbsNames()
    {
        assertEquals("ACTIVE", VerbsValues.portStateName(4));
        assertEquals("DOWN", VerbsValues.portStateName(1));
        assertEquals("Ethernet", VerbsValues.linkLayerName(2));
        assertEquals("InfiniBand", VerbsValues.linkLayerName(1));
        assertEquals("ERR", VerbsValues.queuePairStateName(VerbsValues.IBV_QPS_ERR));
    }
}
