package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairEndpoint;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The connection manager's framing on the TCP management connection. Every integer is big-endian
 * (network order).
 *
 * <pre>
 * Frame
 *   0         4      5          6         8             12          12 + n
 *   +---------+------+----------+---------+-------------+-----------+---------------+
 *   | magic   | type | reserved | version | body length | body      | signature     |
 *   | u32     | u8   | u8 = 0   | u16     | u32 = n     | n bytes   | 64 bytes      |
 *   +---------+------+----------+---------+-------------+-----------+---------------+
 *   magic: "RWCM" = 0x5257434D;  type: 1 REQ, 2 REP, 3 RTU, 4 REJ, 5 CHALLENGE;
 *   n: 32 to MAX_BODY_LENGTH (4096), checked before anything is allocated for the body;
 *   signature: Ed25519 over header and body by the sender's identity (protocol 3 on; versions 1
 *   and 2 carried a 32-byte HMAC-SHA256 tag there, which is still read, to refuse them by name).
 *
 * Body prefix, every type
 *   0    nonce           16 bytes, fresh random per message
 *   16   echoed nonce    16 bytes, the nonce of the message this one answers:
 *                        CHALLENGE zeros, REQ the CHALLENGE's, REP the REQ's, RTU the REP's,
 *                        REJ the refused one's (or zeros)
 *
 * REQ and REP body, after the prefix
 *   32          queue pair number           u32 (24 bits used)
 *   36          starting PSN                u32 (24 bits used)
 *   40          MTU                         u32
 *   44          P_Key                       u16
 *   46          address length a            u16, at most 1024
 *   48          address                     a bytes, UTF-8
 *   48+a        region count r              u16, at most 64
 *   50+a        regions                     r times { address u64, rkey u32, length u32 }
 *   50+a+16r    application data length d   u16, at most 1024
 *   52+a+16r    application data            d bytes
 *   52+a+16r+d  identity length i           u8, 1 to 64
 *   53+a+16r+d  identity                    i bytes, ASCII: the name the signature is made as;
 *                                           a REP's body ends exactly here
 * REQ only, after the identity (protocol 4)
 *   53+a+16r+d+i  addressed length l        u8, 1 to 64
 *   54+a+16r+d+i  addressed identity        l bytes, ASCII: the listener the REQ is made for, as
 *                                           its CHALLENGE named it; the body ends exactly here
 *
 * CHALLENGE body, after the prefix (protocol 4)
 *   32   identity length i   u8, 1 to 64
 *   33   identity            i bytes, ASCII: the listener's, the name its signature is made as;
 *                            the body ends exactly here
 *
 * RTU body: the prefix only.
 *
 * REJ body, after the prefix
 *   32   reason code      u16 (RejectReason)
 *   34   text length t    u16, at most 512
 *   36   text             t bytes, UTF-8; the body ends exactly here
 * </pre>
 *
 * <p>Why the nonces: the passive side opens every management connection with a CHALLENGE, the REQ
 * echoes its nonce, the REP the REQ's and the RTU the REP's, all under the signature, so each side
 * knows the message it verifies is fresh and answers its own. A REQ recorded from one connection
 * and replayed on another echoes the wrong challenge and is refused before the REP reveals anything
 * (endpoint, regions, rkeys).
 *
 * <p>Why the identity rides in the body: the receiver of a REQ or REP learns from it which of the
 * keys it trusts to verify with, decodes the body (every length is bounded and checked, so a forged
 * body is refused as MALFORMED, never trusted), and acts on nothing in it until the signature has
 * verified under that key.
 *
 * <p>Why a REQ names its listener: a nonce binds a REQ to one connection, not to one listener. A
 * member whose own listener a core role connects to could otherwise hand that role another
 * listener's challenge, pass the REQ signed in answer to that other listener, and splice the two
 * handshakes so the role's queue pair ends up connected to the other listener. The CHALLENGE names
 * the listener, under its signature; the active side goes on only for a name it accepts there and
 * a signature that verifies, names that listener in its REQ, and takes only a REP signed as it; a
 * listener refuses a REQ made for another.
 *
 * <p>Compatibility: the header, the prefix and the REJ body are frozen across protocol versions, so
 * a peer speaking another version can always be told so. A REJ is read without checking its version
 * or signature (a peer with the wrong key must still learn why it was refused). A CHALLENGE of
 * another version is answered with a REJ (UNSUPPORTED_VERSION), never a REQ; one of this side's
 * version is checked like every other body: its listener's name must be one the active side accepts,
 * and its signature must verify under that name's key. (An active side of protocol 3 takes a
 * CHALLENGE for the prefix alone, so it refuses a protocol 4 CHALLENGE as MALFORMED.)
 *
 * <p>Threading: stateless.
 */
