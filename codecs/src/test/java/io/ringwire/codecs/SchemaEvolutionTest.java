package io.ringwire.codecs;

import io.ringwire.codecs.trading.BookAction;
import io.ringwire.codecs.trading.BookUpdateDecoder;
import io.ringwire.codecs.trading.BookUpdateEncoder;
import io.ringwire.codecs.trading.LatencyProbeDecoder;
import io.ringwire.codecs.trading.LatencyProbeEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Version 1 and version 2 of the schema (test-only codecs in {@code io.ringwire.codecs.evolution.v2},
 * one field appended with sinceVersion=2 to a root block, a group entry and a block followed by var
 * data) read each other's messages when the receiver decodes with the header's block length and
 * version, and the validator accepts the newer version's messages at their full length.
 *
 * <p>Every message is copied into a buffer of exactly its length before it is validated or decoded,
 * so a decoder that looks for a field or var data in the wrong place reads out of bounds and throws.
 */
class SchemaEvolutionTest
{
    private static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    private static final int LEVEL_COUNT = 5;

    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(512);
    private final MessageHeaderDecoder v1Header = new MessageHeaderDecoder();
    private final io.ringwire.codecs.evolution.v2.MessageHeaderDecoder v2Header =
        new io.ringwire.codecs.evolution.v2.MessageHeaderDecoder();

    @Test
    void evolutionSchemaIsTheSameSchemaOneVersionLaterWithLargerBlocks()
    {
        assertEquals(MessageHeaderDecoder.SCHEMA_ID, io.ringwire.codecs.evolution.v2.MessageHeaderDecoder.SCHEMA_ID);
        assertEquals(1, MessageHeaderDecoder.SCHEMA_VERSION);
        assertEquals(2, io.ringwire.codecs.evolution.v2.MessageHeaderDecoder.SCHEMA_VERSION);
        assertEquals(NewOrderDecoder.BLOCK_LENGTH + 8, io.ringwire.codecs.evolution.v2.NewOrderDecoder.BLOCK_LENGTH);
        assertEquals(BookUpdateDecoder.BLOCK_LENGTH + 4,
            io.ringwire.codecs.evolution.v2.BookUpdateDecoder.BLOCK_LENGTH);
        assertEquals(BookUpdateDecoder.LevelsDecoder.sbeBlockLength() + 8,
            io.ringwire.codecs.evolution.v2.BookUpdateDecoder.LevelsDecoder.sbeBlockLength());
        assertEquals(LatencyProbeDecoder.BLOCK_LENGTH + 4,
            io.ringwire.codecs.evolution.v2.LatencyProbeDecoder.BLOCK_LENGTH);
    }

    // ---------------------------------------------------------------------------------------------- v1 reads v2

    @Test
    void v1DecoderReadsEveryV1FieldOfAV2NewOrderAndSkipsTheLargerBlock()
    {
        final io.ringwire.codecs.evolution.v2.NewOrderEncoder encoder =
            new io.ringwire.codecs.evolution.v2.NewOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.evolution.v2.MessageHeaderEncoder())
            .clientOrderId(1_001L)
            .account(-2_002L)
            .instrumentId(3_003)
            .side(io.ringwire.codecs.evolution.v2.Side.SELL)
            .ordType(io.ringwire.codecs.evolution.v2.OrdType.LIMIT)
            .timeInForce(io.ringwire.codecs.evolution.v2.TimeInForce.IOC)
            .price(-4_004L)
            .quantity(5_005L)
            .sendingTime(0xFEDC_BA98_7654_3210L)
            .stopPrice(0x0BAD_CAFE_0BAD_CAFEL);
        final int length = HEADER_LENGTH + encoder.encodedLength();
        final DirectBuffer received = validatedV1Receive(length);
        assertEquals(2, v1Header.version());
        assertEquals(io.ringwire.codecs.evolution.v2.NewOrderEncoder.BLOCK_LENGTH, v1Header.blockLength());

