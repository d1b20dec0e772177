package io.ringwire.exchange.fix;

import org.apache.mina.core.buffer.IoBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scan ahead of the FIX decoder: a BodyLength over the bound is found wherever the reads split it. */
class BodyLengthBoundTest
{
    private static final char SOH = '\u0001';

    @Test
    void aBodyOfTheBoundPassesAndOneByteMoreIsRefusedWhereverTheReadsSplitTheField()
    {
        final String atBound = "8=FIX.4.4" + SOH + "9=" + BodyLengthBound.MAX_BODY_LENGTH + SOH + "35=0" + SOH;
        final String over = "8=FIX.4.4" + SOH + "9=" + (BodyLengthBound.MAX_BODY_LENGTH + 1) + SOH + "35=0" + SOH;
        for (int split = 0; split <= over.length(); split++)
        {
            assertTrue(acceptsInTwoReads(atBound, Math.min(split, atBound.length())), "split at " + split);
            assertFalse(acceptsInTwoReads(over, split), "split at " + split);
        }
    }

    @Test
    void aLengthOfManyDigitsIsRefusedBeforeItsEndAndOtherTagsEndingInNineAreNotBodyLength()
    {
        assertFalse(accepts("8=FIX.4.4" + SOH + "9=2000000000000000000000000000"), "no end, no overflow");
        assertTrue(accepts("8=FIX.4.4" + SOH + "9=00000000000100" + SOH + "95=99999999" + SOH + "109=99999999" +
            SOH + "49=9=99999999" + SOH), "leading zeros, RawDataLength, ClientID, a value holding 9=");
        assertTrue(accepts("9=99999999" + SOH), "not after an SOH: the decoder seeks its header and skips it");
    }

    @Test
    void onceRefusedAConnectionStaysRefused()
    {
        final BodyLengthBound.Scan scan = new BodyLengthBound.Scan();
        assertFalse(scan.accepts(buffer(SOH + "9=99999" + SOH)));
        assertFalse(scan.accepts(buffer("8=FIX.4.4" + SOH + "9=5" + SOH)));
        final IoBuffer read = buffer("x9=5");
        scan.accepts(read);
        assertEquals(0, read.position(), "the scan reads without consuming");
    }

    private static boolean acceptsInTwoReads(final String bytes, final int split)
    {
        final BodyLengthBound.Scan scan = new BodyLengthBound.Scan();
        return scan.accepts(buffer(bytes.substring(0, split))) & scan.accepts(buffer(bytes.substring(split)));
    }

    private static boolean accepts(final String bytes)
    {
        return new BodyLengthBound.Scan().accepts(buffer(bytes));
    }

    private static IoBuffer buffer(final String bytes)
    {
        return IoBuffer.wrap(bytes.getBytes(StandardCharsets.US_ASCII));
    }
}