final class WireFormat
{
    /** "RWCM". */
    static final int MAGIC = 0x5257_434D;
    // Each field starts where the one before it ends, as the layout above draws them.
    static final int MAGIC_OFFSET = 0;
    static final int TYPE_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    static final int RESERVED_OFFSET = TYPE_OFFSET + Byte.BYTES;
    static final int VERSION_OFFSET = RESERVED_OFFSET + Byte.BYTES;
    static final int BODY_LENGTH_OFFSET = VERSION_OFFSET + Short.BYTES;
    static final int HEADER_LENGTH = BODY_LENGTH_OFFSET + Integer.BYTES;
    /** Bytes of a frame's signature in protocol versions that sign with an identity (3 on). */
    static final int SIGNATURE_LENGTH = Identity.SIGNATURE_LENGTH;
    /** Bytes of the HMAC tag of protocol versions 1 and 2, read only to refuse them. */
    static final int LEGACY_TAG_LENGTH = 32;
    /** The first protocol version whose frames carry a signature. */
    static final int FIRST_SIGNED_VERSION = 3;
    /** Bytes of the identity length field of REQ and REP. */
    static final int IDENTITY_LENGTH_LENGTH = Byte.BYTES;

    static final int NONCE_OFFSET = 0;
    static final int ECHOED_NONCE_OFFSET = NONCE_OFFSET + Nonces.LENGTH;
    static final int BODY_PREFIX_LENGTH = ECHOED_NONCE_OFFSET + Nonces.LENGTH;

    static final int QUEUE_PAIR_NUMBER_OFFSET = BODY_PREFIX_LENGTH;
    static final int START_PSN_OFFSET = QUEUE_PAIR_NUMBER_OFFSET + Integer.BYTES;
    static final int MTU_OFFSET = START_PSN_OFFSET + Integer.BYTES;
    static final int PARTITION_KEY_OFFSET = MTU_OFFSET + Integer.BYTES;
    static final int ADDRESS_LENGTH_OFFSET = PARTITION_KEY_OFFSET + Short.BYTES;
    static final int ADDRESS_OFFSET = ADDRESS_LENGTH_OFFSET + Short.BYTES;
    /** Bytes of a u16 count or length field in the variable part. */
    static final int COUNT_LENGTH = Short.BYTES;
    /** Bytes of one advertised region: address u64, rkey u32, length u32. */
    static final int REGION_LENGTH = Long.BYTES + Integer.BYTES + Integer.BYTES;

    static final int REASON_CODE_OFFSET = BODY_PREFIX_LENGTH;
    static final int REASON_TEXT_LENGTH_OFFSET = REASON_CODE_OFFSET + Short.BYTES;
    static final int REASON_TEXT_OFFSET = REASON_TEXT_LENGTH_OFFSET + Short.BYTES;
    static final int MAX_REASON_TEXT_LENGTH = 512;

    /** Largest body accepted; the largest REQ or REP is about 3.1 KiB. */
    static final int MAX_BODY_LENGTH = 4096;

