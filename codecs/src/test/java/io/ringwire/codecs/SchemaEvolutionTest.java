package io.ringwire.codecs;

import io.ringwire.codecs.trading.BookAction;
import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.BookSnapshotEncoder;
import io.ringwire.codecs.trading.BookUpdateDecoder;
import io.ringwire.codecs.trading.BookUpdateEncoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.GroupSizeEncodingDecoder;
import io.ringwire.codecs.trading.GroupSizeEncodingEncoder;
import io.ringwire.codecs.trading.LatencyProbeDecoder;
import io.ringwire.codecs.trading.LatencyProbeEncoder;
import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonResponseEncoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.codecs.trading.TradeDecoder;
import io.ringwire.codecs.trading.TradeEncoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Version 1 of the schema as released (frozen codecs in {@code io.ringwire.codecs.trading.v1},
 * generated for tests from {@code src/test/resources/sbe/ringwire-trading-v1.xml}) and the current
 * version 2 read each other's messages when the receiver decodes with the header's block length and
 * version, and the validator accepts both; the frozen version 1 is the current schema less exactly
 * what version 2 added. Groups and var data, which version 2 left alone, are shown to follow the same
 * rules with messages crafted as a later version would send them.
 *
 * <p>Every message is copied into a buffer of exactly its length before it is validated or decoded,
 * so a decoder that looks for a field or var data in the wrong place reads out of bounds and throws.
 */
class SchemaEvolutionTest
{
    private static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    private static final int LEVEL_COUNT = 5;
    private static final int LATER_VERSION = MessageHeaderDecoder.SCHEMA_VERSION + 1;

    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(512);
    private final io.ringwire.codecs.trading.v1.MessageHeaderDecoder v1Header =
        new io.ringwire.codecs.trading.v1.MessageHeaderDecoder();
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();

    // ---------------------------------------------------------------------------------------------- the two schemas

    @Test
    void version1CodecsAreTheSameSchemaOneVersionEarlierWithTheBlocksVersion2GrewEndingAtItsFirstNewField()
    {
        assertEquals(MessageHeaderDecoder.SCHEMA_ID, io.ringwire.codecs.trading.v1.MessageHeaderDecoder.SCHEMA_ID);
        assertEquals(1, io.ringwire.codecs.trading.v1.MessageHeaderDecoder.SCHEMA_VERSION);
        assertEquals(5, MessageHeaderDecoder.SCHEMA_VERSION);
        assertEquals(NewOrderDecoder.postOnlyEncodingOffset(), io.ringwire.codecs.trading.v1.NewOrderDecoder.BLOCK_LENGTH);
        assertEquals(CancelOrderDecoder.receiveTimeEncodingOffset(),
            io.ringwire.codecs.trading.v1.CancelOrderDecoder.BLOCK_LENGTH);
        assertEquals(ReplaceOrderDecoder.receiveTimeEncodingOffset(),
            io.ringwire.codecs.trading.v1.ReplaceOrderDecoder.BLOCK_LENGTH);
        assertEquals(ExecutionReportDecoder.priceEncodingOffset(),
            io.ringwire.codecs.trading.v1.ExecutionReportDecoder.BLOCK_LENGTH);
        assertEquals(TradeDecoder.streamSequenceEncodingOffset(), io.ringwire.codecs.trading.v1.TradeDecoder.BLOCK_LENGTH);
        assertEquals(BookUpdateDecoder.BLOCK_LENGTH, io.ringwire.codecs.trading.v1.BookUpdateDecoder.BLOCK_LENGTH);
        assertEquals(BookUpdateDecoder.LevelsDecoder.sbeBlockLength(),
            io.ringwire.codecs.trading.v1.BookUpdateDecoder.LevelsDecoder.sbeBlockLength());
        assertEquals(LatencyProbeDecoder.BLOCK_LENGTH, io.ringwire.codecs.trading.v1.LatencyProbeDecoder.BLOCK_LENGTH);
    }

    @Test
    void version1SchemaIsTheCurrentSchemaLessExactlyWhatLaterVersionsAdded() throws Exception
    {
        final Document current = SchemaXml.parse(SchemaXml.TRADING);
        final Document version1 = SchemaXml.parse(SchemaXml.RELEASED_VERSION_1);
        final Element currentRoot = current.getDocumentElement();
        final Element version1Root = version1.getDocumentElement();
        assertEquals("5", currentRoot.getAttribute("version"));
        assertEquals("5.0", currentRoot.getAttribute("semanticVersion"));
        assertEquals("1", version1Root.getAttribute("version"));
        assertEquals("1.0", version1Root.getAttribute("semanticVersion"));
        assertEquals(currentRoot.getAttribute("package") + ".v1", version1Root.getAttribute("package"));
        assertEquals(Set.of(), sinceVersions(version1Root), "version 1 is the first version");
        assertEquals(Set.of("2", "3", "4", "5"), sinceVersions(currentRoot), "what versions 2 to 5 appended says so");

        final Set<String> addedMessages = new TreeSet<>(SchemaXml.messages(current).keySet());
        addedMessages.removeAll(SchemaXml.messages(version1).keySet());
        final Set<String> addedTypes = typeNames(currentRoot);
        addedTypes.removeAll(typeNames(version1Root));
        assertEquals(new TreeSet<>(List.of(
            "BookSnapshot", "EngineCommand", "MassCancel", "OrderAdded", "OrderCanceled", "OrderExecuted",
            "OrderReplaced", "SnapshotRequest")), addedMessages);
        assertEquals(new TreeSet<>(List.of("BooleanType", "EngineCommandType", "EngineLife", "ReplyLife", "SelfTradePrevention")),
            addedTypes);

        // Wire structure only: descriptions may be reworded, and the root's identity was compared above.
        final List<String> version1Structure = new ArrayList<>();
        structure(version1Root, "", Set.of(), Set.of(), version1Structure);
        final List<String> currentLessVersion2 = new ArrayList<>();
        structure(currentRoot, "", addedMessages, addedTypes, currentLessVersion2);
        assertEquals(String.join("\n", version1Structure), String.join("\n", currentLessVersion2));
    }

    // ---------------------------------------------------------------------------------------------- v1 reads v2