        final NewOrderDecoder decoder = new NewOrderDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(1_001L, decoder.clientOrderId());
        assertEquals(-2_002L, decoder.account());
        assertEquals(3_003, decoder.instrumentId());
        assertEquals(Side.SELL, decoder.side());
        assertEquals(OrdType.LIMIT, decoder.ordType());
        assertEquals(TimeInForce.IOC, decoder.timeInForce());
        assertEquals(-4_004L, decoder.price());
        assertEquals(5_005L, decoder.quantity());
        assertEquals(0xFEDC_BA98_7654_3210L, decoder.sendingTime());
        assertEquals(length, decoder.limit(), "the v1 decoder's limit covers the whole v2 block");
    }

    @Test
    void v1DecoderReadsEveryLevelOfAV2BookUpdateSkippingTheLargerRootBlockAndEntries()
    {
        final io.ringwire.codecs.evolution.v2.BookUpdateEncoder encoder =
            new io.ringwire.codecs.evolution.v2.BookUpdateEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.evolution.v2.MessageHeaderEncoder())
            .instrumentId(77)
            .sequenceNumber(88_888L)
            .transactTime(99_999L)
            .channelId(0x7FFF_0001);
        final io.ringwire.codecs.evolution.v2.BookUpdateEncoder.LevelsEncoder levels =
            encoder.levelsCount(LEVEL_COUNT);
        for (int i = 0; i < LEVEL_COUNT; i++)
        {
            levels.next()
                .action(io.ringwire.codecs.evolution.v2.BookAction.get((short)(i % 3)))
                .side(i % 2 == 0 ? io.ringwire.codecs.evolution.v2.Side.BUY : io.ringwire.codecs.evolution.v2.Side.SELL)
                .price(levelPrice(i))
                .quantity(levelQuantity(i))
                .orderCount(i + 1)
                .impliedQuantity(-1L - i);
        }
        final int length = HEADER_LENGTH + encoder.encodedLength();
        final DirectBuffer received = validatedV1Receive(length);
        assertEquals(2, v1Header.version());
        assertEquals(io.ringwire.codecs.evolution.v2.BookUpdateEncoder.BLOCK_LENGTH, v1Header.blockLength());

        final BookUpdateDecoder decoder = new BookUpdateDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(77, decoder.instrumentId());
        assertEquals(88_888L, decoder.sequenceNumber());
        assertEquals(99_999L, decoder.transactTime());
        final BookUpdateDecoder.LevelsDecoder decodedLevels = decoder.levels();
        assertEquals(LEVEL_COUNT, decodedLevels.count());
        assertEquals(io.ringwire.codecs.evolution.v2.BookUpdateDecoder.LevelsDecoder.sbeBlockLength(),
            decodedLevels.actingBlockLength(), "entries are stepped over with the sender's entry length");
        int i = 0;
        for (final BookUpdateDecoder.LevelsDecoder level : decodedLevels)
        {
            assertEquals(BookAction.get((short)(i % 3)), level.action(), "action of level " + i);
            assertEquals(i % 2 == 0 ? Side.BUY : Side.SELL, level.side(), "side of level " + i);
            assertEquals(levelPrice(i), level.price(), "price of level " + i);
            assertEquals(levelQuantity(i), level.quantity(), "quantity of level " + i);
            assertEquals(i + 1, level.orderCount(), "order count of level " + i);
            i++;
        }
        assertEquals(LEVEL_COUNT, i);
        assertEquals(length, decoder.limit(), "the v1 decoder ends exactly at the end of the v2 message");
    }

    @Test
    void v1DecoderFindsTheV2LatencyProbesPaddingAfterTheNewField()
    {
        final byte[] padding = SampleMessages.randomBytes(new Random(2), 123);
        final io.ringwire.codecs.evolution.v2.LatencyProbeEncoder encoder =
            new io.ringwire.codecs.evolution.v2.LatencyProbeEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.evolution.v2.MessageHeaderEncoder())
            .sequence(42L)
            .sendTimestampNs(1_000_000_007L)
            .echoTimestampNs(2_000_000_011L)
            .hopCount(0x0A0B_0C0D)
            .putPadding(padding, 0, padding.length);
        final int length = HEADER_LENGTH + encoder.encodedLength();
        final DirectBuffer received = validatedV1Receive(length);
        assertEquals(2, v1Header.version());

        final LatencyProbeDecoder decoder = new LatencyProbeDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(42L, decoder.sequence());
        assertEquals(1_000_000_007L, decoder.sendTimestampNs());
        assertEquals(2_000_000_011L, decoder.echoTimestampNs());
        assertEquals(padding.length, decoder.paddingLength(), "the length prefix is read after the v2 block");
        final byte[] decoded = new byte[decoder.paddingLength()];
        decoder.getPadding(decoded, 0, decoded.length);
        assertArrayEquals(padding, decoded);
        assertEquals(length, decoder.limit());
    }

    @Test
    void v1DecoderThatIgnoresTheHeaderBlockLengthMisreadsV2VarData()
    {
        // Why the receiver must use the header's block length: with its own (shorter) one, the v1
        // decoder takes the new hopCount field for the padding's length prefix.
        final io.ringwire.codecs.evolution.v2.LatencyProbeEncoder encoder =
            new io.ringwire.codecs.evolution.v2.LatencyProbeEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.evolution.v2.MessageHeaderEncoder())
            .sequence(1L)
            .sendTimestampNs(2L)
            .echoTimestampNs(3L)
            .hopCount(7)
            .putPadding(new byte[16], 0, 16);
        final DirectBuffer received = validatedV1Receive(HEADER_LENGTH + encoder.encodedLength());

        final LatencyProbeDecoder wrong = new LatencyProbeDecoder()
            .wrap(received, HEADER_LENGTH, LatencyProbeDecoder.BLOCK_LENGTH, LatencyProbeDecoder.SCHEMA_VERSION);

        assertEquals(7, wrong.paddingLength());
    }

    @Test
    void v1DecoderSeesAV2OnlyEnumValueAsItsRawValueWhileTheTypedGetterRejectsIt()
    {
        // The validator checks structure, not enum values: a v2 STOP_LIMIT order is accepted, and a
        // v1 receiver must read ordTypeRaw() (or catch) rather than trust ordType().
        final io.ringwire.codecs.evolution.v2.NewOrderEncoder encoder =
            new io.ringwire.codecs.evolution.v2.NewOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.evolution.v2.MessageHeaderEncoder())
            .clientOrderId(1L)
            .account(2L)
            .instrumentId(3)
            .side(io.ringwire.codecs.evolution.v2.Side.BUY)
            .ordType(io.ringwire.codecs.evolution.v2.OrdType.STOP_LIMIT)
            .timeInForce(io.ringwire.codecs.evolution.v2.TimeInForce.DAY)
            .price(4L)
            .quantity(5L)
            .sendingTime(6L)
            .stopPrice(7L);
        final DirectBuffer received = validatedV1Receive(HEADER_LENGTH + encoder.encodedLength());

        final NewOrderDecoder decoder = new NewOrderDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(io.ringwire.codecs.evolution.v2.OrdType.STOP_LIMIT.value(), decoder.ordTypeRaw());
        assertThrows(IllegalArgumentException.class, decoder::ordType);
    }

    // ---------------------------------------------------------------------------------------------- v2 reads v1

    @Test
    void v2DecoderReadsAV1NewOrderWithTheNewFieldAsItsNullValue()
    {
        final NewOrderEncoder encoder = new NewOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .clientOrderId(11L)
            .account(22L)
            .instrumentId(33)
            .side(Side.BUY)
            .ordType(OrdType.MARKET)
            .timeInForce(TimeInForce.FOK)
            .price(44L)
            .quantity(55L)
            .sendingTime(66L);
        final DirectBuffer received = validatedV2Receive(HEADER_LENGTH + encoder.encodedLength());

        final io.ringwire.codecs.evolution.v2.NewOrderDecoder decoder =
            new io.ringwire.codecs.evolution.v2.NewOrderDecoder()
            .wrap(received, HEADER_LENGTH, v2Header.blockLength(), v2Header.version());

        assertEquals(11L, decoder.clientOrderId());
        assertEquals(22L, decoder.account());
        assertEquals(33, decoder.instrumentId());
        assertEquals(io.ringwire.codecs.evolution.v2.Side.BUY, decoder.side());
        assertEquals(io.ringwire.codecs.evolution.v2.OrdType.MARKET, decoder.ordType());
        assertEquals(io.ringwire.codecs.evolution.v2.TimeInForce.FOK, decoder.timeInForce());
        assertEquals(44L, decoder.price());
        assertEquals(55L, decoder.quantity());
        assertEquals(66L, decoder.sendingTime());
        assertEquals(io.ringwire.codecs.evolution.v2.NewOrderDecoder.stopPriceNullValue(), decoder.stopPrice());
        assertEquals(received.capacity(), decoder.limit());
    }

    @Test
    void v2DecoderReadsAV1BookUpdateWithNullChannelAndImpliedQuantityAndEveryLevelIntact()
    {
        final BookUpdateEncoder encoder = new BookUpdateEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .instrumentId(-5)
            .sequenceNumber(6L)
            .transactTime(7L);
        final BookUpdateEncoder.LevelsEncoder levels = encoder.levelsCount(LEVEL_COUNT);
        for (int i = 0; i < LEVEL_COUNT; i++)
        {
            levels.next()
                .action(BookAction.get((short)((i + 1) % 3)))
                .side(i % 2 == 0 ? Side.SELL : Side.BUY)
                .price(levelPrice(i))
                .quantity(levelQuantity(i))
                .orderCount(100 + i);
        }
        final DirectBuffer received = validatedV2Receive(HEADER_LENGTH + encoder.encodedLength());

        final io.ringwire.codecs.evolution.v2.BookUpdateDecoder decoder =
            new io.ringwire.codecs.evolution.v2.BookUpdateDecoder()
            .wrap(received, HEADER_LENGTH, v2Header.blockLength(), v2Header.version());

        assertEquals(-5, decoder.instrumentId());
        assertEquals(6L, decoder.sequenceNumber());
        assertEquals(7L, decoder.transactTime());
        assertEquals(io.ringwire.codecs.evolution.v2.BookUpdateDecoder.channelIdNullValue(), decoder.channelId());
        final io.ringwire.codecs.evolution.v2.BookUpdateDecoder.LevelsDecoder decodedLevels = decoder.levels();
        assertEquals(LEVEL_COUNT, decodedLevels.count());
        assertEquals(BookUpdateDecoder.LevelsDecoder.sbeBlockLength(), decodedLevels.actingBlockLength());
        int i = 0;
        for (final io.ringwire.codecs.evolution.v2.BookUpdateDecoder.LevelsDecoder level : decodedLevels)
        {
            assertEquals(io.ringwire.codecs.evolution.v2.BookAction.get((short)((i + 1) % 3)), level.action());
            assertEquals(i % 2 == 0 ? io.ringwire.codecs.evolution.v2.Side.SELL :
                io.ringwire.codecs.evolution.v2.Side.BUY, level.side(), "side of level " + i);
            assertEquals(levelPrice(i), level.price(), "price of level " + i);
            assertEquals(levelQuantity(i), level.quantity(), "quantity of level " + i);
            assertEquals(100 + i, level.orderCount(), "order count of level " + i);
            assertEquals(io.ringwire.codecs.evolution.v2.BookUpdateDecoder.LevelsDecoder.impliedQuantityNullValue(),
                level.impliedQuantity(), "implied quantity of level " + i);
            i++;
        }
        assertEquals(LEVEL_COUNT, i);
        assertEquals(received.capacity(), decoder.limit());
    }

    @Test
    void v2DecoderReadsAV1LatencyProbeWithNullHopCountAndThePaddingIntact()
    {
        final byte[] padding = SampleMessages.randomBytes(new Random(1), 57);
        final LatencyProbeEncoder encoder = new LatencyProbeEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sequence(9L)
            .sendTimestampNs(10L)
            .echoTimestampNs(11L)
            .putPadding(padding, 0, padding.length);
        final DirectBuffer received = validatedV2Receive(HEADER_LENGTH + encoder.encodedLength());

        final io.ringwire.codecs.evolution.v2.LatencyProbeDecoder decoder =
            new io.ringwire.codecs.evolution.v2.LatencyProbeDecoder()
            .wrap(received, HEADER_LENGTH, v2Header.blockLength(), v2Header.version());

        assertEquals(9L, decoder.sequence());
        assertEquals(10L, decoder.sendTimestampNs());
        assertEquals(11L, decoder.echoTimestampNs());
        assertEquals(io.ringwire.codecs.evolution.v2.LatencyProbeDecoder.hopCountNullValue(), decoder.hopCount());
        assertEquals(padding.length, decoder.paddingLength());
        final byte[] decoded = new byte[decoder.paddingLength()];
        decoder.getPadding(decoded, 0, decoded.length);
        assertArrayEquals(padding, decoded);
        assertEquals(received.capacity(), decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- support

    private static long levelPrice(final int i)
    {
        return 50_000L - 25L * i;
    }

    private static long levelQuantity(final int i)
    {
        return 1L << (10 + i);
    }

    /** Copies the message at 0 of {@link #buffer}, validates it, wraps {@link #v1Header} on it. */
    private DirectBuffer validatedV1Receive(final int length)
    {
        final DirectBuffer received = validatedCopy(length);
        v1Header.wrap(received, 0);
        assertEquals(MessageHeaderDecoder.SCHEMA_ID, v1Header.schemaId());
        assertTrue(v1Header.blockLength() > 0);
        return received;
    }

    /** Copies the message at 0 of {@link #buffer}, validates it, wraps {@link #v2Header} on it. */
    private DirectBuffer validatedV2Receive(final int length)
    {
        final DirectBuffer received = validatedCopy(length);
        v2Header.wrap(received, 0);
        assertEquals(1, v2Header.version(), "a version-1 sender's header");
        return received;
    }

    private DirectBuffer validatedCopy(final int length)
    {
        final DirectBuffer received = SampleMessages.exactCopy(buffer, 0, length);
        final int result = MessageValidator.validate(received, 0, length);
        assertEquals(length, result, () -> "validate: " + MessageValidator.describe(result));
        return received;
    }
}