    private WireFormat()
    {
    }

    // ---------------------------------------------------------------- frames

    /**
     * @param version a frame's protocol version.
     * @return the bytes of what follows its body: the signature, or an old version's tag.
     */
    static int trailerLength(final int version)
    {
        return version >= FIRST_SIGNED_VERSION ? SIGNATURE_LENGTH : LEGACY_TAG_LENGTH;
    }

    /**
     * @return header, body and signature, ready to write.
     */
    static byte[] encodeFrame(final MessageType type, final int version, final byte[] body, final Identity signer)
    {
        if (body.length < BODY_PREFIX_LENGTH || body.length > MAX_BODY_LENGTH)
        {
            throw new IllegalArgumentException("body of " + body.length + " bytes is outside " + BODY_PREFIX_LENGTH +
                ".." + MAX_BODY_LENGTH);
        }
        final byte[] frame = new byte[HEADER_LENGTH + body.length + SIGNATURE_LENGTH];
        final ByteBuffer header = ByteBuffer.wrap(frame);
        header.putInt(MAGIC_OFFSET, MAGIC);
        header.put(TYPE_OFFSET, (byte)type.code);
        header.put(RESERVED_OFFSET, (byte)0);
        header.putShort(VERSION_OFFSET, (short)version);
        header.putInt(BODY_LENGTH_OFFSET, body.length);
        System.arraycopy(body, 0, frame, HEADER_LENGTH, body.length);
        final byte[] signature = signer.sign(frame, 0, HEADER_LENGTH + body.length);
        System.arraycopy(signature, 0, frame, HEADER_LENGTH + body.length, SIGNATURE_LENGTH);
        return frame;
    }

    /**
     * Checks magic, type and body length: all a reader needs before allocating for the body.
     *
     * @param header {@link #HEADER_LENGTH} bytes.
     * @return the body length, {@link #BODY_PREFIX_LENGTH} to {@link #MAX_BODY_LENGTH}.
     * @throws ProtocolViolationException MALFORMED, saying which check failed.
     */
    static int checkHeader(final byte[] header) throws ProtocolViolationException
    {
        final ByteBuffer buffer = ByteBuffer.wrap(header);
        final int magic = buffer.getInt(MAGIC_OFFSET);
        if (magic != MAGIC)
        {
            throw malformed(String.format("bad magic 0x%08X, expected 0x%08X ('RWCM'): not a RingWire " +
                "connection-manager frame", magic, MAGIC));
        }
        if (type(header) == null)
        {
            throw malformed("unknown message type " + (header[TYPE_OFFSET] & 0xFF));
        }
        final int bodyLength = buffer.getInt(BODY_LENGTH_OFFSET);
        if (bodyLength < BODY_PREFIX_LENGTH || bodyLength > MAX_BODY_LENGTH)
        {
            throw malformed("body length " + Integer.toUnsignedString(bodyLength) + " is outside the allowed " +
                BODY_PREFIX_LENGTH + ".." + MAX_BODY_LENGTH + " bytes");
        }
        return bodyLength;
    }

    /**
     * @return the header's message type, or null when unknown.
     */
    static MessageType type(final byte[] header)
    {
        return MessageType.fromCode(header[TYPE_OFFSET] & 0xFF);
    }

    /**
     * @return the header's protocol version.
     */
    static int version(final byte[] header)
    {
        return ByteBuffer.wrap(header).getShort(VERSION_OFFSET) & 0xFFFF;
    }

    // ---------------------------------------------------------------- REQ and REP

