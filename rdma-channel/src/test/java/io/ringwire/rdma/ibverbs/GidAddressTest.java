package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GidAddressTest
{
    private static final byte[] IPV4_GID = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte)0xFF, (byte)0xFF, (byte)192, (byte)168,
        1, 20 };

    @Test
    void anIpv4MappedGidIsTheRoceProvidersAddressFormat()
    {
        assertTrue(GidAddress.isIpv4Mapped(IPV4_GID));
        assertEquals("192.168.1.20:4791", GidAddress.toAddress(IPV4_GID));
        assertEquals("0000:0000:0000:0000:0000:ffff:c0a8:0114", GidAddress.format(IPV4_GID));
    }

    @Test
    void aPeersAddressBecomesTheIpv4MappedGidWhateverItsPort()
    {
        assertArrayEquals(IPV4_GID, GidAddress.fromAddress("192.168.1.20:4791"));
        assertArrayEquals(IPV4_GID, GidAddress.fromAddress("192.168.1.20:50123"), "a roce peer on another port");
        assertArrayEquals(IPV4_GID, GidAddress.fromAddress("192.168.1.20"));
    }

    @Test
    void ipv6GidsRoundTripInBrackets()
    {
        final byte[] linkLocal = { (byte)0xFE, (byte)0x80, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 1 };
        assertFalse(GidAddress.isIpv4Mapped(linkLocal));
        final String address = GidAddress.toAddress(linkLocal);
        assertEquals("[fe80:0:0:0:1234:0:0:1]:4791", address);
        assertArrayEquals(linkLocal, GidAddress.fromAddress(address));
    }

    @Test
    void aNameOrAShmAddressIsRefusedWithTheExpectedFormat()
    {
        final RdmaException name = assertThrows(RdmaException.class, () -> GidAddress.fromAddress("peer.example:4791"));
        assertTrue(name.getMessage().contains("expected a.b.c.d:4791"), name.getMessage());
        assertThrows(RdmaException.class, () -> GidAddress.fromAddress("/dev/shm/ringwire 4242"));
        assertTrue(GidAddress.isZero(new byte[16]));
    }
}
