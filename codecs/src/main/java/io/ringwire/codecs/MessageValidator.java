package io.ringwire.codecs;

import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.BookUpdateDecoder;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.EngineCommandDecoder;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.GroupSizeEncodingDecoder;
import io.ringwire.codecs.trading.HeartbeatDecoder;
import io.ringwire.codecs.trading.LatencyProbeDecoder;
import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.codecs.trading.OrderCanceledDecoder;
import io.ringwire.codecs.trading.OrderExecutedDecoder;
import io.ringwire.codecs.trading.OrderReplacedDecoder;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.SnapshotRequestDecoder;
import io.ringwire.codecs.trading.TradeDecoder;
import io.ringwire.codecs.trading.VarDataEncodingDecoder;
import io.ringwire.codecs.trading.VarStringEncodingDecoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Checks that a buffer holds a complete, well-formed message of the RingWire trading schema before
 * any decoder touches it. Every receiver calls {@link #validate(DirectBuffer, int, int)} first: the
 * generated SBE decoders trust the lengths and counts they read, so a truncated or hostile buffer
 * would otherwise make them read past the message (or past the buffer, into a neighbouring frame).
 *
 * <p>What is checked, in wire order, never reading a byte at or past {@code offset + length}:
 * <ol>
 *   <li>the 8-byte message header is present and names this schema's id and a known template;</li>
 *   <li>the header's block length is at least the template's block length at the header's version
 *       (every field up to that version is required, because the decoders read a field whenever
 *       the acting version has it, whatever the block length says) and the block fits. Version 0
 *       is held to version 1's fields, and a version above this schema's to this schema's;</li>
 *   <li>each repeating group: its dimension header fits, its entry block length is at least the
 *       known one, its count is within the schema's maximum, and count x block length fits;</li>
 *   <li>each var-data field: its length prefix fits, the length is within the schema's maximum, and
 *       the bytes fit.</li>
 * </ol>
 * Messages from a newer schema version pass when their known parts are well formed: longer blocks
 * and longer group entries are skipped over, exactly as the decoders do with the acting block
 * length. Bytes after the known parts are not inspected (a newer version may append there).
 *
 * <p>Not checked: field values. Enum fields may hold values this version does not know (a newer
 * sender's); receivers read them with the generated {@code *Raw()} getters or handle the typed
 * getter's IllegalArgumentException. When a version appends fields to a template, the template is
 * registered with its block length at each version: the earlier version's block ends where the
 * first appended field starts.
 *
 * <p>Threading: stateless; safe from any thread. Allocation: none.
 * <p>Return codes: the message's encoded length (header included, always &gt; 0) when valid,
 * otherwise one of the negative constants below, which {@link #describe(int)} turns into a reason.
 */
public final class MessageValidator
{
    /** Fewer bytes than a message header. */
    public static final int TRUNCATED_HEADER = -1;
    /** The header's schema id is not the trading schema's. */
    public static final int WRONG_SCHEMA_ID = -2;
    /** The header's template id names no message of the schema. */
    public static final int UNKNOWN_TEMPLATE_ID = -3;
    /** The header's block length is shorter than the template's fixed fields. */
    public static final int BLOCK_LENGTH_TOO_SHORT = -4;
    /** The root block runs past the end of the buffer. */
    public static final int BLOCK_PAST_END = -5;
    /** A group's dimension header runs past the end of the buffer. */
    public static final int GROUP_HEADER_PAST_END = -6;
    /** A group entry's block length is shorter than the group's fixed fields. */
    public static final int GROUP_BLOCK_LENGTH_TOO_SHORT = -7;
    /** A group's count is above the schema's maximum. */
    public static final int GROUP_COUNT_TOO_LARGE = -8;
    /** A group's entries run past the end of the buffer. */
    public static final int GROUP_PAST_END = -9;
    /** A var-data length prefix runs past the end of the buffer. */
    public static final int VAR_DATA_HEADER_PAST_END = -10;
    /** A var-data length is above the schema's maximum for that field. */
    public static final int VAR_DATA_TOO_LONG = -11;
    /** A var-data field's bytes run past the end of the buffer. */
    public static final int VAR_DATA_PAST_END = -12;
    /** Negative offset or length handed to the validator. */
    public static final int INVALID_ARGUMENT = -13;

    private static final ByteOrder ORDER = MessageHeaderDecoder.BYTE_ORDER;
    private static final int HEADER_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH;
    /** Where each 16-bit header field lies in the header read as one little-endian long. */
    private static final int BLOCK_LENGTH_SHIFT = 8 * MessageHeaderDecoder.blockLengthEncodingOffset();
    private static final int TEMPLATE_ID_SHIFT = 8 * MessageHeaderDecoder.templateIdEncodingOffset();
    private static final int SCHEMA_ID_SHIFT = 8 * MessageHeaderDecoder.schemaIdEncodingOffset();
    private static final int VERSION_SHIFT = 8 * MessageHeaderDecoder.versionEncodingOffset();

    private static final int GROUP_HEADER_LENGTH = GroupSizeEncodingDecoder.ENCODED_LENGTH;
    private static final int GROUP_BLOCK_LENGTH_OFFSET = GroupSizeEncodingDecoder.blockLengthEncodingOffset();
    private static final int GROUP_COUNT_OFFSET = GroupSizeEncodingDecoder.numInGroupEncodingOffset();
    private static final int GROUP_COUNT_MAX = GroupSizeEncodingDecoder.numInGroupMaxValue();

    private static final String GROUP_COUNT_TOO_LARGE_REASON =
        "a repeating group's count is above the schema maximum of " + GROUP_COUNT_MAX;

    /** A var-data field's part word: its length prefix's width and the schema's maximum length. */
    private static final long VAR_STRING = varData(
        VarStringEncodingDecoder.lengthEncodingLength(), VarStringEncodingDecoder.lengthMaxValue());
    private static final long VAR_BYTES = varData(
        VarDataEncodingDecoder.lengthEncodingLength(), VarDataEncodingDecoder.lengthMaxValue());

    private static final int[] NO_GROUPS = {};
    private static final long[] NO_VAR_DATA = {};

    /**
     * Every template's layout in one flat array of longs, {@link #STRIDE} per template id: its root
     * word, then one word per group and var-data field in wire order. A layout is read by index from
     * the template id alone, so its words load side by side rather than one object after another
     * (a receiver validates every message, and each dependent load is a few cycles of its hop).
     *
     * <p>Root word: the root block length at version 1, 2, 3, 4 and 5-and-up in five
     * {@link #VERSION_BITS}-bit fields from bit 0, the count of parts from bit {@link #PARTS_SHIFT},
     * and {@link #KNOWN} set; 0 where the
     * schema has no such template. Part word: {@link #VAR_DATA} set for a var-data field, with its
     * length prefix's width from bit {@link #WIDTH_SHIFT} and its maximum length in the low 32 bits;
     * clear for a group, with its entry's block length in the low 16 bits.
     */
    private static final long[] LAYOUTS;
    private static final int TEMPLATE_LIMIT = 128;
    private static final int STRIDE = 4;
    private static final int MAX_PARTS = STRIDE - 1;
    private static final int MAX_VERSIONS = 5;
    /** A root block length's field in the root word: blocks stay far below 1 KiB. */
    private static final int VERSION_BITS = 10;
    private static final int VERSION_MASK = (1 << VERSION_BITS) - 1;
    private static final int PARTS_SHIFT = 52;
    private static final long KNOWN = 1L << 62;
    private static final long VAR_DATA = 1L << 63;
    private static final int WIDTH_SHIFT = 32;

    static
    {
        LAYOUTS = new long[TEMPLATE_LIMIT * STRIDE];
        register(LogonDecoder.TEMPLATE_ID,
            grownInVersions3And4(LogonDecoder.nextReplySequenceEncodingOffset(), LogonDecoder.replyLifeEncodingOffset(),
                LogonDecoder.BLOCK_LENGTH), NO_GROUPS,
            new long[]{ VAR_STRING });
        register(LogonResponseDecoder.TEMPLATE_ID,
            grownInVersions3And4(LogonResponseDecoder.nextReplySequenceEncodingOffset(),
                LogonResponseDecoder.replyLifeEncodingOffset(), LogonResponseDecoder.BLOCK_LENGTH), NO_GROUPS,
            new long[]{ VAR_STRING });
        register(LogoutDecoder.TEMPLATE_ID, sameAtEveryVersion(LogoutDecoder.BLOCK_LENGTH), NO_GROUPS, NO_VAR_DATA);
        register(HeartbeatDecoder.TEMPLATE_ID, sameAtEveryVersion(HeartbeatDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(NewOrderDecoder.TEMPLATE_ID,
            grownInVersions2And5(NewOrderDecoder.postOnlyEncodingOffset(), NewOrderDecoder.engineLifeEncodingOffset(),
                NewOrderDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(CancelOrderDecoder.TEMPLATE_ID,
            grownInVersions2And5(CancelOrderDecoder.receiveTimeEncodingOffset(),
                CancelOrderDecoder.engineLifeEncodingOffset(), CancelOrderDecoder.BLOCK_LENGTH),
            NO_GROUPS, NO_VAR_DATA);
        register(ReplaceOrderDecoder.TEMPLATE_ID,
            grownInVersions2And5(ReplaceOrderDecoder.receiveTimeEncodingOffset(),
                ReplaceOrderDecoder.engineLifeEncodingOffset(), ReplaceOrderDecoder.BLOCK_LENGTH),
            NO_GROUPS, NO_VAR_DATA);
        register(MassCancelDecoder.TEMPLATE_ID, grownInVersion5(MassCancelDecoder.engineLifeEncodingOffset(),
            MassCancelDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(EngineCommandDecoder.TEMPLATE_ID, sameAtEveryVersion(EngineCommandDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(ExecutionReportDecoder.TEMPLATE_ID,
            new int[]{ ExecutionReportDecoder.priceEncodingOffset(), ExecutionReportDecoder.replySequenceEncodingOffset(),
                ExecutionReportDecoder.engineLifeEncodingOffset(), ExecutionReportDecoder.engineLifeEncodingOffset(),
                ExecutionReportDecoder.BLOCK_LENGTH },
            NO_GROUPS, NO_VAR_DATA);
        register(BookUpdateDecoder.TEMPLATE_ID, sameAtEveryVersion(BookUpdateDecoder.BLOCK_LENGTH),
            new int[]{ BookUpdateDecoder.LevelsDecoder.sbeBlockLength() }, NO_VAR_DATA);
        register(TradeDecoder.TEMPLATE_ID,
            grownInVersion2(TradeDecoder.streamSequenceEncodingOffset(), TradeDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(OrderAddedDecoder.TEMPLATE_ID, sameAtEveryVersion(OrderAddedDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(OrderExecutedDecoder.TEMPLATE_ID, sameAtEveryVersion(OrderExecutedDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(OrderCanceledDecoder.TEMPLATE_ID, sameAtEveryVersion(OrderCanceledDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(OrderReplacedDecoder.TEMPLATE_ID, sameAtEveryVersion(OrderReplacedDecoder.BLOCK_LENGTH), NO_GROUPS,
            NO_VAR_DATA);
        register(BookSnapshotDecoder.TEMPLATE_ID, grownInVersion5(BookSnapshotDecoder.engineLifeEncodingOffset(),
            BookSnapshotDecoder.BLOCK_LENGTH),
            new int[]{ BookSnapshotDecoder.OrdersDecoder.sbeBlockLength() }, NO_VAR_DATA);
        register(SnapshotRequestDecoder.TEMPLATE_ID, sameAtEveryVersion(SnapshotRequestDecoder.BLOCK_LENGTH),
            NO_GROUPS, NO_VAR_DATA);
        register(LatencyProbeDecoder.TEMPLATE_ID, sameAtEveryVersion(LatencyProbeDecoder.BLOCK_LENGTH), NO_GROUPS,
            new long[]{ VAR_BYTES });
    }

    private MessageValidator()
    {
    }

    /**
     * Validates the message starting at {@code offset}, with {@code length} bytes available.
     *
     * @param buffer holding the message.
     * @param offset of the message header in the buffer.
     * @param length bytes available from {@code offset}: the frame's payload length.
     * @return the message's encoded length when valid, else a negative code (see {@link #describe(int)}).
     */
    public static int validate(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || (long)offset + length > buffer.capacity())
        {
            return INVALID_ARGUMENT;
        }
        if (length < HEADER_LENGTH)
        {
            return TRUNCATED_HEADER;
        }
        // The header's four 16-bit fields in one read: one bounds check, not four.
        final long header = buffer.getLong(offset, ORDER);
        if ((int)(header >>> SCHEMA_ID_SHIFT & 0xFFFF) != MessageHeaderDecoder.SCHEMA_ID)
        {
            return WRONG_SCHEMA_ID;
        }
        final int templateId = (int)(header >>> TEMPLATE_ID_SHIFT & 0xFFFF);
        if (templateId >= TEMPLATE_LIMIT)
        {
            return UNKNOWN_TEMPLATE_ID;
        }
        final int layout = templateId * STRIDE;
        final long root = LAYOUTS[layout];
        if (0 == root)
        {
            return UNKNOWN_TEMPLATE_ID;
        }

        final int version = (int)(header >>> VERSION_SHIFT & 0xFFFF);
        final int blockLength = (int)(header >>> BLOCK_LENGTH_SHIFT & 0xFFFF);
        final int versionField = Math.min(Math.max(version, 1), MAX_VERSIONS) - 1;
        if (blockLength < (int)(root >>> (VERSION_BITS * versionField) & VERSION_MASK))
        {
            return BLOCK_LENGTH_TOO_SHORT;
        }
        final long end = (long)offset + length;
        long position = (long)offset + HEADER_LENGTH + blockLength;
        if (position > end)
        {
            return BLOCK_PAST_END;
        }

        final int parts = (int)(root >>> PARTS_SHIFT & 0xF);
        for (int i = 1; i <= parts; i++)
        {
            final long part = LAYOUTS[layout + i];
            if (part >= 0)
            {
                if (position + GROUP_HEADER_LENGTH > end)
                {
                    return GROUP_HEADER_PAST_END;
                }
                final int entryLength = buffer.getShort((int)position + GROUP_BLOCK_LENGTH_OFFSET, ORDER) & 0xFFFF;
                final int count = buffer.getShort((int)position + GROUP_COUNT_OFFSET, ORDER) & 0xFFFF;
                if (entryLength < (int)(part & 0xFFFF))
                {
                    return GROUP_BLOCK_LENGTH_TOO_SHORT;
                }
                if (count > GROUP_COUNT_MAX)
                {
                    return GROUP_COUNT_TOO_LARGE;
                }
                position += GROUP_HEADER_LENGTH + (long)entryLength * count;
                if (position > end)
                {
                    return GROUP_PAST_END;
                }
            }
            else
            {
                final int width = (int)(part >>> WIDTH_SHIFT & 0x7);
                if (position + width > end)
                {
                    return VAR_DATA_HEADER_PAST_END;
                }
                final long dataLength = readUnsignedLength(buffer, (int)position, width);
                if (dataLength > (part & 0xFFFF_FFFFL))
                {
                    return VAR_DATA_TOO_LONG;
                }
                position += width + dataLength;
                if (position > end)
                {
                    return VAR_DATA_PAST_END;
                }
            }
        }

        return (int)(position - offset);
    }

    /**
     * Whether a template id belongs to the schema.
     *
     * @param templateId from a message header.
     * @return true when the validator (and the schema) knows the template.
     */
    public static boolean isKnownTemplate(final int templateId)
    {
        return templateId >= 0 && templateId < TEMPLATE_LIMIT && 0 != LAYOUTS[templateId * STRIDE];
    }

    /**
     * Turns a validation result into a reason a person can act on. Known codes map to constant
     * strings (no allocation); an unknown code builds its text.
     *
     * @param code returned by {@link #validate(DirectBuffer, int, int)}.
     * @return the reason, or "valid" for a non-negative result.
     */
    public static String describe(final int code)
    {
        if (code >= 0)
        {
            return "valid";
        }
        return switch (code)
        {
            case TRUNCATED_HEADER -> "truncated: fewer bytes than the 8-byte SBE message header";
            case WRONG_SCHEMA_ID -> "wrong schema id: not a RingWire trading message (expected schema id " +
                MessageHeaderDecoder.SCHEMA_ID + ")";
            case UNKNOWN_TEMPLATE_ID -> "unknown template id: no message of the trading schema has it";
            case BLOCK_LENGTH_TOO_SHORT ->
                "block length in the header is shorter than the message's fixed fields at the header's version";
            case BLOCK_PAST_END -> "truncated: the fixed block runs past the end of the buffer";
            case GROUP_HEADER_PAST_END -> "truncated: a repeating group's size header runs past the end of the buffer";
            case GROUP_BLOCK_LENGTH_TOO_SHORT -> "a repeating group's entry length is shorter than its fixed fields";
            case GROUP_COUNT_TOO_LARGE -> GROUP_COUNT_TOO_LARGE_REASON;
            case GROUP_PAST_END -> "truncated: a repeating group's entries run past the end of the buffer";
            case VAR_DATA_HEADER_PAST_END -> "truncated: a var-data length prefix runs past the end of the buffer";
            case VAR_DATA_TOO_LONG -> "a var-data length is above the schema maximum for the field";
            case VAR_DATA_PAST_END -> "truncated: var-data bytes run past the end of the buffer";
            case INVALID_ARGUMENT -> "invalid arguments: negative offset or length, or a range outside the buffer";
            default -> "unknown validation code " + code;
        };
    }

    private static long readUnsignedLength(final DirectBuffer buffer, final int index, final int lengthFieldLength)
    {
        return switch (lengthFieldLength)
        {
            case 1 -> buffer.getByte(index) & 0xFFL;
            case 2 -> buffer.getShort(index, ORDER) & 0xFFFFL;
            case 4 -> buffer.getInt(index, ORDER) & 0xFFFF_FFFFL;
            default -> throw new IllegalStateException("unsupported var-data length width " + lengthFieldLength);
        };
    }

    private static void register(
        final int templateId,
        final int[] blockLengthByVersion,
        final int[] groupBlockLengths,
        final long[] varData)
    {
        final int layout = templateId * STRIDE;
        if (0 != LAYOUTS[layout])
        {
            throw new IllegalStateException("template id " + templateId + " registered twice");
        }
        final int parts = groupBlockLengths.length + varData.length;
        if (blockLengthByVersion.length > MAX_VERSIONS || parts > MAX_PARTS)
        {
            throw new IllegalStateException("template id " + templateId + " has more versions or parts than " +
                "its layout word holds: " + blockLengthByVersion.length + ", " + parts);
        }
        long root = KNOWN | (long)parts << PARTS_SHIFT;
        for (int v = 0; v < MAX_VERSIONS; v++)
        {
            // The last version listed holds for every later one.
            final int blockLength = blockLengthByVersion[Math.min(v, blockLengthByVersion.length - 1)];
            if (blockLength > VERSION_MASK)
            {
                throw new IllegalStateException("template id " + templateId + " has a block of " + blockLength +
                    " bytes, more than its layout word holds");
            }
            root |= (long)blockLength << (VERSION_BITS * v);
        }
        LAYOUTS[layout] = root;
        int part = layout + 1;
        for (final int groupBlockLength : groupBlockLengths)
        {
            LAYOUTS[part++] = groupBlockLength & 0xFFFF;
        }
        for (final long field : varData)
        {
            LAYOUTS[part++] = field;
        }
    }

    /** A var-data field's part word. */
    private static long varData(final int lengthFieldLength, final long maxLength)
    {
        if (maxLength > 0xFFFF_FFFFL)
        {
            throw new IllegalStateException("var-data maximum length above 32 bits: " + maxLength);
        }
        return VAR_DATA | (long)lengthFieldLength << WIDTH_SHIFT | maxLength;
    }

    /** A template whose root block no version has appended to. */
    private static int[] sameAtEveryVersion(final int blockLength)
    {
        return new int[]{ blockLength };
    }

    /** A version-1 template that version 2 appended fields to, the first of them at {@code version1BlockLength}. */
    private static int[] grownInVersion2(final int version1BlockLength, final int blockLength)
    {
        return new int[]{ version1BlockLength, blockLength };
    }

    /**
     * A version-1 template that versions 2 and 5 appended fields to, the first of each at
     * {@code version1BlockLength} and {@code version4BlockLength}.
     */
    private static int[] grownInVersions2And5(final int version1BlockLength, final int version4BlockLength,
        final int blockLength)
    {
        return new int[]{ version1BlockLength, version4BlockLength, version4BlockLength, version4BlockLength,
            blockLength };
    }

    /**
     * A template of versions 1 to 4 that version 5 appended fields to, the first of them at
     * {@code version4BlockLength}.
     */
    private static int[] grownInVersion5(final int version4BlockLength, final int blockLength)
    {
        return new int[]{ version4BlockLength, version4BlockLength, version4BlockLength, version4BlockLength,
            blockLength };
    }

    /**
     * A template of versions 1 and 2 that versions 3 and 4 appended fields to, the first of each at
     * {@code version2BlockLength} and {@code version3BlockLength}.
     */
    private static int[] grownInVersions3And4(final int version2BlockLength, final int version3BlockLength,
        final int blockLength)
    {
        return new int[]{ version2BlockLength, version2BlockLength, version3BlockLength, blockLength };
    }
}
