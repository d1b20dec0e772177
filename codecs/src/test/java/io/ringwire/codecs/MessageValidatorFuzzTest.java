package io.ringwire.codecs;

import io.ringwire.codecs.trading.MessageHeaderDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded fuzzing of {@link MessageValidator}: 100,000 inputs, half random bytes (some behind a
 * plausible header so they get past the first checks), half mutations of valid messages of every
 * template, and of the released version 1 of every template version 2 appended fields to, aimed at
 * their length fields and header versions.
 *
 * <p>Each input sits in a buffer of exactly its length (agrona bounds-checks every access, so any
 * read past the end throws) and again inside a larger array, wrapped both as a slice and at an
 * offset. The validator must never throw and must give the same answer in all three. Whenever it
 * accepts, a full decode with the generated decoders (header block length and version, every field,
 * every group entry, every var-data field) must stay inside the exact-length buffer and consume
 * exactly the length the validator returned.
 *
 * <p>The seed is fixed and in every failure message; {@code -Dringwire.fuzz.seed=N} replays another.
 */
class MessageValidatorFuzzTest
{
    private static final long DEFAULT_SEED = 0x52494E4757495245L; // "RINGWIRE"
    private static final int RANDOM_INPUTS = 50_000;
    private static final int MUTATED_INPUTS = 50_000;
    private static final int MAX_RANDOM_LENGTH = 512;
    private static final ByteOrder ORDER = MessageHeaderDecoder.BYTE_ORDER;
    private static final int HEADER = MessageHeaderDecoder.ENCODED_LENGTH;

    private static final Map<Integer, String> CODE_NAMES = codeNames();

    private final long seed = Long.getLong("ringwire.fuzz.seed", DEFAULT_SEED);
    private final Random random = new Random(seed);
    private final SampleMessages.FullDecoder decoder = new SampleMessages.FullDecoder();

    /** Per kind of input ("random" / "mutated"): result code (or "accepted") to count. */
    private final Map<String, Map<String, Integer>> outcomes = new TreeMap<>();
    /** Template id to number of accepted and fully decoded inputs carrying it. */
    private final Map<Integer, Integer> decodedTemplates = new TreeMap<>();
    /** The same, for inputs whose header names a version before 2. */
    private final Map<Integer, Integer> decodedBeforeVersion2Templates = new TreeMap<>();

    @Test
    void validatorNeverThrowsAndEveryAcceptedInputDecodesFullyWithinItsBytes()
    {
        final long start = System.nanoTime();
        final List<SampleMessages.Encoded> corpus = corpus();

        for (int i = 0; i < RANDOM_INPUTS; i++)
        {
            check("random", i, randomInput());
        }
        for (int i = 0; i < MUTATED_INPUTS; i++)
        {
            final SampleMessages.Encoded original = corpus.get(random.nextInt(corpus.size()));
            check("mutated", i, mutate(original));
        }
        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;

        final String stats = "seed=0x" + Long.toHexString(seed) + " in " + elapsedMs + " ms; outcomes=" + outcomes +
            "; accepted and decoded by template=" + decodedTemplates + ", of them with a header version before 2=" +
            decodedBeforeVersion2Templates + "; group entries read=" +
            decoder.groupEntriesRead + "; var-data bytes read=" + decoder.varDataBytesRead;
        System.out.println("MessageValidatorFuzzTest " + stats);

        final Map<String, Integer> mutated = outcomes.get("mutated");
        final int mutatedAccepted = mutated.getOrDefault("accepted", 0);
        assertTrue(mutatedAccepted >= MUTATED_INPUTS / 10, "too few mutated inputs accepted: " + stats);
        assertTrue(MUTATED_INPUTS - mutatedAccepted >= MUTATED_INPUTS / 10, "too few mutated rejected: " + stats);
        for (final int code : new int[]{
            MessageValidator.TRUNCATED_HEADER, MessageValidator.WRONG_SCHEMA_ID, MessageValidator.UNKNOWN_TEMPLATE_ID,
            MessageValidator.BLOCK_LENGTH_TOO_SHORT, MessageValidator.BLOCK_PAST_END,
            MessageValidator.GROUP_HEADER_PAST_END, MessageValidator.GROUP_BLOCK_LENGTH_TOO_SHORT,
            MessageValidator.GROUP_COUNT_TOO_LARGE, MessageValidator.GROUP_PAST_END,
            MessageValidator.VAR_DATA_HEADER_PAST_END, MessageValidator.VAR_DATA_TOO_LONG,
            MessageValidator.VAR_DATA_PAST_END })
        {
            assertTrue(mutated.getOrDefault(codeName(code), 0) >= 20,
                "mutations rarely reach " + codeName(code) + ": " + stats);
        }
        assertTrue(outcomes.get("random").getOrDefault("accepted", 0) > 0, "no random input accepted: " + stats);
        for (final int templateId : SampleMessages.TEMPLATE_IDS)
        {
            assertTrue(decodedTemplates.getOrDefault(templateId, 0) >= 100,
                "too few accepted inputs of template " + templateId + ": " + stats);
        }
        for (final int templateId : SampleMessages.GROWN_IN_VERSION_2_TEMPLATE_IDS)
        {
            assertTrue(decodedBeforeVersion2Templates.getOrDefault(templateId, 0) >= 100,
                "too few accepted version-1 inputs of template " + templateId + ": " + stats);
        }
        assertTrue(decoder.groupEntriesRead > 0 && decoder.varDataBytesRead > 0, stats);
    }