    @Test
    void version1DecoderReadsEveryVersion1FieldOfAVersion2NewOrderAndStepsOverTheLargerBlock()
    {
        final int length = encodeNewOrder(TimeInForce.IOC);
        final DirectBuffer received = validatedVersion1Receive(length, NewOrderEncoder.BLOCK_LENGTH);

        final io.ringwire.codecs.trading.v1.NewOrderDecoder decoder = new io.ringwire.codecs.trading.v1.NewOrderDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(1_001L, decoder.clientOrderId());
        assertEquals(-2_002L, decoder.account());
        assertEquals(3_003, decoder.instrumentId());
        assertEquals(io.ringwire.codecs.trading.v1.Side.SELL, decoder.side());
        assertEquals(io.ringwire.codecs.trading.v1.OrdType.LIMIT, decoder.ordType());
        assertEquals(io.ringwire.codecs.trading.v1.TimeInForce.IOC, decoder.timeInForce());
        assertEquals(-4_004L, decoder.price());
        assertEquals(5_005L, decoder.quantity());
        assertEquals(0xFEDC_BA98_7654_3210L, decoder.sendingTime());
        assertEquals(length, decoder.limit(), "the version-1 decoder's limit covers the whole version-2 block");
    }

    @Test
    void version1DecoderReadsEveryVersion1FieldOfAVersion2CancelOrderAndStepsOverTheLargerBlock()
    {
        final CancelOrderEncoder encoder = new CancelOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .clientOrderId(71L)
            .origClientOrderId(70L)
            .account(-72L)
            .instrumentId(73)
            .side(Side.BUY)
            .sendingTime(74L)
            .receiveTime(75L)
            .gatewaySendTime(76L);
        final int length = HEADER_LENGTH + encoder.encodedLength();
        final DirectBuffer received = validatedVersion1Receive(length, CancelOrderEncoder.BLOCK_LENGTH);

        final io.ringwire.codecs.trading.v1.CancelOrderDecoder decoder =
            new io.ringwire.codecs.trading.v1.CancelOrderDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(71L, decoder.clientOrderId());
        assertEquals(70L, decoder.origClientOrderId());
        assertEquals(-72L, decoder.account());
        assertEquals(73, decoder.instrumentId());
        assertEquals(io.ringwire.codecs.trading.v1.Side.BUY, decoder.side());
        assertEquals(74L, decoder.sendingTime());
        assertEquals(length, decoder.limit());
    }

    @Test
    void version1DecoderReadsEveryVersion1FieldOfAVersion2ReplaceOrderAndStepsOverTheLargerBlock()
    {
        final ReplaceOrderEncoder encoder = new ReplaceOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .clientOrderId(81L)
            .origClientOrderId(80L)
            .account(82L)
            .instrumentId(-83)
            .side(Side.SELL)
            .price(Long.MIN_VALUE + 84)
            .quantity(85L)
            .sendingTime(86L)
            .receiveTime(87L)
            .gatewaySendTime(88L);
        final int length = HEADER_LENGTH + encoder.encodedLength();
        final DirectBuffer received = validatedVersion1Receive(length, ReplaceOrderEncoder.BLOCK_LENGTH);

        final io.ringwire.codecs.trading.v1.ReplaceOrderDecoder decoder =
            new io.ringwire.codecs.trading.v1.ReplaceOrderDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(81L, decoder.clientOrderId());
        assertEquals(80L, decoder.origClientOrderId());
        assertEquals(82L, decoder.account());
        assertEquals(-83, decoder.instrumentId());
        assertEquals(io.ringwire.codecs.trading.v1.Side.SELL, decoder.side());
        assertEquals(Long.MIN_VALUE + 84, decoder.price());
        assertEquals(85L, decoder.quantity());
        assertEquals(86L, decoder.sendingTime());
        assertEquals(length, decoder.limit());
    }

    @Test
    void version1DecoderReadsEveryVersion1FieldOfAVersion2ExecutionReportAndStepsOverTheLargerBlock()
    {
        final int length = encodeExecutionReport(ExecType.PARTIAL_FILL, RejectReason.NONE);
        final DirectBuffer received = validatedVersion1Receive(length, ExecutionReportEncoder.BLOCK_LENGTH);

        final io.ringwire.codecs.trading.v1.ExecutionReportDecoder decoder =
            new io.ringwire.codecs.trading.v1.ExecutionReportDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertEquals(0x0E0E_0000_0000_0001L, decoder.exchangeOrderId());
        assertEquals(91L, decoder.clientOrderId());
        assertEquals(92L, decoder.execId());
        assertEquals(93L, decoder.account());
        assertEquals(94, decoder.instrumentId());
        assertEquals(io.ringwire.codecs.trading.v1.ExecType.PARTIAL_FILL, decoder.execType());
        assertEquals(io.ringwire.codecs.trading.v1.OrdStatus.PARTIALLY_FILLED, decoder.ordStatus());
        assertEquals(io.ringwire.codecs.trading.v1.Side.BUY, decoder.side());
        assertEquals(io.ringwire.codecs.trading.v1.RejectReason.NONE, decoder.rejectReason());
        assertEquals(-95L, decoder.lastPrice());
        assertEquals(96L, decoder.lastQuantity());
        assertEquals(97L, decoder.leavesQuantity());
        assertEquals(98L, decoder.cumulativeQuantity());
        assertEquals(0xF000_0000_0000_0099L, decoder.transactTime());
        assertEquals(length, decoder.limit());
    }

    @Test
    void version1DecoderReadsEveryVersion1FieldOfAVersion2TradeAndStepsOverTheLargerBlock()
    {
        final int length = encodeTrade(101L);
        final DirectBuffer received = validatedVersion1Receive(length, TradeEncoder.BLOCK_LENGTH);

        final io.ringwire.codecs.trading.v1.TradeDecoder decoder = new io.ringwire.codecs.trading.v1.TradeDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());

