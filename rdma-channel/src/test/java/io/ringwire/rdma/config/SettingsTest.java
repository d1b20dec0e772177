package io.ringwire.rdma.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsTest
{
    private static void assertRefusedWith(final String message, final Executable parse)
    {
        assertEquals(message, assertThrows(IllegalArgumentException.class, parse).getMessage());
    }

    @Test
    void numbersWithinBoundsAreParsedWithWhiteSpaceAndUnderscores()
    {
        assertEquals(1_000_000L, Settings.parseLong("n", " 1_000_000 ", 0, 2_000_000, "0 to 2000000"));
        assertEquals(7, Settings.parseInt("n", "7", 0, 7, "0 to 7"));
    }

    @Test
    void everyRefusalNamesTheSettingTheValueAndWhatIsAllowed()
    {
        assertRefusedWith("ringwire.x='5s' is not a number; allowed: 1 to 9 ms",
            () -> Settings.parseLong("ringwire.x", "5s", 1, 9, "1 to 9 ms"));
        assertRefusedWith("--size='8' is out of range; allowed: 16 to 64 bytes",
            () -> Settings.parseInt("--size", "8", 16, 64, "16 to 64 bytes"));
        assertRefusedWith("ringwire.ring='5000' is not a power of two; allowed: a power of two from 4096 to 65536",
            () -> Settings.parsePowerOfTwo("ringwire.ring", "5000", 4096, 65536));
        assertRefusedWith("ringwire.flag='yes' is not allowed; allowed: true or false",
            () -> Settings.parseBoolean("ringwire.flag", "yes"));
        assertRefusedWith("ringwire.idle='nap' is not allowed; allowed: busy, yield",
            () -> Settings.oneOf("ringwire.idle", "nap", List.of("busy", "yield")));
        assertRefusedWith("ringwire.cores='1,x' has 'x', which is not a number; allowed: CPU numbers",
            () -> Settings.parseIntList("ringwire.cores", "1,x", 0, 9, "CPU numbers"));
    }

    @Test
    void booleansChoicesAndListsKeepTheirValues()
    {
        assertTrue(Settings.parseBoolean("b", " true"));
        assertFalse(Settings.parseBoolean("b", "false"));
        assertEquals("yield", Settings.oneOf("i", "yield ", List.of("busy", "yield")));
        assertArrayEquals(new int[]{ 2, 3 }, Settings.parseIntList("c", "2, 3", 0, 9, "CPUs"));
        assertArrayEquals(new int[0], Settings.parseIntList("c", " ", 0, 9, "CPUs"));
        assertEquals(8192, Settings.parsePowerOfTwo("r", "8192", 4096, 65536));
    }

    @Test
    void endpointAddressesTakeHostAndPortWithBracketedIpv6()
    {
        assertEquals(new EndpointAddress("10.0.0.1", 40123), EndpointAddress.parse("e", "10.0.0.1:40123", false));
        assertEquals(new EndpointAddress("::1", 7), EndpointAddress.parse("e", "[::1]:7", false));
        assertEquals(new EndpointAddress("::1", 0), EndpointAddress.parse("e", "::1", true));
        assertEquals(new EndpointAddress("localhost", 0), EndpointAddress.parse("e", "localhost", true));
        assertEquals("[::1]:7", new EndpointAddress("::1", 7).toString());
    }

    @Test
    void endpointAddressesWithoutAHostOrWithABadPortAreRefused()
    {
        assertRefusedWith("endpoint='localhost' must be host:port ([v6]:port); allowed: host:port ([v6]:port)",
            () -> EndpointAddress.parse("endpoint", "localhost", false));
        assertRefusedWith("endpoint='localhost:99999' has port 99999, which is out of range; allowed: a port 0 to 65535",
            () -> EndpointAddress.parse("endpoint", "localhost:99999", false));
        assertThrows(IllegalArgumentException.class, () -> EndpointAddress.parse("bind", ":80", true));
    }
}
