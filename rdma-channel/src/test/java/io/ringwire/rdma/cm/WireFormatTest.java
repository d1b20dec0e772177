package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairEndpoint;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The binary layout: round trips at the limits, and the checks every decoder makes on peer bytes.
 */
final class WireFormatTest
{
    private static final QueuePairEndpoint ENDPOINT = new QueuePairEndpoint(0xABCDEF, 0x123456, "192.0.2.7:4791",
        1024, 0x8001);

    @Test
    void largestConnectBodyRoundTripsEveryFieldAndFitsTheBodyLimit() throws Exception
    {
        final Random random = new Random(7);
        final List<RegionAdvertisement> regions = IntStream.range(0, ConnectionManager.MAX_REGIONS)
            .mapToObj(i -> new RegionAdvertisement(random.nextLong(), random.nextInt(), random.nextInt(Integer.MAX_VALUE)))
            .toList();
        final byte[] data = new byte[ConnectionManager.MAX_APPLICATION_DATA_LENGTH];
        random.nextBytes(data);
        final QueuePairEndpoint endpoint = new QueuePairEndpoint(0xFFFFFF, 0xFFFFFF,
            "é".repeat(ConnectionManager.MAX_ADDRESS_LENGTH / 2), 4096, 0xFFFF);
        final byte[] nonce = Nonces.newNonce();
        final byte[] echoed = Nonces.newNonce();

        final String identity = "m".repeat(Identity.MAX_NAME_LENGTH);
        final String listener = "l".repeat(Identity.MAX_NAME_LENGTH);
        final byte[] body = WireFormat.encodeConnect(nonce, echoed, endpoint, regions, data, identity, listener);
        final ConnectMessage decoded = WireFormat.decodeConnect(MessageType.REQ, body);

        assertTrue(body.length <= WireFormat.MAX_BODY_LENGTH, "largest body is " + body.length + " bytes");
        assertArrayEquals(nonce, decoded.nonce());
        assertArrayEquals(echoed, decoded.echoedNonce());
        assertEquals(endpoint, decoded.endpoint());
        assertEquals(regions, decoded.regions());
        assertArrayEquals(data, decoded.applicationData());
        assertEquals(identity, decoded.identity());
        assertEquals(listener, decoded.addressedTo());
    }

    @Test
    void aChallengeCarriesItsNonceAndItsListenersIdentityAndNothingElse() throws Exception
    {
        final byte[] nonce = Nonces.newNonce();
        final byte[] body = WireFormat.encodeChallenge(nonce, "member-1001");
        final WireFormat.Challenge decoded = WireFormat.decodeChallenge(body);

        assertArrayEquals(nonce, decoded.nonce());
        assertEquals("member-1001", decoded.identity());
        assertEquals(WireFormat.BODY_PREFIX_LENGTH + 1 + "member-1001".length(), body.length);
        final ProtocolViolationException trailing = assertThrows(ProtocolViolationException.class,
            () -> WireFormat.decodeChallenge(Arrays.copyOf(body, body.length + 1)));
        assertEquals(RejectReason.MALFORMED, trailing.reason());
        final ProtocolViolationException prefixOnly = assertThrows(ProtocolViolationException.class,
            () -> WireFormat.decodeChallenge(Arrays.copyOf(body, WireFormat.BODY_PREFIX_LENGTH)));
        assertEquals(RejectReason.MALFORMED, prefixOnly.reason());
    }

