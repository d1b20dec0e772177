package io.ringwire.codecs;

import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.BookSnapshotEncoder;
import io.ringwire.codecs.trading.BookUpdateDecoder;
import io.ringwire.codecs.trading.BookUpdateEncoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.GroupSizeEncodingEncoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LatencyProbeEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each rejection code of {@link MessageValidator}, from a buffer crafted to trigger exactly it, and
 * the acceptance rules around offsets, trailing bytes and truncation.
 *
 * <p>Crafted buffers are exactly as long as the bytes under test (agrona bounds-checks every access),
 * so a validator that peeks past the end fails with an exception rather than a wrong code.
 */
class MessageValidatorTest
{
    private static final ByteOrder ORDER = MessageHeaderDecoder.BYTE_ORDER;
    private static final int HEADER = MessageHeaderEncoder.ENCODED_LENGTH;
    private static final int NEW_ORDER_LENGTH = HEADER + NewOrderEncoder.BLOCK_LENGTH;
    private static final int LEVELS_AT = HEADER + BookUpdateEncoder.BLOCK_LENGTH;
    private static final int LEVEL_LENGTH = BookUpdateEncoder.LevelsEncoder.sbeBlockLength();
    private static final int ORDERS_AT = HEADER + BookSnapshotEncoder.BLOCK_LENGTH;
    private static final int ORDER_LENGTH = BookSnapshotEncoder.OrdersEncoder.sbeBlockLength();
    private static final int CREDENTIALS_AT = HEADER + LogonEncoder.BLOCK_LENGTH;
    private static final int PADDING_AT = HEADER + LatencyProbeEncoder.BLOCK_LENGTH;
    private static final int CREDENTIALS_MAX = 1024;
    private static final int BLOCK_LENGTH_AT = MessageHeaderEncoder.blockLengthEncodingOffset();
    private static final int VERSION_AT = MessageHeaderEncoder.versionEncodingOffset();

    private static final Set<Integer> TRUNCATION_CODES = Set.of(
        MessageValidator.TRUNCATED_HEADER,
        MessageValidator.BLOCK_PAST_END,
        MessageValidator.GROUP_HEADER_PAST_END,
        MessageValidator.GROUP_PAST_END,
        MessageValidator.VAR_DATA_HEADER_PAST_END,
        MessageValidator.VAR_DATA_PAST_END);

    @Test
    void bufferAgronaBoundsChecksAreOnSoOutOfBoundsReadsFailTheseTests()
    {
        assertTrue(UnsafeBuffer.SHOULD_BOUNDS_CHECK, "run without -Dagrona.disable.bounds.checks=true");
    }

