package io.ringwire.perf.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerftestMessagesTest
{
    /**
     * What perftest 6.06's sprintf of its GID key format makes of lid 0, out_reads 0x10, qpn 0x11,
     * psn 0x3b2a1f, rkey 0xd05, vaddr 0x55d0c8e3a000, GID ::ffff:10.201.0.1, srqn 0: the fields in
     * 4, 4, 6, 6, 8, 16 lower-case hex digits, sixteen two-digit GID bytes, the SRQ number in 8, each
     * followed by ':', then the NUL its 108-byte buffer ends in.
     */
    private static final String PERFTEST_KEYS =
        "0000:0010:000011:3b2a1f:00000d05:000055d0c8e3a000:" +
        "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:c9:00:01:" +
        "00000000:\0";
    private static final PerftestKeys SAMPLE = new PerftestKeys(0, 0x10, 0x11, 0x3b2a1f, 0xd05, 0x55d0c8e3a000L,
        0L, 0x0000_ffff_0ac9_0001L, 0);

    @Test
    void theSampleIsAsLongAsPerftestsKeyBuffer()
    {
        assertEquals(PerftestMessages.KEY_LENGTH, PERFTEST_KEYS.length());
    }

    @Test
    void keysAreWrittenByteForByteAsPerftestFormatsThem()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(PerftestMessages.KEY_LENGTH);
        PerftestMessages.writeKeys(SAMPLE, buffer);
        assertEquals(PerftestMessages.KEY_LENGTH, buffer.position());
        assertArrayEquals(PERFTEST_KEYS.getBytes(StandardCharsets.US_ASCII), buffer.array());
    }

    @Test
    void perftestsKeysAreReadFieldByField()
    {
        final PerftestKeys keys = PerftestMessages.readKeys(ascii(PERFTEST_KEYS));
        assertEquals(SAMPLE, keys);
        assertTrue(keys.hasIpv4MappedGid());
        assertEquals("10.201.0.1", keys.ipv4Address().getHostAddress());
        assertEquals("00:00:00:00:00:00:00:00:00:00:ff:ff:0a:c9:00:01", keys.gidText());
    }

    @Test
    void theWidestValuesOfEachFieldSurviveTheRoundTrip()
    {
        final PerftestKeys widest = new PerftestKeys(0xFFFF, 0xFFFF, 0xFF_FFFF, 0xFF_FFFF, 0xFFFF_FFFF, -1L,
            0xFEDC_BA98_7654_3210L, 0x0123_4567_89AB_CDEFL, 0xFFFF_FFFF);
        final ByteBuffer buffer = ByteBuffer.allocate(PerftestMessages.KEY_LENGTH);
        PerftestMessages.writeKeys(widest, buffer);
        assertEquals(widest, PerftestMessages.readKeys(buffer.flip()));
        assertFalse(widest.hasIpv4MappedGid());
        assertThrows(PerftestProtocolException.class, widest::ipv4Address);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "upper-case hex|0000:0010:000011:3B2A1F:|field psn at byte 17 is not 6 lower-case hex digits",
        "short field|0000:010:000011:3b2a1f:|field out_reads at byte 5 is not 4 lower-case hex digits",
        "missing separator|0000:0010-000011:3b2a1f:|field out_reads at byte 5 is not followed by ':'",
        "bad gid byte|0000:0010:000011:3b2a1f:00000d05:000055d0c8e3a000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:zz:|field gid[13] at byte 89"})
    void aMalformedKeyMessageIsRefusedNamingTheField(final String what, final String head, final String message)
    {
        final String text = head + PERFTEST_KEYS.substring(head.length());
        final PerftestProtocolException refused = assertThrows(PerftestProtocolException.class,
            () -> PerftestMessages.readKeys(ascii(text)));
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
    }

    @Test
    void aKeyMessageWithoutItsNulIsRefused()
    {
        final String text = PERFTEST_KEYS.substring(0, PerftestMessages.KEY_LENGTH - 1) + "x";
        final PerftestProtocolException refused = assertThrows(PerftestProtocolException.class,
            () -> PerftestMessages.readKeys(ascii(text)));
        assertTrue(refused.getMessage().contains("does not end in NUL at byte 107"), refused.getMessage());
    }

    @Test
    void theVersionIsItsTextPaddedWithNulsToSixteenBytes()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(PerftestMessages.VERSION_LENGTH);
        PerftestMessages.writeVersion("6.06", buffer);
        assertArrayEquals("6.06\0\0\0\0\0\0\0\0\0\0\0\0".getBytes(StandardCharsets.US_ASCII), buffer.array());
        assertEquals("6.06", PerftestMessages.readVersion(buffer.flip()));
    }

    @Test
    void aVersionOlderThanTheExchangeThisPeerSpeaksIsRefused()
    {
        PerftestMessages.requireCompatible("6.06");
        PerftestMessages.requireCompatible("5.70");
        final PerftestProtocolException refused = assertThrows(PerftestProtocolException.class,
            () -> PerftestMessages.requireCompatible("5.60"));
        assertTrue(refused.getMessage().contains("older than 5.7"), refused.getMessage());
    }

    @Test
    void aVersionThatIsNoNumberOrHasNoNulIsRefused()
    {
        assertThrows(PerftestProtocolException.class,
            () -> PerftestMessages.readVersion(ascii("six\0\0\0\0\0\0\0\0\0\0\0\0\0")));
        final PerftestProtocolException refused = assertThrows(PerftestProtocolException.class,
            () -> PerftestMessages.readVersion(ascii("6.061234567890123")));
        assertTrue(refused.getMessage().contains("not a NUL-terminated version number"), refused.getMessage());
    }

    @Test
    void theMtuIsTheDigitOfItsIbvMtuValueAndNul()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(PerftestMessages.MTU_LENGTH);
        PerftestMessages.writeMtu(1024, buffer);
        assertArrayEquals(new byte[] { '3', 0 }, buffer.array());
        assertEquals(1024, PerftestMessages.readMtu(buffer.flip()));
        assertEquals(4096, PerftestMessages.readMtu(ascii("5\0")));
        assertEquals(256, PerftestMessages.readMtu(ascii("1\0")));
        assertThrows(PerftestProtocolException.class, () -> PerftestMessages.readMtu(ascii("6\0")));
        assertThrows(PerftestProtocolException.class, () -> PerftestMessages.readMtu(ascii("3x")));
    }

    @Test
    void systemDataIsABigEndianInt()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(PerftestMessages.SYSTEM_DATA_LENGTH);
        PerftestMessages.writeSystemData(4096, buffer);
        assertArrayEquals(new byte[] { 0, 0, 0x10, 0 }, buffer.array());
        assertEquals(64, PerftestMessages.readSystemData("cache line size", ByteBuffer.wrap(new byte[] { 0, 0, 0, 64 })));
        assertThrows(PerftestProtocolException.class,
            () -> PerftestMessages.readSystemData("cycle buffer", ByteBuffer.wrap(new byte[4])));
    }

    @Test
    void reportFieldsAreBigEndianIntegersAndDoubles()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(16);
        PerftestMessages.writeReportLong(5000, buffer);
        PerftestMessages.writeReportDouble(1.5, buffer);
        assertArrayEquals(new byte[] { 0, 0, 0, 0, 0, 0, 0x13, (byte)0x88, 0x3F, (byte)0xF8, 0, 0, 0, 0, 0, 0 },
            buffer.array());
        buffer.flip();
        assertEquals(5000, PerftestMessages.readReportLong(buffer));
        assertEquals(1.5, PerftestMessages.readReportDouble(buffer));
    }

    @Test
    void doneIsFourLettersAndNul()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(PerftestMessages.DONE_LENGTH);
        PerftestMessages.writeDone(buffer);
        assertArrayEquals("done\0".getBytes(StandardCharsets.US_ASCII), buffer.array());
    }

    private static ByteBuffer ascii(final String text)
    {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