        assertTradeVersion1Fields(decoder, 101L);
        assertEquals(length, decoder.limit());
    }

    /** The values version 2 added to enums version 1 already had, as the current codecs name them. */
    static Stream<Enum<?>> enumValuesAfterVersion1()
    {
        final List<Enum<?>> values = new ArrayList<>();
        values.addAll(notIn(TimeInForce.values(), io.ringwire.codecs.trading.v1.TimeInForce.values()));
        values.addAll(notIn(ExecType.values(), io.ringwire.codecs.trading.v1.ExecType.values()));
        values.addAll(notIn(RejectReason.values(), io.ringwire.codecs.trading.v1.RejectReason.values()));
        return values.stream();
    }

    @Test
    void enumValuesAfterVersion1AreEveryValidValueTheSchemaMarksSinceALaterVersion() throws Exception
    {
        final Set<String> inSchema = new TreeSet<>();
        final Element root = SchemaXml.parse(SchemaXml.TRADING).getDocumentElement();
        final List<Element> enums = children(children(root, "types").getFirst(), "enum");
        for (final Element enumElement : enums)
        {
            for (final Element validValue : children(enumElement, "validValue"))
            {
                if (!validValue.getAttribute("sinceVersion").isEmpty())
                {
                    inSchema.add(enumElement.getAttribute("name") + "." + validValue.getAttribute("name"));
                }
            }
        }

        final Set<String> tested = enumValuesAfterVersion1()
            .map(value -> value.getDeclaringClass().getSimpleName() + "." + value.name())
            .collect(Collectors.toCollection(TreeSet::new));

        assertEquals(inSchema, tested);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("enumValuesAfterVersion1")
    void version1DecoderSeesALaterEnumValueAsItsRawValueWhileItsTypedGetterRejectsIt(final Enum<?> value)
    {
        // The validator checks structure, not enum values: a version-1 receiver reads *Raw() (or
        // catches) for an enum a newer sender may have extended.
        switch (value)
        {
            case TimeInForce timeInForce ->
            {
                final DirectBuffer received = validatedVersion1Receive(encodeNewOrder(timeInForce),
                    NewOrderEncoder.BLOCK_LENGTH);
                final io.ringwire.codecs.trading.v1.NewOrderDecoder decoder =
                    new io.ringwire.codecs.trading.v1.NewOrderDecoder()
                    .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());
                assertEquals(timeInForce.value(), decoder.timeInForceRaw());
                assertThrows(IllegalArgumentException.class, decoder::timeInForce);
            }
            case ExecType execType ->
            {
                final io.ringwire.codecs.trading.v1.ExecutionReportDecoder decoder =
                    version1ExecutionReport(encodeExecutionReport(execType, RejectReason.NONE));
                assertEquals(execType.value(), decoder.execTypeRaw());
                assertThrows(IllegalArgumentException.class, decoder::execType);
            }
            case RejectReason rejectReason ->
            {
                final io.ringwire.codecs.trading.v1.ExecutionReportDecoder decoder =
                    version1ExecutionReport(encodeExecutionReport(ExecType.CANCELED, rejectReason));
                assertEquals(rejectReason.value(), decoder.rejectReasonRaw());
                assertThrows(IllegalArgumentException.class, decoder::rejectReason);
            }
            default -> fail("no message carries " + value.getDeclaringClass().getSimpleName() + " in version 1");
        }
    }

    @Test
    void version1ReceiverIgnoresEveryVersion2OnlyMessageByItsTemplateIdAndReadsTheMessagesAroundIt() throws Exception
    {
        final Map<String, Integer> version1Messages = SchemaXml.messages(SchemaXml.parse(SchemaXml.RELEASED_VERSION_1));
        final Random random = new Random(13);
        final List<Integer> version2Only = new ArrayList<>();
        final List<DirectBuffer> frames = new ArrayList<>();
        long tradeSequence = 0;
        for (final int templateId : SampleMessages.TEMPLATE_IDS)
        {
            if (!version1Messages.containsValue(templateId))
            {
                version2Only.add(templateId);
                final SampleMessages.Encoded message = SampleMessages.randomValid(templateId, random);
                assertEquals(message.length(), MessageValidator.validate(message.exactBuffer(), 0, message.length()));
                frames.add(message.exactBuffer());
                frames.add(SampleMessages.exactCopy(buffer, 0, encodeTrade(++tradeSequence)));
            }
        }
        assertEquals(List.of(13, 14, 32, 33, 34, 35, 36, 37), version2Only);

        // A version-1 receiver dispatches on the template id and drops what it has no decoder for.
        final List<Integer> ignored = new ArrayList<>();
        final io.ringwire.codecs.trading.v1.TradeDecoder trade = new io.ringwire.codecs.trading.v1.TradeDecoder();
        long tradesRead = 0;
        for (final DirectBuffer frame : frames)
        {
            v1Header.wrap(frame, 0);
            assertEquals(io.ringwire.codecs.trading.v1.MessageHeaderDecoder.SCHEMA_ID, v1Header.schemaId());
            assertEquals(MessageHeaderDecoder.SCHEMA_VERSION, v1Header.version());
            switch (v1Header.templateId())
            {
                case io.ringwire.codecs.trading.v1.TradeDecoder.TEMPLATE_ID ->
                {
                    trade.wrap(frame, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());
                    assertTradeVersion1Fields(trade, ++tradesRead);
                    assertEquals(frame.capacity(), trade.limit());
                }
                default -> ignored.add(v1Header.templateId());
            }
        }
        assertEquals(version2Only, ignored);
        assertEquals(version2Only.size(), tradesRead);
    }

    // ---------------------------------------------------------------------------------------------- v2 reads v1

    @Test
    void version2DecoderReadsAVersion1NewOrderWithVersion2FieldsAtTheirNullValues()
    {
        final io.ringwire.codecs.trading.v1.NewOrderEncoder encoder =
            new io.ringwire.codecs.trading.v1.NewOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.trading.v1.MessageHeaderEncoder())
            .clientOrderId(11L)
            .account(22L)
            .instrumentId(33)
            .side(io.ringwire.codecs.trading.v1.Side.BUY)
            .ordType(io.ringwire.codecs.trading.v1.OrdType.MARKET)
            .timeInForce(io.ringwire.codecs.trading.v1.TimeInForce.FOK)
            .price(44L)
            .quantity(55L)
            .sendingTime(66L);
        final DirectBuffer received = validatedVersion2Receive(HEADER_LENGTH + encoder.encodedLength());

        final NewOrderDecoder decoder = new NewOrderDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(11L, decoder.clientOrderId());
        assertEquals(22L, decoder.account());
        assertEquals(33, decoder.instrumentId());
        assertEquals(Side.BUY, decoder.side());
        assertEquals(OrdType.MARKET, decoder.ordType());
        assertEquals(TimeInForce.FOK, decoder.timeInForce());
        assertEquals(44L, decoder.price());
        assertEquals(55L, decoder.quantity());
        assertEquals(66L, decoder.sendingTime());
        assertEquals(BooleanType.NULL_VAL, decoder.postOnly());
        assertEquals(NewOrderDecoder.displayQuantityNullValue(), decoder.displayQuantity());
        assertEquals(SelfTradePrevention.NULL_VAL, decoder.selfTradePrevention());
        assertEquals(NewOrderDecoder.receiveTimeNullValue(), decoder.receiveTime());
        assertEquals(NewOrderDecoder.gatewaySendTimeNullValue(), decoder.gatewaySendTime());
        assertEquals(received.capacity(), decoder.limit());
    }

    @Test
    void version2DecoderReadsAVersion1CancelOrderWithVersion2FieldsAtTheirNullValues()
    {
        final io.ringwire.codecs.trading.v1.CancelOrderEncoder encoder =
            new io.ringwire.codecs.trading.v1.CancelOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.trading.v1.MessageHeaderEncoder())
            .clientOrderId(12L)
            .origClientOrderId(11L)
            .account(-13L)
            .instrumentId(14)
            .side(io.ringwire.codecs.trading.v1.Side.SELL)
            .sendingTime(15L);
        final DirectBuffer received = validatedVersion2Receive(HEADER_LENGTH + encoder.encodedLength());

        final CancelOrderDecoder decoder = new CancelOrderDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(12L, decoder.clientOrderId());
        assertEquals(11L, decoder.origClientOrderId());
        assertEquals(-13L, decoder.account());
        assertEquals(14, decoder.instrumentId());
        assertEquals(Side.SELL, decoder.side());
        assertEquals(15L, decoder.sendingTime());
        assertEquals(CancelOrderDecoder.receiveTimeNullValue(), decoder.receiveTime());
        assertEquals(CancelOrderDecoder.gatewaySendTimeNullValue(), decoder.gatewaySendTime());
        assertEquals(received.capacity(), decoder.limit());
    }

    @Test
    void version2DecoderReadsAVersion1ReplaceOrderWithVersion2FieldsAtTheirNullValues()
    {
        final io.ringwire.codecs.trading.v1.ReplaceOrderEncoder encoder =
            new io.ringwire.codecs.trading.v1.ReplaceOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.trading.v1.MessageHeaderEncoder())
            .clientOrderId(21L)
            .origClientOrderId(20L)
            .account(22L)
            .instrumentId(-23)
            .side(io.ringwire.codecs.trading.v1.Side.BUY)
            .price(24L)
            .quantity(25L)
            .sendingTime(26L);
        final DirectBuffer received = validatedVersion2Receive(HEADER_LENGTH + encoder.encodedLength());

        final ReplaceOrderDecoder decoder = new ReplaceOrderDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(21L, decoder.clientOrderId());
        assertEquals(20L, decoder.origClientOrderId());
        assertEquals(22L, decoder.account());
        assertEquals(-23, decoder.instrumentId());
        assertEquals(Side.BUY, decoder.side());
        assertEquals(24L, decoder.price());
        assertEquals(25L, decoder.quantity());
        assertEquals(26L, decoder.sendingTime());
        assertEquals(ReplaceOrderDecoder.receiveTimeNullValue(), decoder.receiveTime());
        assertEquals(ReplaceOrderDecoder.gatewaySendTimeNullValue(), decoder.gatewaySendTime());
        assertEquals(received.capacity(), decoder.limit());
    }

    @Test
    void version2DecoderReadsAVersion1ExecutionReportWithVersion2FieldsAtTheirNullValues()
    {
        final io.ringwire.codecs.trading.v1.ExecutionReportEncoder encoder =
            new io.ringwire.codecs.trading.v1.ExecutionReportEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.trading.v1.MessageHeaderEncoder())
            .exchangeOrderId(31L)
            .clientOrderId(32L)
            .execId(33L)
            .account(34L)
            .instrumentId(35)
            .execType(io.ringwire.codecs.trading.v1.ExecType.REJECTED)
            .ordStatus(io.ringwire.codecs.trading.v1.OrdStatus.REJECTED)
            .side(io.ringwire.codecs.trading.v1.Side.SELL)
            .rejectReason(io.ringwire.codecs.trading.v1.RejectReason.EXCHANGE_CLOSED)
            .lastPrice(0L)
            .lastQuantity(0L)
            .leavesQuantity(0L)
            .cumulativeQuantity(36L)
            .transactTime(37L);
        final DirectBuffer received = validatedVersion2Receive(HEADER_LENGTH + encoder.encodedLength());

        final ExecutionReportDecoder decoder = new ExecutionReportDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(31L, decoder.exchangeOrderId());
        assertEquals(32L, decoder.clientOrderId());
        assertEquals(33L, decoder.execId());
        assertEquals(34L, decoder.account());
        assertEquals(35, decoder.instrumentId());
        assertEquals(ExecType.REJECTED, decoder.execType());
        assertEquals(OrdStatus.REJECTED, decoder.ordStatus());
        assertEquals(Side.SELL, decoder.side());
        assertEquals(RejectReason.EXCHANGE_CLOSED, decoder.rejectReason());
        assertEquals(0L, decoder.lastPrice());
        assertEquals(0L, decoder.lastQuantity());
        assertEquals(0L, decoder.leavesQuantity());
        assertEquals(36L, decoder.cumulativeQuantity());
        assertEquals(37L, decoder.transactTime());
        assertEquals(ExecutionReportDecoder.priceNullValue(), decoder.price());
        assertEquals(ExecutionReportDecoder.orderQuantityNullValue(), decoder.orderQuantity());
        assertEquals(OrdType.NULL_VAL, decoder.ordType());
        assertEquals(TimeInForce.NULL_VAL, decoder.timeInForce());
        assertEquals(ExecutionReportDecoder.engineSequenceNullValue(), decoder.engineSequence());
        assertEquals(ExecutionReportDecoder.clientSendTimeNullValue(), decoder.clientSendTime());
        assertEquals(ExecutionReportDecoder.gatewayInTimeNullValue(), decoder.gatewayInTime());
        assertEquals(ExecutionReportDecoder.gatewayOutTimeNullValue(), decoder.gatewayOutTime());
        assertEquals(ExecutionReportDecoder.engineInTimeNullValue(), decoder.engineInTime());
        assertEquals(ExecutionReportDecoder.engineOutTimeNullValue(), decoder.engineOutTime());
        assertEquals(ExecutionReportDecoder.gatewayReplyTimeNullValue(), decoder.gatewayReplyTime());
        assertEquals(received.capacity(), decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- v3 reads v2

    /**
     * The message at 0 of {@link #buffer}, encoded with the current codecs, as a sender of an
     * earlier version writes it: the header says that version and a block that ends where the next
     * version's first field starts; whatever followed the current block (var data) follows the
     * shorter one. Validated, with {@link #header} wrapped on it.
     */
    private DirectBuffer validatedEarlierVersionOf(final int length, final int version, final int blockLength)
    {
        header.wrap(buffer, 0);
        final int currentBlockEnd = HEADER_LENGTH + header.blockLength();
        final int after = length - currentBlockEnd;
        final ExpandableArrayBuffer earlier = new ExpandableArrayBuffer(length);
        earlier.putBytes(0, buffer, 0, HEADER_LENGTH + blockLength);
        earlier.putBytes(HEADER_LENGTH + blockLength, buffer, currentBlockEnd, after);
        new MessageHeaderEncoder().wrap(earlier, 0).blockLength(blockLength).version(version);
        final DirectBuffer received = validatedCopy(earlier, HEADER_LENGTH + blockLength + after);
        header.wrap(received, 0);
        return received;
    }

    /** @return the length of a BookSnapshot part of this version, one order, at 0 of {@link #buffer}. */
    private int encodeBookSnapshot()
    {
        final BookSnapshotEncoder encoder = new BookSnapshotEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .instrumentId(70).sequenceNumber(71L).streamSequence(72L).part(0).lastPart(BooleanType.TRUE).engineLife(73L);
        encoder.ordersCount(1).next().orderId(74L).side(Side.SELL).price(75L).quantity(76L);
        return HEADER_LENGTH + encoder.encodedLength();
    }

    /** @return the length of a Logon of this version at 0 of {@link #buffer}, every field set. */
    private int encodeLogon()
    {
        return HEADER_LENGTH + new LogonEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sessionId(41L).heartbeatIntervalMs(1_000).sendingTime(42L).nextReplySequence(43L).replyLife(44L)
            .credentials("token").encodedLength();
    }

    /** @return the length of a LogonResponse of this version at 0 of {@link #buffer}, every field set. */
    private int encodeLogonResponse()
    {
        return HEADER_LENGTH + new LogonResponseEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sessionId(51L).status(LogonStatus.ACCEPTED).rejectReason(LogonRejectReason.NONE).heartbeatIntervalMs(1_000)
            .sendingTime(52L).nextReplySequence(53L).replyLife(54L).reasonText("why").encodedLength();
    }

    @Test
    void currentDecodersReadVersion2SessionMessagesAndReportsWithTheReplySequencesAtTheirNullValues()
    {
        final DirectBuffer logonV2 = validatedEarlierVersionOf(encodeLogon(), 2,
            LogonDecoder.nextReplySequenceEncodingOffset());
        final LogonDecoder logonDecoder = new LogonDecoder()
            .wrap(logonV2, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(41L, logonDecoder.sessionId());
        assertEquals(42L, logonDecoder.sendingTime());
        assertEquals(LogonDecoder.nextReplySequenceNullValue(), logonDecoder.nextReplySequence(),
            "a version-2 client asks for no resend");
        assertEquals("token", logonDecoder.credentials());
        assertEquals(logonV2.capacity(), logonDecoder.limit());

        final DirectBuffer responseV2 = validatedEarlierVersionOf(encodeLogonResponse(), 2,
            LogonResponseDecoder.nextReplySequenceEncodingOffset());
        final LogonResponseDecoder responseDecoder = new LogonResponseDecoder()
            .wrap(responseV2, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(52L, responseDecoder.sendingTime());
        assertEquals(LogonResponseDecoder.nextReplySequenceNullValue(), responseDecoder.nextReplySequence());
        assertEquals("why", responseDecoder.reasonText());

        final int reportLength = encodeExecutionReport(ExecType.NEW, RejectReason.NONE);
        final DirectBuffer reportV2 = validatedEarlierVersionOf(reportLength, 2,
            ExecutionReportDecoder.replySequenceEncodingOffset());
        final ExecutionReportDecoder reportDecoder = new ExecutionReportDecoder()
            .wrap(reportV2, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(ExecType.NEW, reportDecoder.execType());
        assertEquals(ExecutionReportDecoder.replySequenceNullValue(), reportDecoder.replySequence());
        assertEquals(reportV2.capacity(), reportDecoder.limit());
    }

    @Test
    void currentDecodersReadVersion3SessionMessagesWithTheReplyLifeAtItsNullValue()
    {
        final DirectBuffer logonV3 = validatedEarlierVersionOf(encodeLogon(), 3,
            LogonDecoder.replyLifeEncodingOffset());
        final LogonDecoder logonDecoder = new LogonDecoder()
            .wrap(logonV3, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(43L, logonDecoder.nextReplySequence());
        assertEquals(LogonDecoder.replyLifeNullValue(), logonDecoder.replyLife(),
            "a version-3 client names no reply life");
        assertEquals("token", logonDecoder.credentials());
        assertEquals(logonV3.capacity(), logonDecoder.limit());

        final DirectBuffer responseV3 = validatedEarlierVersionOf(encodeLogonResponse(), 3,
            LogonResponseDecoder.replyLifeEncodingOffset());
        final LogonResponseDecoder responseDecoder = new LogonResponseDecoder()
            .wrap(responseV3, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(53L, responseDecoder.nextReplySequence());
        assertEquals(LogonResponseDecoder.replyLifeNullValue(), responseDecoder.replyLife());
        assertEquals("why", responseDecoder.reasonText());
    }

    @Test
    void currentDecodersReadVersion4ReportsAndSnapshotsWithTheEngineLifeAtItsNullValue()
    {
        final DirectBuffer reportV4 = validatedEarlierVersionOf(encodeExecutionReport(ExecType.NEW, RejectReason.NONE), 4,
            ExecutionReportDecoder.engineLifeEncodingOffset());
        final ExecutionReportDecoder report = new ExecutionReportDecoder()
            .wrap(reportV4, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(Long.MAX_VALUE, report.engineSequence());
        assertEquals(0x0E0E_0000_0000_0106L, report.replySequence());
        assertEquals(ExecutionReportDecoder.engineLifeNullValue(), report.engineLife(),
            "a version-4 engine names no life");
        assertEquals(reportV4.capacity(), report.limit());

        final DirectBuffer snapshotV4 = validatedEarlierVersionOf(encodeBookSnapshot(), 4,
            BookSnapshotDecoder.engineLifeEncodingOffset());
        final BookSnapshotDecoder snapshot = new BookSnapshotDecoder()
            .wrap(snapshotV4, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(71L, snapshot.sequenceNumber());
        assertEquals(BookSnapshotDecoder.engineLifeNullValue(), snapshot.engineLife());
        final BookSnapshotDecoder.OrdersDecoder orders = snapshot.orders();
        assertEquals(1, orders.count());
        assertEquals(74L, orders.next().orderId(), "the group follows the shorter block");
    }

    @Test
    void currentDecodersReadVersion4RequestsWithTheEngineLifeAtItsNullValue()
    {
        final DirectBuffer orderV4 = validatedEarlierVersionOf(encodeNewOrder(TimeInForce.GTC), 4,
            NewOrderDecoder.engineLifeEncodingOffset());
        final NewOrderDecoder order = new NewOrderDecoder()
            .wrap(orderV4, HEADER_LENGTH, header.blockLength(), header.version());
        assertEquals(0x0BAD_CAFE_0BAD_D00DL, order.gatewaySendTime());
        assertEquals(NewOrderDecoder.engineLifeNullValue(), order.engineLife(), "a version-4 gateway names no life");
        assertEquals(orderV4.capacity(), order.limit());
    }

    @Test
    void aVersion5HeaderOverAVersion4BlockIsRefused()
    {
        final int orderLength = encodeNewOrder(TimeInForce.GTC);
        final int version4Order = NewOrderDecoder.engineLifeEncodingOffset();
        new MessageHeaderEncoder().wrap(buffer, 0).blockLength(version4Order);
        final DirectBuffer order = SampleMessages.exactCopy(buffer, 0, HEADER_LENGTH + version4Order);
        assertTrue(orderLength > HEADER_LENGTH + version4Order);
        assertEquals(MessageValidator.BLOCK_LENGTH_TOO_SHORT, MessageValidator.validate(order, 0, order.capacity()),
            "version 5's engine life is missing from the order's block");

        final int reportLength = encodeExecutionReport(ExecType.NEW, RejectReason.NONE);
        final int version4Report = ExecutionReportDecoder.engineLifeEncodingOffset();
        new MessageHeaderEncoder().wrap(buffer, 0).blockLength(version4Report);
        final DirectBuffer report = SampleMessages.exactCopy(buffer, 0, HEADER_LENGTH + version4Report);
        assertTrue(reportLength > HEADER_LENGTH + version4Report);
        assertEquals(MessageValidator.BLOCK_LENGTH_TOO_SHORT, MessageValidator.validate(report, 0, report.capacity()),
            "version 5's engine life is missing from the report's block");

        final DirectBuffer snapshotV4 = validatedEarlierVersionOf(encodeBookSnapshot(), 4,
            BookSnapshotDecoder.engineLifeEncodingOffset());
        final ExpandableArrayBuffer relabelled = new ExpandableArrayBuffer(snapshotV4.capacity());
        relabelled.putBytes(0, snapshotV4, 0, snapshotV4.capacity());
        new MessageHeaderEncoder().wrap(relabelled, 0).version(5);
        final DirectBuffer snapshot = SampleMessages.exactCopy(relabelled, 0, snapshotV4.capacity());
        assertEquals(MessageValidator.BLOCK_LENGTH_TOO_SHORT, MessageValidator.validate(snapshot, 0, snapshot.capacity()),
            "version 5's engine life is missing from the snapshot's block");
    }

    @Test
    void aVersion4HeaderOverAVersion3LogonBlockIsRefused()
    {
        final DirectBuffer logonV3 = validatedEarlierVersionOf(encodeLogon(), 3,
            LogonDecoder.replyLifeEncodingOffset());
        final ExpandableArrayBuffer relabelled = new ExpandableArrayBuffer(logonV3.capacity());
        relabelled.putBytes(0, logonV3, 0, logonV3.capacity());
        new MessageHeaderEncoder().wrap(relabelled, 0).version(4);
        final DirectBuffer received = SampleMessages.exactCopy(relabelled, 0, logonV3.capacity());
        assertEquals(MessageValidator.BLOCK_LENGTH_TOO_SHORT,
            MessageValidator.validate(received, 0, received.capacity()),
            "version 4's reply life is missing from its block");
    }

    @Test
    void aVersion3HeaderOverAVersion2BlockIsRefused()
    {
        final int length = encodeExecutionReport(ExecType.NEW, RejectReason.NONE);
        final int version2Block = ExecutionReportDecoder.replySequenceEncodingOffset();
        new MessageHeaderEncoder().wrap(buffer, 0).blockLength(version2Block).version(3);
        final DirectBuffer received = SampleMessages.exactCopy(buffer, 0, HEADER_LENGTH + version2Block);
        assertTrue(MessageValidator.validate(received, 0, HEADER_LENGTH + version2Block) < 0,
            "version 3's reply sequence is missing from its block");
    }

    @Test
    void version2DecoderReadsAVersion1TradeWithVersion2FieldsAtTheirNullValues()
    {
        final io.ringwire.codecs.trading.v1.TradeEncoder encoder = new io.ringwire.codecs.trading.v1.TradeEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.ringwire.codecs.trading.v1.MessageHeaderEncoder())
            .instrumentId(41)
            .sequenceNumber(42L)
            .tradeId(43L)
            .price(-44L)
            .quantity(45L)
            .aggressorSide(io.ringwire.codecs.trading.v1.Side.BUY)
            .transactTime(46L);
        final DirectBuffer received = validatedVersion2Receive(HEADER_LENGTH + encoder.encodedLength());

        final TradeDecoder decoder = new TradeDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(41, decoder.instrumentId());
        assertEquals(42L, decoder.sequenceNumber());
        assertEquals(43L, decoder.tradeId());
        assertEquals(-44L, decoder.price());
        assertEquals(45L, decoder.quantity());
        assertEquals(Side.BUY, decoder.aggressorSide());
        assertEquals(46L, decoder.transactTime());
        assertEquals(TradeDecoder.streamSequenceNullValue(), decoder.streamSequence());
        assertEquals(TradeDecoder.buyOrderIdNullValue(), decoder.buyOrderId());
        assertEquals(TradeDecoder.sellOrderIdNullValue(), decoder.sellOrderId());
        assertEquals(received.capacity(), decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- a later version

    @Test
    void decoderReadsEveryLevelOfALaterVersionsBookUpdateSteppingOverItsLongerBlockAndEntries()
    {
        final BookUpdateEncoder encoder = new BookUpdateEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .instrumentId(77)
            .sequenceNumber(88_888L)
            .transactTime(99_999L);
        final BookUpdateEncoder.LevelsEncoder levels = encoder.levelsCount(LEVEL_COUNT);
        for (int i = 0; i < LEVEL_COUNT; i++)
        {
            levels.next()
                .action(BookAction.get((short)(i % 3)))
                .side(i % 2 == 0 ? Side.BUY : Side.SELL)
                .price(levelPrice(i))
                .quantity(levelQuantity(i))
                .orderCount(i + 1);
        }
        final byte[] filler = { -1, -1, -1, -1, -1, -1, -1, -1 };
        final DirectBuffer received = validatedLaterVersion(HEADER_LENGTH + encoder.encodedLength(), filler);

        final BookUpdateDecoder decoder = new BookUpdateDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(77, decoder.instrumentId());
        assertEquals(88_888L, decoder.sequenceNumber());
        assertEquals(99_999L, decoder.transactTime());
        final BookUpdateDecoder.LevelsDecoder decodedLevels = decoder.levels();
        assertEquals(LEVEL_COUNT, decodedLevels.count());
        assertEquals(BookUpdateDecoder.LevelsDecoder.sbeBlockLength() + filler.length, decodedLevels.actingBlockLength(),
            "entries are stepped over with the sender's entry length");
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
        assertEquals(received.capacity(), decoder.limit(), "the decoder ends exactly at the end of the message");
    }

    @Test
    void decoderFindsALaterVersionsLatencyProbePaddingAfterTheLongerBlock()
    {
        final byte[] padding = SampleMessages.randomBytes(new Random(2), 123);
        final LatencyProbeEncoder encoder = new LatencyProbeEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sequence(42L)
            .sendTimestampNs(1_000_000_007L)
            .echoTimestampNs(2_000_000_011L)
            .putPadding(padding, 0, padding.length);
        final DirectBuffer received = validatedLaterVersion(HEADER_LENGTH + encoder.encodedLength(),
            new byte[]{ 0x0D, 0x0C, 0x0B, 0x0A });

        final LatencyProbeDecoder decoder = new LatencyProbeDecoder()
            .wrap(received, HEADER_LENGTH, header.blockLength(), header.version());

        assertEquals(42L, decoder.sequence());
        assertEquals(1_000_000_007L, decoder.sendTimestampNs());
        assertEquals(2_000_000_011L, decoder.echoTimestampNs());
        assertEquals(padding.length, decoder.paddingLength(), "the length prefix is read after the longer block");
        final byte[] decoded = new byte[decoder.paddingLength()];
        decoder.getPadding(decoded, 0, decoded.length);
        assertArrayEquals(padding, decoded);
        assertEquals(received.capacity(), decoder.limit());
    }

    @Test
    void decoderThatIgnoresTheHeaderBlockLengthMisreadsALaterVersionsVarData()
    {
        // Why the receiver must use the header's block length: with its own (shorter) one, the
        // decoder takes the later version's appended field (here 7) for the padding's length prefix.
        final LatencyProbeEncoder encoder = new LatencyProbeEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .sequence(1L)
            .sendTimestampNs(2L)
            .echoTimestampNs(3L)
            .putPadding(new byte[16], 0, 16);
        final DirectBuffer received = validatedLaterVersion(HEADER_LENGTH + encoder.encodedLength(),
            new byte[]{ 7, 0, 0, 0 });

        final LatencyProbeDecoder wrong = new LatencyProbeDecoder()
            .wrap(received, HEADER_LENGTH, LatencyProbeDecoder.BLOCK_LENGTH, LatencyProbeDecoder.SCHEMA_VERSION);

        assertEquals(7, wrong.paddingLength());
    }

    // ---------------------------------------------------------------------------------------------- support

    /** A version-2 NewOrder with every field set, at 0 of {@link #buffer}; returns its length. */
    private int encodeNewOrder(final TimeInForce timeInForce)
    {
        final NewOrderEncoder encoder = new NewOrderEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .clientOrderId(1_001L)
            .account(-2_002L)
            .instrumentId(3_003)
            .side(Side.SELL)
            .ordType(OrdType.LIMIT)
            .timeInForce(timeInForce)
            .price(-4_004L)
            .quantity(5_005L)
            .sendingTime(0xFEDC_BA98_7654_3210L)
            .postOnly(BooleanType.TRUE)
            .displayQuantity(606L)
            .selfTradePrevention(SelfTradePrevention.DECREMENT_AND_CANCEL)
            .receiveTime(0x0BAD_CAFE_0BAD_CAFEL)
            .gatewaySendTime(0x0BAD_CAFE_0BAD_D00DL)
            .engineLife(0x0BAD_CAFE_0000_0005L);
        return HEADER_LENGTH + encoder.encodedLength();
    }

    /** A version-2 ExecutionReport with every field set, at 0 of {@link #buffer}; returns its length. */
    private int encodeExecutionReport(final ExecType execType, final RejectReason rejectReason)
    {
        final ExecutionReportEncoder encoder = new ExecutionReportEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .exchangeOrderId(0x0E0E_0000_0000_0001L)
            .clientOrderId(91L)
            .execId(92L)
            .account(93L)
            .instrumentId(94)
            .execType(execType)
            .ordStatus(OrdStatus.PARTIALLY_FILLED)
            .side(Side.BUY)
            .rejectReason(rejectReason)
            .lastPrice(-95L)
            .lastQuantity(96L)
            .leavesQuantity(97L)
            .cumulativeQuantity(98L)
            .transactTime(0xF000_0000_0000_0099L)
            .price(-100L)
            .orderQuantity(194L)
            .ordType(OrdType.LIMIT)
            .timeInForce(TimeInForce.GTC)
            .engineSequence(Long.MAX_VALUE)
            .clientSendTime(0xF000_0000_0000_0100L)
            .gatewayInTime(0xF000_0000_0000_0101L)
            .gatewayOutTime(0xF000_0000_0000_0102L)
            .engineInTime(0xF000_0000_0000_0103L)
            .engineOutTime(0xF000_0000_0000_0104L)
            .gatewayReplyTime(0xF000_0000_0000_0105L)
            .replySequence(0x0E0E_0000_0000_0106L)
            .engineLife(0x0E0E_0000_0000_0107L);
        return HEADER_LENGTH + encoder.encodedLength();
    }

    /** A version-2 Trade with every field set, at 0 of {@link #buffer}; returns its length. */
    private int encodeTrade(final long sequenceNumber)
    {
        final TradeEncoder encoder = new TradeEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .instrumentId(5)
            .sequenceNumber(sequenceNumber)
            .tradeId(1_000L + sequenceNumber)
            .price(-99_950L)
            .quantity(3L)
            .aggressorSide(Side.SELL)
            .transactTime(0xF123_4567_89AB_CDEFL)
            .streamSequence(sequenceNumber + 7)
            .buyOrderId(8L)
            .sellOrderId(9L);
        return HEADER_LENGTH + encoder.encodedLength();
    }

    private static void assertTradeVersion1Fields(
        final io.ringwire.codecs.trading.v1.TradeDecoder decoder, final long sequenceNumber)
    {
        assertEquals(5, decoder.instrumentId());
        assertEquals(sequenceNumber, decoder.sequenceNumber());
        assertEquals(1_000L + sequenceNumber, decoder.tradeId());
        assertEquals(-99_950L, decoder.price());
        assertEquals(3L, decoder.quantity());
        assertEquals(io.ringwire.codecs.trading.v1.Side.SELL, decoder.aggressorSide());
        assertEquals(0xF123_4567_89AB_CDEFL, decoder.transactTime());
    }

    private io.ringwire.codecs.trading.v1.ExecutionReportDecoder version1ExecutionReport(final int length)
    {
        final DirectBuffer received = validatedVersion1Receive(length, ExecutionReportEncoder.BLOCK_LENGTH);
        return new io.ringwire.codecs.trading.v1.ExecutionReportDecoder()
            .wrap(received, HEADER_LENGTH, v1Header.blockLength(), v1Header.version());
    }

    private static <E extends Enum<E>> List<E> notIn(final E[] current, final Enum<?>[] version1)
    {
        final Set<String> version1Names = Arrays.stream(version1).map(Enum::name).collect(Collectors.toSet());
        final List<E> added = Arrays.stream(current).filter(value -> !version1Names.contains(value.name())).toList();
        assertFalse(added.isEmpty(), "version 2 added no value to " + current[0].getDeclaringClass().getSimpleName());
        return added;
    }

    private static long levelPrice(final int i)
    {
        return 50_000L - 25L * i;
    }

    private static long levelQuantity(final int i)
    {
        return 1L << (10 + i);
    }

    /**
     * Copies the version-2 message at 0 of {@link #buffer}, validates it, wraps {@link #v1Header} on
     * it and checks that the header carries version 2's block length.
     */
    private DirectBuffer validatedVersion1Receive(final int length, final int version2BlockLength)
    {
        final DirectBuffer received = validatedCopy(buffer, length);
        v1Header.wrap(received, 0);
        assertEquals(io.ringwire.codecs.trading.v1.MessageHeaderDecoder.SCHEMA_ID, v1Header.schemaId());
        assertEquals(MessageHeaderDecoder.SCHEMA_VERSION, v1Header.version(), "a current sender's header");
        assertEquals(version2BlockLength, v1Header.blockLength());
        return received;
    }

    /** Copies the version-1 message at 0 of {@link #buffer}, validates it, wraps {@link #header} on it. */
    private DirectBuffer validatedVersion2Receive(final int length)
    {
        final DirectBuffer received = validatedCopy(buffer, length);
        header.wrap(received, 0);
        assertEquals(1, header.version(), "a version-1 sender's header");
        return received;
    }

    /**
     * The message at 0 of {@link #buffer} as a sender of a later version writes it: the header says
     * that version, and {@code filler} (the fields that version appended) ends the root block and
     * each group entry, the header's and each group's block length grown to match. Validated, with
     * {@link #header} wrapped on it.
     */
    private DirectBuffer validatedLaterVersion(final int length, final byte[] filler)
    {
        header.wrap(buffer, 0);
        final int blockLength = header.blockLength();
        final ExpandableArrayBuffer later = new ExpandableArrayBuffer(length * 2 + filler.length);
        int from = HEADER_LENGTH + blockLength;
        later.putBytes(0, buffer, 0, from);
        int to = from;
        later.putBytes(to, filler);
        to += filler.length;
        new MessageHeaderEncoder().wrap(later, 0).blockLength(blockLength + filler.length).version(LATER_VERSION);

        if (BookUpdateDecoder.TEMPLATE_ID == header.templateId())
        {
            final GroupSizeEncodingDecoder levels = new GroupSizeEncodingDecoder().wrap(buffer, from);
            final int entryLength = levels.blockLength();
            final int count = levels.numInGroup();
            new GroupSizeEncodingEncoder().wrap(later, to).blockLength(entryLength + filler.length).numInGroup(count);
            from += GroupSizeEncodingDecoder.ENCODED_LENGTH;
            to += GroupSizeEncodingEncoder.ENCODED_LENGTH;
            for (int i = 0; i < count; i++)
            {
                later.putBytes(to, buffer, from, entryLength);
                from += entryLength;
                to += entryLength;
                later.putBytes(to, filler);
                to += filler.length;
            }
        }
        later.putBytes(to, buffer, from, length - from);
        to += length - from;

        final DirectBuffer received = validatedCopy(later, to);
        header.wrap(received, 0);
        assertEquals(LATER_VERSION, header.version());
        return received;
    }

    private static DirectBuffer validatedCopy(final DirectBuffer source, final int length)
    {
        final DirectBuffer received = SampleMessages.exactCopy(source, 0, length);
        final int result = MessageValidator.validate(received, 0, length);
        assertEquals(length, result, () -> "validate: " + MessageValidator.describe(result));
        return received;
    }

    // ---------------------------------------------------------------------------------------------- schema XML

    /**
     * One line per element below {@code element}, in document order (the order is the wire layout):
     * its path, its attributes but descriptions, and its text. Leaves out the root's identity
     * (package, version, semanticVersion), every element with {@code sinceVersion="2"}, and the
     * named messages and types.
     */
    private static void structure(
        final Element element,
        final String parentPath,
        final Set<String> leftOutMessages,
        final Set<String> leftOutTypes,
        final List<String> lines)
    {
        final String name = element.getAttribute("name");
        final boolean leftOut = element.hasAttribute("sinceVersion") ||
            ("message".equals(element.getLocalName()) && leftOutMessages.contains(name)) ||
            (element.getParentNode() instanceof Element parent && "types".equals(parent.getLocalName()) &&
                leftOutTypes.contains(name));
        if (leftOut)
        {
            return;
        }
        final String path = parentPath + "/" + element.getLocalName() + (name.isEmpty() ? "" : "[" + name + "]");
        final Map<String, String> attributes = new TreeMap<>();
        for (int i = 0; i < element.getAttributes().getLength(); i++)
        {
            final Node attribute = element.getAttributes().item(i);
            attributes.put(attribute.getNodeName(), attribute.getNodeValue());
        }
        attributes.remove("description");
        if (parentPath.isEmpty())
        {
            attributes.keySet().removeAll(Set.of("package", "version", "semanticVersion"));
        }
        final List<Element> children = children(element, null);
        final String text = children.isEmpty() ? element.getTextContent().trim() : "";
        lines.add(path + " " + attributes + (text.isEmpty() ? "" : " = " + text));
        for (final Element child : children)
        {
            structure(child, path, leftOutMessages, leftOutTypes, lines);
        }
    }

    /** The element children of {@code parent}, all or those of one local name. */
    private static List<Element> children(final Element parent, final String localName)
    {
        final List<Element> children = new ArrayList<>();
        for (Node node = parent.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof Element child && (null == localName || localName.equals(child.getLocalName())))
            {
                children.add(child);
            }
        }
        return children;
    }

    private static Set<String> typeNames(final Element root)
    {
        return children(children(root, "types").getFirst(), null).stream()
            .map(type -> type.getAttribute("name"))
            .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Every value of a sinceVersion attribute in the schema. */
    private static Set<String> sinceVersions(final Element element)
    {
        final Set<String> versions = new TreeSet<>();
        if (element.hasAttribute("sinceVersion"))
        {
            versions.add(element.getAttribute("sinceVersion"));
        }
        for (final Element child : children(element, null))
        {
            versions.addAll(sinceVersions(child));
        }
        return versions;
    }
}
