package io.ringwire.messaging.system;

/**
 * How long message {@code sequence} of publisher {@code source} is: a pure function, so the
 * publisher and a verifier in another process agree without exchanging anything. Allocation-free.
 */
@FunctionalInterface
interface MessageLengths
{
    /** The largest message of the {@link #large} sizes: 16 MiB. */
    int LARGE_MAX = 16 * 1024 * 1024;

    /**
     * @param source   the publisher.
     * @param sequence the message.
     * @return its length in bytes, at least {@link TestMessages#HEADER_LENGTH}.
     */
    int lengthOf(int source, int sequence);

    /**
     * @param name       mixed, small or large.
     * @param seed       the run's seed.
     * @param maxPayload the publication's {@code maxPayloadLength()} (large sizes start with the
     *                   fragmentation boundaries it implies); unused by the others.
     * @param maxMessage the largest message to make (large sizes).
     * @return the lengths.
     */
    static MessageLengths named(final String name, final long seed, final int maxPayload, final int maxMessage)
    {
        return switch (name)
        {
            case "mixed" -> (source, sequence) -> TestMessages.lengthOf(TestMessages.SIZES_MIXED, seed, source, sequence);
            case "small" -> (source, sequence) -> TestMessages.lengthOf(TestMessages.SIZES_SMALL, seed, source, sequence);
            case "large" -> large(seed, maxPayload, maxMessage);
            default -> throw new IllegalArgumentException("sizes=" + name + ": allowed mixed, small, large");
        };
    }

    /**
     * @param name mixed or small.
     * @param seed the run's seed.
     * @return the lengths.
     */
    static MessageLengths named(final String name, final long seed)
    {
        return named(name, seed, 0, 0);
    }

    /**
     * Fragmented traffic: first the lengths around the frame boundaries (one byte either side of
     * one, two and three frames' payload) and the largest message, then seeded lengths: half up to
     * 64 KiB, three in ten up to 1 MiB, the rest up to the largest.
     *
     * @param seed       the run's seed.
     * @param maxPayload the publication's largest frame payload.
     * @param maxMessage the largest message (at most the publication's maxMessageLength).
     * @return the lengths.
     */
    static MessageLengths large(final long seed, final int maxPayload, final int maxMessage)
    {
        final int[] boundaries = {
            TestMessages.HEADER_LENGTH, maxPayload - 1, maxPayload, maxPayload + 1, 2 * maxPayload - 1, 2 * maxPayload,
            2 * maxPayload + 1, 3 * maxPayload + 1, maxMessage, maxMessage - 1 };
        return (source, sequence) ->
        {
            if (sequence < boundaries.length)
            {
                return Math.min(maxMessage, boundaries[sequence]);
            }
            final long random = TestMessages.mix(seed ^ TestMessages.mix(((long)source << 32) + sequence));
            final int bucket = (int)(random & 15);
            final long rest = random >>> 4;
            final int upTo = bucket < 8 ? 64 * 1024 : bucket < 13 ? 1024 * 1024 : maxMessage;
            return TestMessages.HEADER_LENGTH + (int)(rest % (Math.min(upTo, maxMessage) - TestMessages.HEADER_LENGTH + 1));
        };
    }
}