    // ---------------------------------------------------------------------------------------------- the check

    private void check(final String kind, final int index, final byte[] input)
    {
        final int length = input.length;
        final UnsafeBuffer exact = new UnsafeBuffer(input);

        final int pre = random.nextInt(17);
        final byte[] frame = SampleMessages.randomBytes(random, pre + length + random.nextInt(17));
        System.arraycopy(input, 0, frame, pre, length);
        final UnsafeBuffer slice = new UnsafeBuffer(frame, pre, length);
        final UnsafeBuffer whole = new UnsafeBuffer(frame);

        final int result;
        try
        {
            result = MessageValidator.validate(exact, 0, length);
            assertEquals(result, MessageValidator.validate(slice, 0, length),
                () -> describe("same bytes as a slice of a larger array", kind, index, input));
            assertEquals(result, MessageValidator.validate(whole, pre, length),
                () -> describe("same bytes at offset " + pre + " of a larger array", kind, index, input));
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError(describe("validate threw " + ex, kind, index, input), ex);
        }

        if (result > 0)
        {
            assertTrue(result >= HEADER && result <= length,
                () -> describe("accepted length " + result + " outside [8, " + length + "]", kind, index, input));
            final int decoded;
            final int decodedInSlice;
            try
            {
                decoded = decoder.decode(exact, 0);
                decodedInSlice = decoder.decode(slice, 0);
            }
            catch (final RuntimeException ex)
            {
                throw new AssertionError(describe("accepted (" + result + ") but decoding threw " + ex,
                    kind, index, input), ex);
            }
            assertEquals(result, decoded,
                () -> describe("validator length differs from what the decoder consumed", kind, index, input));
            assertEquals(result, decodedInSlice, () -> describe("slice decode length differs", kind, index, input));
            final int templateId = exact.getShort(MessageHeaderDecoder.templateIdEncodingOffset(), ORDER) & 0xFFFF;
            decodedTemplates.merge(templateId, 1, Integer::sum);
            if ((exact.getShort(MessageHeaderDecoder.versionEncodingOffset(), ORDER) & 0xFFFF) < 2)
            {
                decodedBeforeVersion2Templates.merge(templateId, 1, Integer::sum);
            }
            count(kind, "accepted");
        }
        else
        {
            if (result < MessageValidator.INVALID_ARGUMENT || result == 0)
            {
                fail(describe("result " + result + " is not a known code", kind, index, input));
            }
            if (MessageValidator.INVALID_ARGUMENT == result)
            {
                fail(describe("valid arguments reported invalid", kind, index, input));
            }
            count(kind, codeName(result));
        }
    }

    private void count(final String kind, final String outcome)
    {
        outcomes.computeIfAbsent(kind, k -> new TreeMap<>()).merge(outcome, 1, Integer::sum);
    }

    private String describe(final String problem, final String kind, final int index, final byte[] input)
    {
        return problem + " [seed=0x" + Long.toHexString(seed) + ", " + kind + " input #" + index + ", " +
            input.length + " bytes: " + hex(input) + "]";
    }

    private static String codeName(final int code)
    {
        final String name = CODE_NAMES.get(code);
        return null == name ? "code " + code : name;
    }