    /**
     * Checks what a side is about to advertise, before any I/O.
     *
     * @throws IllegalArgumentException naming the limit that is exceeded.
     */
    static void checkOutgoing(final QueuePairEndpoint endpoint, final List<RegionAdvertisement> regions,
        final byte[] applicationData)
    {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(regions, "regions (pass List.of() to advertise none)");
        Objects.requireNonNull(applicationData, "applicationData (pass an empty array to send none)");
        if (regions.size() > ConnectionManager.MAX_REGIONS)
        {
            throw new IllegalArgumentException(regions.size() + " advertised regions exceed the limit of " +
                ConnectionManager.MAX_REGIONS);
        }
        for (int i = 0; i < regions.size(); i++)
        {
            Objects.requireNonNull(regions.get(i), "advertised region " + i);
        }
        if (applicationData.length > ConnectionManager.MAX_APPLICATION_DATA_LENGTH)
        {
            throw new IllegalArgumentException("application data of " + applicationData.length +
                " bytes exceeds the limit of " + ConnectionManager.MAX_APPLICATION_DATA_LENGTH);
        }
        final int addressLength = endpoint.address().getBytes(StandardCharsets.UTF_8).length;
        if (addressLength > ConnectionManager.MAX_ADDRESS_LENGTH)
        {
            throw new IllegalArgumentException("endpoint address of " + addressLength + " UTF-8 bytes exceeds " +
                "the limit of " + ConnectionManager.MAX_ADDRESS_LENGTH);
        }
    }

    /**
     * @return a REQ or REP body.
     * @throws IllegalArgumentException when a limit is exceeded (see {@link #checkOutgoing}).
     */
    static byte[] encodeConnect(final byte[] nonce, final byte[] echoedNonce, final QueuePairEndpoint endpoint,
        final List<RegionAdvertisement> regions, final byte[] applicationData, final String identity,
        final String addressedTo)
    {
        checkOutgoing(endpoint, regions, applicationData);
        final byte[] address = endpoint.address().getBytes(StandardCharsets.UTF_8);
        final byte[] name = Identity.checkName(identity).getBytes(StandardCharsets.US_ASCII);
        final byte[] addressed = null == addressedTo ? new byte[0] :
            Identity.checkName(addressedTo).getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer body = ByteBuffer.allocate(ADDRESS_OFFSET + address.length + COUNT_LENGTH +
            regions.size() * REGION_LENGTH + COUNT_LENGTH + applicationData.length + IDENTITY_LENGTH_LENGTH +
            name.length + (null == addressedTo ? 0 : IDENTITY_LENGTH_LENGTH + addressed.length));
        putPrefix(body, nonce, echoedNonce);
        body.putInt(QUEUE_PAIR_NUMBER_OFFSET, endpoint.queuePairNumber());
        body.putInt(START_PSN_OFFSET, endpoint.startPsn());
        body.putInt(MTU_OFFSET, endpoint.mtu());
        body.putShort(PARTITION_KEY_OFFSET, (short)endpoint.partitionKey());
        body.putShort(ADDRESS_LENGTH_OFFSET, (short)address.length);
        body.position(ADDRESS_OFFSET).put(address);
        body.putShort((short)regions.size());
        for (final RegionAdvertisement region : regions)
        {
            body.putLong(region.address()).putInt(region.rkey()).putInt(region.length());
        }
        body.putShort((short)applicationData.length).put(applicationData);
        body.put((byte)name.length).put(name);
        if (null != addressedTo)
        {
            body.put((byte)addressed.length).put(addressed);
        }
        return body.array();
    }

