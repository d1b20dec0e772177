package io.ringwire.rdma;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@value RdmaConfig#ACK_DELAY_PROP}: its default, its range, and that it stays well below the ack
 * timeout, so a requester never retransmits because its ACK was held.
 */
class RdmaConfigAckDelayTest
{
    @Test
    void theDefaultIsFiftyMicroseconds()
    {
        assertEquals(50_000, new RdmaConfig().ackTimeoutUs(10_000).conclude().ackDelayNs());
    }

    @Test
    void theDefaultShrinksToAQuarterOfAShortAckTimeout()
    {
        assertEquals(25_000, new RdmaConfig().ackTimeoutUs(100).conclude().ackDelayNs());
    }

    @ParameterizedTest
    @ValueSource(longs = { 0, 1, 2_500 })
    void aDelayUpToAQuarterOfTheAckTimeoutIsAccepted(final long delayUs)
    {
        assertEquals(delayUs * 1_000, new RdmaConfig().ackTimeoutUs(10_000).ackDelayUs(delayUs).conclude().ackDelayNs());
    }

    @Test
    void aDelayAboveAQuarterOfTheAckTimeoutIsRefusedNamingBothProperties()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new RdmaConfig().ackTimeoutUs(10_000).ackDelayUs(2_501).conclude());

        assertTrue(refused.getMessage().startsWith(RdmaConfig.ACK_DELAY_PROP + "='2501' is too long for " +
            RdmaConfig.ACK_TIMEOUT_PROP + "=10000; allowed: 0 to 2500 microseconds"), refused.getMessage());
    }

    @ParameterizedTest
    @ValueSource(longs = { -1, 100_001 })
    void aDelayOutsideItsRangeIsRefusedNamingTheRange(final long delayUs)
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new RdmaConfig().ackTimeoutUs(10_000_000).ackDelayUs(delayUs).conclude());

        assertEquals(RdmaConfig.ACK_DELAY_PROP + "='" + delayUs + "' is out of range; allowed: 0 to 100000 " +
            "microseconds (0: no delay)", refused.getMessage());
    }

    @Test
    void theDelayIsReadFromItsSystemProperty()
    {
        final String previous = System.getProperty(RdmaConfig.ACK_DELAY_PROP);
        System.setProperty(RdmaConfig.ACK_DELAY_PROP, "x");
        try
        {
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new RdmaConfig().conclude());
            assertTrue(refused.getMessage().startsWith(RdmaConfig.ACK_DELAY_PROP + "='x' is not a number"),
                refused.getMessage());
            System.setProperty(RdmaConfig.ACK_DELAY_PROP, "0");
            assertEquals(0, new RdmaConfig().conclude().ackDelayNs());
        }
        finally
        {
            if (null == previous)
            {
                System.clearProperty(RdmaConfig.ACK_DELAY_PROP);
            }
            else
            {
                System.setProperty(RdmaConfig.ACK_DELAY_PROP, previous);
            }
        }
    }
}