    @Test
    void fixedFieldsSitAtTheirDocumentedOffsetsInNetworkOrder()
    {
        final byte[] body = WireFormat.encodeConnect(new byte[16], new byte[16], ENDPOINT,
            List.of(new RegionAdvertisement(0x1122334455667788L, 0x67B, 4096)), new byte[] { 9 }, "gw-1", null);
        final ByteBuffer buffer = ByteBuffer.wrap(body);
        final int addressLength = ENDPOINT.address().length();

        assertEquals(0xABCDEF, buffer.getInt(WireFormat.QUEUE_PAIR_NUMBER_OFFSET));
        assertEquals(0x123456, buffer.getInt(WireFormat.START_PSN_OFFSET));
        assertEquals(1024, buffer.getInt(WireFormat.MTU_OFFSET));
        assertEquals((short)0x8001, buffer.getShort(WireFormat.PARTITION_KEY_OFFSET));
        assertEquals(addressLength, buffer.getShort(WireFormat.ADDRESS_LENGTH_OFFSET));
        assertEquals(1, buffer.getShort(WireFormat.ADDRESS_OFFSET + addressLength));
        assertEquals(0x1122334455667788L, buffer.getLong(WireFormat.ADDRESS_OFFSET + addressLength + 2));
        final int identityOffset = WireFormat.ADDRESS_OFFSET + addressLength + 2 + WireFormat.REGION_LENGTH + 2 + 1;
        assertEquals(4, body[identityOffset]);
        assertEquals("gw-1", new String(body, identityOffset + 1, 4, StandardCharsets.US_ASCII));
        assertEquals(identityOffset + 1 + 4, body.length);
    }

    @Test
    void frameSignatureCoversHeaderAndBodySoAnyFlippedBitFailsVerification()
    {
        final Identity signer = Identity.generate("gateway-1");
        final byte[] frame = WireFormat.encodeFrame(MessageType.RTU, ConnectionManager.PROTOCOL_VERSION,
            WireFormat.encodeReadyToUse(new byte[16], new byte[16]), signer);
        final int signedLength = frame.length - WireFormat.SIGNATURE_LENGTH;
        final byte[] signature = Arrays.copyOfRange(frame, signedLength, frame.length);

        assertTrue(signer.peerKey().verify(frame, 0, signedLength, signature));
        assertFalse(Identity.generate("gateway-1").peerKey().verify(frame, 0, signedLength, signature),
            "another key of the same name does not verify it");
        for (final int position : new int[] { WireFormat.TYPE_OFFSET, WireFormat.VERSION_OFFSET + 1,
            WireFormat.HEADER_LENGTH + 3, signedLength - 1 })
        {
            final byte[] altered = Arrays.copyOf(frame, signedLength);
            altered[position] ^= 0x40;
            assertFalse(signer.peerKey().verify(altered, 0, signedLength, signature),
                "bit flipped at " + position + " went unnoticed");
        }
    }

    @Test
    void aConnectBodyNamingAnInvalidIdentityIsMalformed()
    {
        final byte[] body = WireFormat.encodeConnect(new byte[16], new byte[16], ENDPOINT, List.of(), new byte[0], "ab",
            "listener");
        body[body.length - 1] = '/';

        assertMalformed(body, "names no valid identity");
    }

    @Test
    void connectBodyWithTrailingBytesOrOverLimitCountsIsMalformed()
    {
        final byte[] body = WireFormat.encodeConnect(new byte[16], new byte[16], ENDPOINT, List.of(), new byte[0], "a",
            "listener");
        final byte[] trailing = Arrays.copyOf(body, body.length + 1);
        final byte[] tooManyRegions = body.clone();
        ByteBuffer.wrap(tooManyRegions).putShort(WireFormat.ADDRESS_OFFSET + ENDPOINT.address().length(),
            (short)(ConnectionManager.MAX_REGIONS + 1));
        final byte[] shortOfRegions = body.clone();
        ByteBuffer.wrap(shortOfRegions).putShort(WireFormat.ADDRESS_OFFSET + ENDPOINT.address().length(), (short)3);

        assertMalformed(trailing, "trailing");
        assertMalformed(tooManyRegions, "exceeds the limit of " + ConnectionManager.MAX_REGIONS);
        assertMalformed(shortOfRegions, "REQ regions need 48 bytes");
        assertMalformed(Arrays.copyOf(body, WireFormat.ADDRESS_OFFSET - 1), "fixed fields");
    }