    /**
     * @param type REQ (which ends with the listener it is addressed to) or REP.
     * @param bytes the body.
     * @return the decoded body.
     * @throws ProtocolViolationException MALFORMED, naming the field that is short, too long or invalid.
     */
    static ConnectMessage decodeConnect(final MessageType type, final byte[] bytes) throws ProtocolViolationException
    {
        final ByteBuffer body = ByteBuffer.wrap(bytes);
        require(body, ADDRESS_OFFSET, type + " fixed fields");
        final int queuePairNumber = body.getInt(QUEUE_PAIR_NUMBER_OFFSET);
        final int startPsn = body.getInt(START_PSN_OFFSET);
        final int mtu = body.getInt(MTU_OFFSET);
        final int partitionKey = body.getShort(PARTITION_KEY_OFFSET) & 0xFFFF;
        final int addressLength = body.getShort(ADDRESS_LENGTH_OFFSET) & 0xFFFF;
        checkLimit(addressLength, ConnectionManager.MAX_ADDRESS_LENGTH, type + " address length");
        body.position(ADDRESS_OFFSET);
        final String address = getUtf8(body, addressLength, type + " address");

        require(body, COUNT_LENGTH, type + " region count");
        final int regionCount = body.getShort() & 0xFFFF;
        checkLimit(regionCount, ConnectionManager.MAX_REGIONS, type + " region count");
        require(body, regionCount * REGION_LENGTH, type + " regions");
        final List<RegionAdvertisement> regions = new ArrayList<>(regionCount);
        for (int i = 0; i < regionCount; i++)
        {
            final long regionAddress = body.getLong();
            final int rkey = body.getInt();
            final int length = body.getInt();
            if (length < 0)
            {
                throw malformed(type + " region " + i + " has negative length " + length);
            }
            regions.add(new RegionAdvertisement(regionAddress, rkey, length));
        }

        require(body, COUNT_LENGTH, type + " application data length");
        final byte[] applicationData = getBytes(body, body.getShort() & 0xFFFF,
            ConnectionManager.MAX_APPLICATION_DATA_LENGTH, type + " application data");
        final String identity = getIdentity(body, type + " identity");
        final String addressedTo = type == MessageType.REQ ? getIdentity(body, type + " addressed identity") : null;
        requireEnd(body, type);

        final QueuePairEndpoint endpoint;
        try
        {
            endpoint = new QueuePairEndpoint(queuePairNumber, startPsn, address, mtu, partitionKey);
        }
        catch (final IllegalArgumentException ex)
        {
            throw malformed(type + " carries an invalid endpoint: " + ex.getMessage());
        }
        return new ConnectMessage(nonce(bytes), echoedNonce(bytes), endpoint, List.copyOf(regions), applicationData,
            identity, addressedTo);
    }

    /** Reads a length-prefixed identity name and checks it is a valid one. */
    private static String getIdentity(final ByteBuffer body, final String field) throws ProtocolViolationException
    {
        require(body, IDENTITY_LENGTH_LENGTH, field + " length");
        final byte[] name = getBytes(body, body.get() & 0xFF, Identity.MAX_NAME_LENGTH, field);
        final String identity = new String(name, StandardCharsets.US_ASCII);
        try
        {
            Identity.checkName(identity);
        }
        catch (final IllegalArgumentException ex)
        {
            throw malformed(field + ": names no valid identity: " + sanitise(ex.getMessage()));
        }
        return identity;
    }

    // ---------------------------------------------------------------- RTU

    /**
     * @return an RTU body.
     */
    static byte[] encodeReadyToUse(final byte[] nonce, final byte[] echoedNonce)
    {
        final ByteBuffer body = ByteBuffer.allocate(BODY_PREFIX_LENGTH);
        putPrefix(body, nonce, echoedNonce);
        return body.array();
    }

    /**
     * @return the nonce the RTU echoes (the REP's).
     * @throws ProtocolViolationException MALFORMED when the body is not exactly the prefix.
     */
    static byte[] decodeReadyToUse(final byte[] bytes) throws ProtocolViolationException
    {
        return echoedNonce(requirePrefixOnly(MessageType.RTU, bytes));
    }

    // ---------------------------------------------------------------- CHALLENGE

    /** A decoded CHALLENGE: the nonce the REQ must echo, and the listener's identity. */
    record Challenge(byte[] nonce, String identity)
    {
    }