    // ---------------------------------------------------------------------------------------------- one per code

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = { 0, 1, 7 })
    void shorterThanTheHeaderIsTruncatedHeader(final int length)
    {
        final byte[] bytes = Arrays.copyOf(newOrder(), length);

        assertRejected(MessageValidator.TRUNCATED_HEADER, bytes, "truncated", "header");
    }

    @ParameterizedTest(name = "schema id {0}")
    @ValueSource(ints = { 0, 7116, 7118, 0xFFFF })
    void foreignSchemaIdIsWrongSchemaId(final int schemaId)
    {
        final byte[] bytes = newOrder();
        putShort(bytes, 4, schemaId);

        assertRejected(MessageValidator.WRONG_SCHEMA_ID, bytes, "wrong schema id", "7117");
    }

    @ParameterizedTest(name = "template id {0}")
    @ValueSource(ints = { 0, 5, 9, 15, 19, 21, 29, 38, 89, 91, 127, 128, 0x7FFF, 0xFFFF })
    void templateIdTheSchemaLacksIsUnknownTemplateId(final int templateId)
    {
        final byte[] bytes = newOrder();
        putShort(bytes, 2, templateId);

        assertFalse(MessageValidator.isKnownTemplate(templateId));
        assertRejected(MessageValidator.UNKNOWN_TEMPLATE_ID, bytes, "unknown template");
    }

    @ParameterizedTest(name = "block length {0}")
    @ValueSource(ints = { 0, 1, NewOrderEncoder.BLOCK_LENGTH - 1 })
    void headerBlockLengthShorterThanTheTemplatesIsBlockLengthTooShort(final int blockLength)
    {
        final byte[] bytes = newOrder();
        putShort(bytes, 0, blockLength);

        assertRejected(MessageValidator.BLOCK_LENGTH_TOO_SHORT, bytes, "block length", "shorter");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.ringwire.codecs.SampleMessages#oneOfEach")
    void headerBlockLengthOneShortOfEveryTemplatesIsBlockLengthTooShortEvenWhenTheBytesArePresent(
        final SampleMessages.Encoded message)
    {
        final byte[] bytes = message.bytes().clone();
        putShort(bytes, BLOCK_LENGTH_AT, blockLengthOf(message.templateId()) - 1);

        assertRejected(MessageValidator.BLOCK_LENGTH_TOO_SHORT, bytes, "block length", "shorter", "version");
    }

    static Stream<Arguments> grownTemplatesAtVersions()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final int templateId : SampleMessages.GROWN_IN_VERSION_2_TEMPLATE_IDS)
        {
            for (final int version : new int[]{ 2, 3, 0xFFFF })
            {
                cases.add(Arguments.of(templateId, version));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "template {0}, header version {1}")
    @MethodSource("grownTemplatesAtVersions")
    void version1BlockUnderAHeaderOfVersion2OrLaterIsBlockLengthTooShort(final int templateId, final int version)
    {
        // A decoder reads version 2's fields whenever the header's version has them, whatever the
        // block length: accepting this would let it read past the message.
        final byte[] bytes = SampleMessages.randomValidVersion1(templateId, new Random(templateId)).bytes();
        putShort(bytes, VERSION_AT, version);

        assertRejected(MessageValidator.BLOCK_LENGTH_TOO_SHORT, bytes, "block length", "shorter");
    }

    @ParameterizedTest(name = "template {0}")
    @MethodSource("grownTemplates")
    void version1MessageOfATemplateVersion2GrewIsValidAtItsShorterBlockAndNotOneByteShorter(final int templateId)
    {
        final byte[] bytes = SampleMessages.randomValidVersion1(templateId, new Random(templateId)).bytes();
        final int version1BlockLength = bytes.length - HEADER;
        assertTrue(version1BlockLength < blockLengthOf(templateId));
        assertEquals(bytes.length, MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length));

        for (final int version : new int[]{ 0, 1 })
        {
            final byte[] shorter = bytes.clone();
            putShort(shorter, VERSION_AT, version);
            assertEquals(bytes.length, MessageValidator.validate(new UnsafeBuffer(shorter), 0, bytes.length),
                "the same block under header version " + version);
            putShort(shorter, BLOCK_LENGTH_AT, version1BlockLength - 1);
            assertRejected(MessageValidator.BLOCK_LENGTH_TOO_SHORT, shorter, "block length", "shorter");
        }
    }

    @ParameterizedTest(name = "template {0}")
    @MethodSource("grownTemplates")
    void currentMessageUnderAVersion1HeaderIsAcceptedAtItsFullLength(final int templateId)
    {
        // A version-1 reader of such a message decodes its version-1 fields and steps over the rest.
        final byte[] bytes = SampleMessages.randomValid(templateId, new Random(templateId)).bytes();
        putShort(bytes, VERSION_AT, 1);

        assertEquals(bytes.length, MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length));
    }

    static IntStream grownTemplates()
    {
        return Arrays.stream(SampleMessages.GROWN_IN_VERSION_2_TEMPLATE_IDS);
    }

    @Test
    void newOrderCutInsideItsBlockIsBlockPastEnd()
    {
        final byte[] bytes = Arrays.copyOf(newOrder(), NEW_ORDER_LENGTH - 1);

        assertRejected(MessageValidator.BLOCK_PAST_END, bytes, "truncated", "fixed block");
    }

    @Test
    void headerBlockLengthLongerThanTheBytesIsBlockPastEnd()
    {
        final byte[] bytes = newOrder();
        putShort(bytes, 0, NewOrderEncoder.BLOCK_LENGTH + 1);

        assertRejected(MessageValidator.BLOCK_PAST_END, bytes, "truncated", "fixed block");
    }

    @Test
    void bookUpdateCutInsideTheLevelsHeaderIsGroupHeaderPastEnd()
    {
        final byte[] bytes = Arrays.copyOf(bookUpdate(2), LEVELS_AT + GroupSizeEncodingEncoder.ENCODED_LENGTH - 1);

        assertRejected(MessageValidator.GROUP_HEADER_PAST_END, bytes, "truncated", "group", "size header");
    }

    @ParameterizedTest(name = "entry length {0}")
    @ValueSource(ints = { 0, 1, 21 })
    void levelsEntryLengthShorterThanTheLevelsFieldsIsGroupBlockLengthTooShort(final int entryLength)
    {
        final byte[] bytes = bookUpdate(2);
        putShort(bytes, LEVELS_AT, entryLength);

        assertRejected(MessageValidator.GROUP_BLOCK_LENGTH_TOO_SHORT, bytes, "entry length", "shorter");
    }

    static IntStream ordersEntryLengthsTooShort()
    {
        return IntStream.of(0, 1, LEVEL_LENGTH, ORDER_LENGTH - 1);
    }

    @ParameterizedTest(name = "entry length {0}")
    @MethodSource("ordersEntryLengthsTooShort")
    void ordersEntryLengthShorterThanTheOrdersFieldsIsGroupBlockLengthTooShortEvenWhenItFitsALevel(
        final int entryLength)
    {
        // Each group is held to its own entry length: a snapshot order's entry is longer than a
        // book level's, so a level's length must not pass for an order's.
        assertTrue(LEVEL_LENGTH < ORDER_LENGTH);
        final byte[] bytes = bookSnapshot(2);
        putShort(bytes, ORDERS_AT, entryLength);

        assertRejected(MessageValidator.GROUP_BLOCK_LENGTH_TOO_SHORT, bytes, "entry length", "shorter");
    }

    @Test
    void bookSnapshotCutInsideTheLastOrderIsGroupPastEnd()
    {
        final byte[] full = bookSnapshot(3);
        final byte[] bytes = Arrays.copyOf(full, full.length - 1);

        assertRejected(MessageValidator.GROUP_PAST_END, bytes, "truncated", "entries");
    }

    @Test
    void ordersCountAtTheSchemaMaximumIsAcceptedAndOneAboveIsGroupCountTooLarge()
    {
        final byte[] bytes = Arrays.copyOf(bookSnapshot(0), ORDERS_AT + 4 + 4097 * ORDER_LENGTH);
        putShort(bytes, ORDERS_AT + 2, 4096);
        assertEquals(ORDERS_AT + 4 + 4096 * ORDER_LENGTH,
            MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length));

        putShort(bytes, ORDERS_AT + 2, 4097);
        assertRejected(MessageValidator.GROUP_COUNT_TOO_LARGE, bytes, "count", "maximum", "4096");
    }

    @ParameterizedTest(name = "count {0}")
    @ValueSource(ints = { 4097, 0xFFFF })
    void levelsCountAboveTheSchemaMaximumIsGroupCountTooLargeEvenWhenTheBytesArePresent(final int count)
    {
        final byte[] bytes = Arrays.copyOf(bookUpdate(0), LEVELS_AT + 4 + count * LEVEL_LENGTH);
        putShort(bytes, LEVELS_AT + 2, count);

        assertRejected(MessageValidator.GROUP_COUNT_TOO_LARGE, bytes, "count", "maximum", "4096");
    }

    @Test
    void levelsCountAtTheSchemaMaximumIsAccepted()
    {
        final byte[] bytes = Arrays.copyOf(bookUpdate(0), LEVELS_AT + 4 + 4096 * LEVEL_LENGTH);
        putShort(bytes, LEVELS_AT + 2, 4096);

        assertEquals(bytes.length, MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length));
    }

    @Test
    void bookUpdateCutInsideTheLastLevelIsGroupPastEnd()
    {
        final byte[] full = bookUpdate(3);
        final byte[] bytes = Arrays.copyOf(full, full.length - 1);

        assertRejected(MessageValidator.GROUP_PAST_END, bytes, "truncated", "entries");
    }

    @Test
    void levelsCountHigherThanTheEntriesPresentIsGroupPastEnd()
    {
        final byte[] bytes = bookUpdate(3);
        putShort(bytes, LEVELS_AT + 2, 4);

        assertRejected(MessageValidator.GROUP_PAST_END, bytes, "truncated", "entries");
    }

    @Test
    void levelsEntryLengthTooLargeForTheBytesIsGroupPastEnd()
    {
        final byte[] bytes = bookUpdate(3);
        putShort(bytes, LEVELS_AT, 0xFFFF);

        assertRejected(MessageValidator.GROUP_PAST_END, bytes, "truncated", "entries");
    }

    @Test
    void logonCutInsideTheCredentialsLengthPrefixIsVarDataHeaderPastEnd()
    {
        final byte[] bytes = Arrays.copyOf(logon("token"), CREDENTIALS_AT + 1);

        assertRejected(MessageValidator.VAR_DATA_HEADER_PAST_END, bytes, "truncated", "length prefix");
    }

    @Test
    void latencyProbeCutInsideThePaddingLengthPrefixIsVarDataHeaderPastEnd()
    {
        final byte[] bytes = Arrays.copyOf(latencyProbe(8), PADDING_AT + 3);

        assertRejected(MessageValidator.VAR_DATA_HEADER_PAST_END, bytes, "truncated", "length prefix");
    }

    @ParameterizedTest(name = "credentials length {0}")
    @ValueSource(ints = { CREDENTIALS_MAX + 1, 0xFFFF })
    void credentialsLongerThanTheSchemaMaximumIsVarDataTooLongEvenWhenTheBytesArePresent(final int length)
    {
        final byte[] bytes = Arrays.copyOf(logon(""), CREDENTIALS_AT + 2 + length);
        putShort(bytes, CREDENTIALS_AT, length);

        assertRejected(MessageValidator.VAR_DATA_TOO_LONG, bytes, "var-data length", "maximum");
    }

    @Test
    void credentialsOfExactlyTheSchemaMaximumAreAccepted()
    {
        final byte[] bytes = Arrays.copyOf(logon(""), CREDENTIALS_AT + 2 + CREDENTIALS_MAX);
        putShort(bytes, CREDENTIALS_AT, CREDENTIALS_MAX);

        assertEquals(bytes.length, MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length));
    }

    @ParameterizedTest(name = "padding length {0}")
    @ValueSource(longs = { 16_777_217L, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL })
    void paddingLongerThanTheSchemaMaximumIsVarDataTooLong(final long length)
    {
        final byte[] bytes = latencyProbe(8);
        putInt(bytes, PADDING_AT, (int)length);

        assertRejected(MessageValidator.VAR_DATA_TOO_LONG, bytes, "var-data length", "maximum");
    }

    @Test
    void logonCutInsideTheCredentialsIsVarDataPastEnd()
    {
        final byte[] full = logon("secret-token");
        final byte[] bytes = Arrays.copyOf(full, full.length - 1);

        assertRejected(MessageValidator.VAR_DATA_PAST_END, bytes, "truncated", "var-data bytes");
    }

    @Test
    void paddingLengthWithinTheMaximumButBeyondTheBytesIsVarDataPastEnd()
    {
        final byte[] bytes = latencyProbe(8);
        putInt(bytes, PADDING_AT, 16_777_216);

        assertRejected(MessageValidator.VAR_DATA_PAST_END, bytes, "truncated", "var-data bytes");
    }

    @Test
    void negativeOffsetIsInvalidArgument()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(newOrder());

        final int result = MessageValidator.validate(buffer, -1, NEW_ORDER_LENGTH);

        assertCode(MessageValidator.INVALID_ARGUMENT, result, "invalid arguments", "negative offset");
    }

    @Test
    void negativeLengthIsInvalidArgument()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(newOrder());

        final int result = MessageValidator.validate(buffer, 0, -1);

        assertCode(MessageValidator.INVALID_ARGUMENT, result, "invalid arguments", "length");
    }

    @Test
    void rangeBeyondTheBufferCapacityIsInvalidArgument()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(newOrder());

        assertCode(MessageValidator.INVALID_ARGUMENT, MessageValidator.validate(buffer, 0, NEW_ORDER_LENGTH + 1),
            "outside the buffer");
        assertCode(MessageValidator.INVALID_ARGUMENT, MessageValidator.validate(buffer, 1, NEW_ORDER_LENGTH),
            "outside the buffer");
        assertCode(MessageValidator.INVALID_ARGUMENT,
            MessageValidator.validate(buffer, Integer.MAX_VALUE, Integer.MAX_VALUE), "outside the buffer");
    }

    @Test
    void everyCodeHasItsOwnDescriptionAndNonNegativeResultsAreValid()
    {
        final List<Integer> codes = List.of(
            MessageValidator.TRUNCATED_HEADER, MessageValidator.WRONG_SCHEMA_ID, MessageValidator.UNKNOWN_TEMPLATE_ID,
            MessageValidator.BLOCK_LENGTH_TOO_SHORT, MessageValidator.BLOCK_PAST_END,
            MessageValidator.GROUP_HEADER_PAST_END, MessageValidator.GROUP_BLOCK_LENGTH_TOO_SHORT,
            MessageValidator.GROUP_COUNT_TOO_LARGE, MessageValidator.GROUP_PAST_END,
            MessageValidator.VAR_DATA_HEADER_PAST_END, MessageValidator.VAR_DATA_TOO_LONG,
            MessageValidator.VAR_DATA_PAST_END, MessageValidator.INVALID_ARGUMENT);

        assertEquals(codes.size(), codes.stream().distinct().count(), "codes are distinct");
        assertEquals(codes.size(), codes.stream().map(MessageValidator::describe).distinct().count(),
            "descriptions are distinct");
        codes.forEach(code -> assertTrue(code < 0, "code " + code));
        codes.forEach(code -> assertFalse(MessageValidator.describe(code).startsWith("unknown validation code"),
            "code " + code));
        assertEquals("valid", MessageValidator.describe(0));
        assertEquals("valid", MessageValidator.describe(64));
        assertTrue(MessageValidator.describe(-99).contains("-99"));
    }

    // ---------------------------------------------------------------------------------------------- acceptance

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.ringwire.codecs.SampleMessages#oneOfEach")
    void validMessageAtANonZeroOffsetInsideALargerBufferValidatesToItsLength(final SampleMessages.Encoded message)
    {
        final int offset = 37;
        final byte[] frame = new byte[offset + message.length() + 29];
        Arrays.fill(frame, (byte)0xA5);
        System.arraycopy(message.bytes(), 0, frame, offset, message.length());

        assertEquals(message.length(), MessageValidator.validate(new UnsafeBuffer(frame), offset, message.length()));
        assertEquals(message.length(),
            MessageValidator.validate(new UnsafeBuffer(frame, offset, message.length()), 0, message.length()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.ringwire.codecs.SampleMessages#oneOfEach")
    void trailingBytesAfterAValidMessageAreAllowedAndNotCountedInItsLength(final SampleMessages.Encoded message)
    {
        for (final int trailing : new int[]{ 1, 8, 300 })
        {
            final byte[] bytes = Arrays.copyOf(message.bytes(), message.length() + trailing);
            Arrays.fill(bytes, message.length(), bytes.length, (byte)0xFF);

            assertEquals(message.length(), MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length),
                message + " followed by " + trailing + " bytes");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.ringwire.codecs.SampleMessages#oneOfEach")
    void messageTruncatedAtEveryLengthShorterThanItselfIsRejectedAsTruncated(final SampleMessages.Encoded message)
    {
        assertEquals(message.length(), MessageValidator.validate(message.exactBuffer(), 0, message.length()));
        for (int length = 0; length < message.length(); length++)
        {
            final UnsafeBuffer exact = new UnsafeBuffer(Arrays.copyOf(message.bytes(), length));
            final int result = MessageValidator.validate(exact, 0, length);
            final int cut = length;
            assertTrue(TRUNCATION_CODES.contains(result),
                () -> message + " cut to " + cut + " bytes: " + result + " " + MessageValidator.describe(result));
            assertTrue(MessageValidator.describe(result).startsWith("truncated"));

            // The same prefix inside the full message's buffer: the length argument, not the capacity, bounds it.
            assertEquals(result, MessageValidator.validate(message.exactBuffer(), 0, length));
        }
    }

    @Test
    void heartbeatWithALongerBlockFromANewerSenderIsAcceptedAtItsFullLength()
    {
        final byte[] bytes = new byte[HEADER + HeartbeatEncoder.BLOCK_LENGTH + 12];
        SampleMessages.putHeader(new UnsafeBuffer(bytes), 0, HeartbeatEncoder.BLOCK_LENGTH + 12,
            HeartbeatEncoder.TEMPLATE_ID, MessageHeaderDecoder.SCHEMA_ID, 3);

        assertEquals(bytes.length, MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length));
    }

    @Test
    void sampleMessagesCoverEveryTemplateWithNonEmptyGroupsAndVarData()
    {
        final List<SampleMessages.Encoded> messages = SampleMessages.oneOfEach();

        assertEquals(
            IntStream.rangeClosed(0, 0xFFFF).filter(MessageValidator::isKnownTemplate).boxed().toList(),
            Arrays.stream(SampleMessages.TEMPLATE_IDS).sorted().boxed().toList(),
            "SampleMessages.TEMPLATE_IDS are the templates the validator knows");
        assertEquals(SampleMessages.TEMPLATE_IDS.length, messages.size());
        for (final int templateId : SampleMessages.TEMPLATE_IDS)
        {
            assertTrue(messages.stream().anyMatch(m -> m.templateId() == templateId), "template " + templateId);
        }
        final SampleMessages.Encoded book = messages.stream()
            .filter(m -> m.templateId() == BookUpdateDecoder.TEMPLATE_ID).findFirst().orElseThrow();
        assertNotEquals(0, new UnsafeBuffer(book.bytes()).getShort(LEVELS_AT + 2, ORDER));
        final SampleMessages.Encoded snapshot = messages.stream()
            .filter(m -> m.templateId() == BookSnapshotDecoder.TEMPLATE_ID).findFirst().orElseThrow();
        assertNotEquals(0, new UnsafeBuffer(snapshot.bytes()).getShort(ORDERS_AT + 2, ORDER));
    }

    // ---------------------------------------------------------------------------------------------- support

    private static void assertRejected(final int expected, final byte[] bytes, final String... reasonWords)
    {
        final int result = MessageValidator.validate(new UnsafeBuffer(bytes), 0, bytes.length);
        assertCode(expected, result, reasonWords);

        // Same bytes at a nonzero offset of a larger buffer: same verdict.
        final byte[] framed = new byte[bytes.length + 16];
        System.arraycopy(bytes, 0, framed, 11, bytes.length);
        assertEquals(expected, MessageValidator.validate(new UnsafeBuffer(framed), 11, bytes.length));
    }

    private static void assertCode(final int expected, final int result, final String... reasonWords)
    {
        assertEquals(expected, result, () -> "got " + result + ": " + MessageValidator.describe(result));
        final String reason = MessageValidator.describe(result).toLowerCase(Locale.ROOT);
        for (final String word : reasonWords)
        {
            assertTrue(reason.contains(word.toLowerCase(Locale.ROOT)), () -> "'" + reason + "' mentions " + word);
        }
    }

    private static int blockLengthOf(final int templateId)
    {
        for (int i = 0; i < SampleMessages.TEMPLATE_IDS.length; i++)
        {
            if (SampleMessages.TEMPLATE_IDS[i] == templateId)
            {
                return SampleMessages.BLOCK_LENGTHS[i];
            }
        }
        throw new IllegalArgumentException("no such template " + templateId);
    }

    private static byte[] newOrder()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(128);
        final NewOrderEncoder encoder = new NewOrderEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .clientOrderId(1L).account(2L).instrumentId(3).side(Side.BUY).ordType(OrdType.LIMIT)
            .timeInForce(TimeInForce.DAY).price(4L).quantity(5L).sendingTime(6L).postOnly(BooleanType.FALSE)
            .displayQuantity(0L).selfTradePrevention(SelfTradePrevention.CANCEL_RESTING).receiveTime(7L)
            .gatewaySendTime(8L);
        assertEquals(NEW_ORDER_LENGTH, HEADER + encoder.encodedLength());
        return copy(buffer, NEW_ORDER_LENGTH);
    }

    private static byte[] bookUpdate(final int levels)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final BookUpdateEncoder encoder = new BookUpdateEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .instrumentId(1).sequenceNumber(2L).transactTime(3L);
        final BookUpdateEncoder.LevelsEncoder entries = encoder.levelsCount(levels);
        for (int i = 0; i < levels; i++)
        {
            entries.next().action(io.ringwire.codecs.trading.BookAction.NEW).side(Side.SELL).price(i).quantity(i)
                .orderCount(i);
        }
        return copy(buffer, HEADER + encoder.encodedLength());
    }

    private static byte[] bookSnapshot(final int orders)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final BookSnapshotEncoder encoder = new BookSnapshotEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .instrumentId(1).sequenceNumber(2L).streamSequence(3L).part(0).lastPart(BooleanType.TRUE);
        final BookSnapshotEncoder.OrdersEncoder entries = encoder.ordersCount(orders);
        for (int i = 0; i < orders; i++)
        {
            entries.next().orderId(i).side(Side.BUY).price(i).quantity(i);
        }
        return copy(buffer, HEADER + encoder.encodedLength());
    }

    private static byte[] logon(final String credentials)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(128);
        final LogonEncoder encoder = new LogonEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sessionId(1L).heartbeatIntervalMs(1_000).sendingTime(2L).credentials(credentials);
        return copy(buffer, HEADER + encoder.encodedLength());
    }

    private static byte[] latencyProbe(final int paddingLength)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(128);
        final LatencyProbeEncoder encoder = new LatencyProbeEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sequence(1L).sendTimestampNs(2L).echoTimestampNs(0L).putPadding(new byte[paddingLength], 0, paddingLength);
        return copy(buffer, HEADER + encoder.encodedLength());
    }

    private static byte[] copy(final DirectBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes, 0, length);
        return bytes;
    }

    private static void putShort(final byte[] bytes, final int index, final int value)
    {
        new UnsafeBuffer(bytes).putShort(index, (short)value, ORDER);
    }

    private static void putInt(final byte[] bytes, final int index, final int value)
    {
        new UnsafeBuffer(bytes).putInt(index, value, ORDER);
    }
}
