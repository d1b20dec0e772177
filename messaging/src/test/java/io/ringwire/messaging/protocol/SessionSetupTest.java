package io.ringwire.messaging.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The setup a publication and a subscription exchange survives encoding, and anything else is refused
 * with a message saying what it is not.
 */
class SessionSetupTest
{
    @Test
    void sessionSetupRoundTripsAndRefusesOtherData()
    {
        final SessionSetup setup = new SessionSetup(7, -123, 1 << 20, 4096);
        assertEquals(setup, SessionSetup.decode(setup.encode()));
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> SessionSetup.decode(new byte[3]));
        assertTrue(ex.getMessage().contains("not a RingWire messaging session setup"), ex.getMessage());
    }
}