    /**
     * @param challenge a fresh nonce the REQ must echo.
     * @param identity  the listener's identity, which signs the CHALLENGE.
     * @return a CHALLENGE body.
     */
    static byte[] encodeChallenge(final byte[] challenge, final String identity)
    {
        final byte[] name = Identity.checkName(identity).getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer body = ByteBuffer.allocate(BODY_PREFIX_LENGTH + IDENTITY_LENGTH_LENGTH + name.length);
        putPrefix(body, challenge, noNonce());
        body.position(BODY_PREFIX_LENGTH);
        body.put((byte)name.length).put(name);
        return body.array();
    }

    /**
     * @return the challenge nonce and the listener's identity a CHALLENGE carries.
     * @throws ProtocolViolationException MALFORMED when the body is not a prefix and a valid identity.
     */
    static Challenge decodeChallenge(final byte[] bytes) throws ProtocolViolationException
    {
        final ByteBuffer body = ByteBuffer.wrap(bytes);
        require(body, BODY_PREFIX_LENGTH, "CHALLENGE prefix");
        body.position(BODY_PREFIX_LENGTH);
        final String identity = getIdentity(body, "CHALLENGE identity");
        requireEnd(body, MessageType.CHALLENGE);
        return new Challenge(nonce(bytes), identity);
    }

    private static byte[] requirePrefixOnly(final MessageType type, final byte[] bytes)
        throws ProtocolViolationException
    {
        if (bytes.length != BODY_PREFIX_LENGTH)
        {
            throw malformed(type + " body is " + bytes.length + " bytes, expected " + BODY_PREFIX_LENGTH);
        }
        return bytes;
    }

    // ---------------------------------------------------------------- REJ

    /**
     * @param echoedNonce the refused message's nonce, or zeros.
     * @param text        why; truncated to {@link #MAX_REASON_TEXT_LENGTH} UTF-8 bytes.
     * @return a REJ body.
     */
    static byte[] encodeReject(final byte[] echoedNonce, final RejectReason reason, final String text)
    {
        final byte[] utf8 = truncatedUtf8(text, MAX_REASON_TEXT_LENGTH);
        final ByteBuffer body = ByteBuffer.allocate(REASON_TEXT_OFFSET + utf8.length);
        putPrefix(body, Nonces.newNonce(), echoedNonce);
        body.putShort(REASON_CODE_OFFSET, (short)reason.code());
        body.putShort(REASON_TEXT_LENGTH_OFFSET, (short)utf8.length);
        body.position(REASON_TEXT_OFFSET).put(utf8);
        return body.array();
    }