    /** MessageValidator's public int constants by value: TRUNCATED_HEADER and so on. */
    private static Map<Integer, String> codeNames()
    {
        final Map<Integer, String> names = new TreeMap<>();
        for (final Field field : MessageValidator.class.getFields())
        {
            if (Modifier.isStatic(field.getModifiers()) && int.class == field.getType())
            {
                try
                {
                    names.put(field.getInt(null), field.getName());
                }
                catch (final IllegalAccessException ex)
                {
                    throw new IllegalStateException(ex);
                }
            }
        }
        return names;
    }

    // ---------------------------------------------------------------------------------------------- inputs

    /** Valid messages of every template, and version-1 messages of the templates version 2 grew. */
    private List<SampleMessages.Encoded> corpus()
    {
        final List<SampleMessages.Encoded> corpus = new ArrayList<>();
        for (final int templateId : SampleMessages.TEMPLATE_IDS)
        {
            for (int i = 0; i < 24; i++)
            {
                corpus.add(SampleMessages.randomValid(templateId, random));
            }
        }
        for (final int templateId : SampleMessages.GROWN_IN_VERSION_2_TEMPLATE_IDS)
        {
            for (int i = 0; i < 12; i++)
            {
                corpus.add(SampleMessages.randomValidVersion1(templateId, random));
            }
        }
        for (final SampleMessages.Encoded message : corpus)
        {
            assertEquals(message.length(), MessageValidator.validate(message.exactBuffer(), 0, message.length()),
                () -> "corpus message " + message + " is invalid, seed=0x" + Long.toHexString(seed));
        }
        return corpus;
    }