    @Test
    void connectBodyWithAnInvalidEndpointIsMalformed()
    {
        final byte[] body = WireFormat.encodeConnect(new byte[16], new byte[16], ENDPOINT, List.of(), new byte[0], "a",
            "listener");
        ByteBuffer.wrap(body).putInt(WireFormat.QUEUE_PAIR_NUMBER_OFFSET, 0x0100_0000);

        assertMalformed(body, "24-bit");

        // An MTU that is not one a path has would make the peer split messages into packets its
        // responder refuses (a first packet carrying pad bytes), ending the connection at the first.
        for (final int mtu : new int[] { 1001, 255, 8192, 3072 })
        {
            final byte[] badMtu = WireFormat.encodeConnect(new byte[16], new byte[16], ENDPOINT, List.of(), new byte[0],
                "a", "listener");
            ByteBuffer.wrap(badMtu).putInt(WireFormat.MTU_OFFSET, mtu);
            assertMalformed(badMtu, "256, 512, 1024, 2048 or 4096");
        }
    }

    @Test
    void headerChecksRejectBadMagicUnknownTypeAndOutOfRangeLengths()
    {
        final byte[] good = WireFormat.encodeFrame(MessageType.RTU, 1,
            WireFormat.encodeReadyToUse(new byte[16], new byte[16]), Identity.generate("a"));
        final byte[] badMagic = good.clone();
        badMagic[0] = 'X';
        final byte[] unknownType = good.clone();
        unknownType[WireFormat.TYPE_OFFSET] = 99;
        final byte[] tooShort = good.clone();
        ByteBuffer.wrap(tooShort).putInt(WireFormat.BODY_LENGTH_OFFSET, WireFormat.BODY_PREFIX_LENGTH - 1);

        assertHeaderMalformed(badMagic, "bad magic");
        assertHeaderMalformed(unknownType, "unknown message type 99");
        assertHeaderMalformed(tooShort, "body length 31");
    }

    @Test
    void rejectTextIsTruncatedOnACharacterBoundaryAndControlCharactersAreReplaced() throws Exception
    {
        final String longText = "\u20AC".repeat(WireFormat.MAX_REASON_TEXT_LENGTH); // 3 UTF-8 bytes each
        final RejectMessage truncated = WireFormat.decodeReject(
            WireFormat.encodeReject(new byte[16], RejectReason.TIMEOUT, longText));
        final RejectMessage forged = WireFormat.decodeReject(
            WireFormat.encodeReject(new byte[16], RejectReason.MALFORMED, "ok\nWARNING: forged log line\u001b[31m"));

        assertEquals(RejectReason.TIMEOUT, truncated.reason());
        assertEquals("\u20AC".repeat(WireFormat.MAX_REASON_TEXT_LENGTH / 3), truncated.text());
        assertEquals("ok?WARNING: forged log line?[31m", forged.text());
    }

    @Test
    void rejectWithAnUnknownReasonCodeIsReadAsMalformedKeepingTheCode() throws Exception
    {
        final byte[] body = WireFormat.encodeReject(new byte[16], RejectReason.TIMEOUT, "later version");
        ByteBuffer.wrap(body).putShort(WireFormat.REASON_CODE_OFFSET, (short)77);

        final RejectMessage reject = WireFormat.decodeReject(body);

        assertEquals(RejectReason.MALFORMED, reject.reason());
        assertEquals("unknown reject reason code 77: later version", reject.text());
    }

    private static void assertMalformed(final byte[] body, final String expectedText)
    {
        final ProtocolViolationException failure = assertThrows(ProtocolViolationException.class, () ->
            WireFormat.decodeConnect(MessageType.REQ, body));
        assertEquals(RejectReason.MALFORMED, failure.reason());
        assertTrue(failure.getMessage().contains(expectedText), failure.getMessage());
    }

    private static void assertHeaderMalformed(final byte[] frame, final String expectedText)
    {
        final ProtocolViolationException failure = assertThrows(ProtocolViolationException.class, () ->
            WireFormat.checkHeader(Arrays.copyOf(frame, WireFormat.HEADER_LENGTH)));
        assertEquals(RejectReason.MALFORMED, failure.reason());
        assertTrue(failure.getMessage().contains(expectedText), failure.getMessage());
    }
}