    /**
     * @return the decoded REJ; an unknown reason code becomes MALFORMED with the code in the text.
     * @throws ProtocolViolationException MALFORMED when the body is short, too long or its text
     *                                    length is out of range.
     */
    static RejectMessage decodeReject(final byte[] bytes) throws ProtocolViolationException
    {
        final ByteBuffer body = ByteBuffer.wrap(bytes);
        require(body, REASON_TEXT_OFFSET, "REJ fixed fields");
        final int code = body.getShort(REASON_CODE_OFFSET) & 0xFFFF;
        final int textLength = body.getShort(REASON_TEXT_LENGTH_OFFSET) & 0xFFFF;
        body.position(REASON_TEXT_OFFSET);
        final byte[] utf8 = getBytes(body, textLength, MAX_REASON_TEXT_LENGTH, "REJ text");
        requireEnd(body, MessageType.REJ);
        // Lenient decoding: the text is only shown, and a REJ is not authenticated.
        final String text = sanitise(new String(utf8, StandardCharsets.UTF_8));
        final RejectReason reason = RejectReason.fromCode(code);
        return reason != null ? new RejectMessage(reason, text) :
            new RejectMessage(RejectReason.MALFORMED, "unknown reject reason code " + code + ": " + text);
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Checks that a message answers the one this side sent: it must echo that message's nonce.
     *
     * @param answer      the message read, e.g. REP.
     * @param echoedNonce the nonce it echoes.
     * @param question    the message this side sent, e.g. REQ.
     * @param nonce       that message's nonce.
     * @throws ProtocolViolationException BAD_AUTHENTICATION when it echoes another nonce.
     */
    static void requireAnswer(final MessageType answer, final byte[] echoedNonce, final MessageType question,
        final byte[] nonce) throws ProtocolViolationException
    {
        if (!Arrays.equals(echoedNonce, nonce))
        {
            throw new ProtocolViolationException(RejectReason.BAD_AUTHENTICATION, "the " + answer + " does not answer " +
                "this " + question + " (it echoes another nonce): a replayed or misrouted " + answer);
        }
    }

    /**
     * @return zeros, the echoed nonce of a message that answers nothing (or nothing readable).
     */
    static byte[] noNonce()
    {
        return new byte[Nonces.LENGTH];
    }

    static byte[] nonce(final byte[] body)
    {
        return Arrays.copyOfRange(body, NONCE_OFFSET, NONCE_OFFSET + Nonces.LENGTH);
    }

    static byte[] echoedNonce(final byte[] body)
    {
        return Arrays.copyOfRange(body, ECHOED_NONCE_OFFSET, ECHOED_NONCE_OFFSET + Nonces.LENGTH);
    }

    /**
     * Replaces control characters so peer-supplied text cannot forge log lines or terminal output.
     */
    static String sanitise(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return out.toString();
    }

    private static void putPrefix(final ByteBuffer body, final byte[] nonce, final byte[] echoedNonce)
    {
        if (nonce.length != Nonces.LENGTH || echoedNonce.length != Nonces.LENGTH)
        {
            throw new IllegalArgumentException("nonces are " + Nonces.LENGTH + " bytes");
        }
        body.put(NONCE_OFFSET, nonce).put(ECHOED_NONCE_OFFSET, echoedNonce);
    }

    private static byte[] truncatedUtf8(final String text, final int maxBytes)
    {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= maxBytes)
        {
            return utf8;
        }
        int end = maxBytes;
        while (end > 0 && (utf8[end] & 0xC0) == 0x80)
        {
            end--; // utf8[end] continues a character: cut before that character starts
        }
        return Arrays.copyOf(utf8, end);
    }

    private static String getUtf8(final ByteBuffer body, final int length, final String field)
        throws ProtocolViolationException
    {
        require(body, length, field);
        final ByteBuffer slice = body.slice(body.position(), length);
        body.position(body.position() + length);
        try
        {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(slice)
                .toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw malformed(field + " is not valid UTF-8");
        }
    }

    /**
     * Reads a field of {@code length} bytes at the body's position, after checking its length against
     * the limit and what the body holds.
     *
     * @param field names the field in messages; its length field is "{@code field} length".
     */
    private static byte[] getBytes(final ByteBuffer body, final int length, final int limit, final String field)
        throws ProtocolViolationException
    {
        checkLimit(length, limit, field + " length");
        require(body, length, field);
        final byte[] bytes = new byte[length];
        body.get(bytes);
        return bytes;
    }

    private static void require(final ByteBuffer body, final int length, final String field)
        throws ProtocolViolationException
    {
        if (body.remaining() < length)
        {
            throw malformed(field + " need " + length + " bytes at body offset " + body.position() + ", only " +
                body.remaining() + " left");
        }
    }

    private static void checkLimit(final int value, final int limit, final String field)
        throws ProtocolViolationException
    {
        if (value > limit)
        {
            throw malformed(field + " " + value + " exceeds the limit of " + limit);
        }
    }

    private static void requireEnd(final ByteBuffer body, final MessageType type) throws ProtocolViolationException
    {
        if (body.hasRemaining())
        {
            throw malformed(type + " body has " + body.remaining() + " unexpected trailing bytes");
        }
    }

    private static ProtocolViolationException malformed(final String message)
    {
        return new ProtocolViolationException(RejectReason.MALFORMED, message);
    }
}