    private byte[] randomInput()
    {
        final byte[] input = SampleMessages.randomBytes(random, random.nextInt(MAX_RANDOM_LENGTH + 1));
        if (input.length >= HEADER && random.nextBoolean())
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(input);
            final int which = random.nextInt(SampleMessages.TEMPLATE_IDS.length);
            final int templateId = random.nextInt(10) == 0 ? random.nextInt(128) : SampleMessages.TEMPLATE_IDS[which];
            final int blockLength = switch (random.nextInt(4))
            {
                case 0, 1 -> SampleMessages.BLOCK_LENGTHS[which];
                case 2 -> SampleMessages.BLOCK_LENGTHS[which] + random.nextInt(16);
                default -> random.nextInt(0x10000);
            };
            SampleMessages.putHeader(buffer, 0, blockLength, templateId, MessageHeaderDecoder.SCHEMA_ID,
                random.nextBoolean() ? 1 : random.nextInt(0x10000));

            // Often make what follows the block plausible too: a small group count or var-data length.
            final int tail = HEADER + blockLength;
            if (random.nextBoolean() && tail + 4 <= input.length)
            {
                final int room = input.length - tail - 4;
                if (random.nextBoolean())
                {
                    // Entry lengths around both groups' (BookUpdate.levels 22, BookSnapshot.orders 25).
                    final int entryLength = 22 + random.nextInt(5);
                    buffer.putShort(tail, (short)entryLength, ORDER);
                    buffer.putShort(tail + 2, (short)random.nextInt(Math.max(1, room / entryLength + 2)), ORDER);
                }
                else if (random.nextBoolean())
                {
                    buffer.putShort(tail, (short)random.nextInt(room + 3), ORDER);
                }
                else
                {
                    buffer.putInt(tail, random.nextInt(room + 3), ORDER);
                }
            }
        }
        return input;
    }

    private byte[] mutate(final SampleMessages.Encoded original)
    {
        byte[] bytes = original.bytes().clone();
        final int mutations = 1 + random.nextInt(3);
        // Field overwrites first, at the original's offsets; then changes of length.
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(5))
            {
                case 0 -> flipBytes(bytes);
                case 1 -> overwriteHeaderField(bytes);
                case 2 ->
                {
                    if (original.groupHeaders().length > 0)
                    {
                        overwriteGroupHeader(bytes, original.groupHeaders()[random.nextInt(original.groupHeaders().length)]);
                    }
                    else
                    {
                        overwriteHeaderField(bytes);
                    }
                }
                case 3, 4 ->
                {
                    if (original.varDataLengths().length > 0)
                    {
                        final int which = random.nextInt(original.varDataLengths().length);
                        overwriteVarDataLength(bytes, original.varDataLengths()[which], original.varDataWidths()[which]);
                    }
                    else if (original.groupHeaders().length > 0)
                    {
                        overwriteGroupHeader(bytes, original.groupHeaders()[0]);
                    }
                    else
                    {
                        flipBytes(bytes);
                    }
                }
                default -> throw new IllegalStateException();
            }
        }
        switch (random.nextInt(6))
        {
            case 0 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length)); // truncate
            case 1 ->
            {
                final int extra = 1 + random.nextInt(64);
                final byte[] longer = Arrays.copyOf(bytes, bytes.length + extra);
                final byte[] garbage = SampleMessages.randomBytes(random, extra);
                System.arraycopy(garbage, 0, longer, bytes.length, extra);
                bytes = longer;
            }
            case 2 ->
            {
                final int at = random.nextInt(bytes.length);
                final int cut = 1 + random.nextInt(Math.min(8, bytes.length - at));
                final byte[] shorter = new byte[bytes.length - cut];
                System.arraycopy(bytes, 0, shorter, 0, at);
                System.arraycopy(bytes, at + cut, shorter, at, bytes.length - at - cut);
                bytes = shorter;
            }
            default ->
            {
                // length unchanged
            }
        }
        return bytes;
    }

    private void flipBytes(final byte[] bytes)
    {
        final int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++)
        {
            bytes[random.nextInt(bytes.length)] ^= (byte)(1 + random.nextInt(255));
        }
    }

    private void overwriteHeaderField(final byte[] bytes)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final int field = 2 * random.nextInt(4); // blockLength, templateId, schemaId, version
        final int current = buffer.getShort(field, ORDER) & 0xFFFF;
        final int value = switch (random.nextInt(8))
        {
            case 0 -> 0;
            case 1 -> 0xFFFF;
            case 2 -> 0x8000;
            case 3 -> current + 1;
            case 4 -> current - 1;
            case 5 -> SampleMessages.TEMPLATE_IDS[random.nextInt(SampleMessages.TEMPLATE_IDS.length)];
            case 6 -> SampleMessages.BLOCK_LENGTHS[random.nextInt(SampleMessages.BLOCK_LENGTHS.length)];
            default -> random.nextInt(0x10000);
        };
        buffer.putShort(field, (short)value, ORDER);
    }

    private void overwriteGroupHeader(final byte[] bytes, final int at)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final int field = at + (random.nextBoolean() ? 0 : 2); // entry block length, count
        final int current = buffer.getShort(field, ORDER) & 0xFFFF;
        final int value = switch (random.nextInt(10))
        {
            case 0 -> 0;
            case 1 -> 0xFFFF;
            case 2 -> 4096;
            case 3 -> 4097;
            case 4 -> 21;
            case 5 -> 30;
            case 6 -> current + 1;
            case 7 -> current - 1;
            case 8 -> random.nextInt(16);
            default -> random.nextInt(0x10000);
        };
        buffer.putShort(field, (short)value, ORDER);
    }

    private void overwriteVarDataLength(final byte[] bytes, final int at, final int width)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        if (2 == width)
        {
            final int current = buffer.getShort(at, ORDER) & 0xFFFF;
            final int value = switch (random.nextInt(8))
            {
                case 0 -> 0;
                case 1 -> 0xFFFF;
                case 2 -> 1024;
                case 3 -> 1025;
                case 4 -> current + 1;
                case 5 -> current - 1;
                case 6 -> random.nextInt(64);
                default -> random.nextInt(0x10000);
            };
            buffer.putShort(at, (short)value, ORDER);
        }
        else
        {
            final long current = buffer.getInt(at, ORDER) & 0xFFFF_FFFFL;
            final long value = switch (random.nextInt(10))
            {
                case 0 -> 0;
                case 1 -> 0xFFFF_FFFFL;
                case 2 -> 0x8000_0000L;
                case 3 -> 0x7FFF_FFFFL;
                case 4 -> 16_777_216L;
                case 5 -> 16_777_217L;
                case 6 -> current + 1;
                case 7 -> current - 1;
                case 8 -> random.nextInt(128);
                default -> random.nextInt() & 0xFFFF_FFFFL;
            };
            buffer.putInt(at, (int)value, ORDER);
        }
    }

    private static String hex(final byte[] bytes)
    {
        final StringBuilder builder = new StringBuilder(bytes.length * 2);
        for (final byte b : bytes)
        {
            builder.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return builder.toString();
    }
}
