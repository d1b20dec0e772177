package io.ringwire.exchange.fix;

/**
 * A FIX message's fields as QuickFIX/J splits them: at each SOH, the tag before the '=' a decimal
 * number as {@link Integer#parseInt} takes it ("049" and "+49" are 49). The door's filters read
 * the fields they decide on this way, so that they and QuickFIX/J read a message alike; a field
 * whose text before its '=' is no tag is handed on as {@link #NOT_A_TAG} (QuickFIX/J refuses such
 * a message, unless the text lies in a data field's value, which it reads by its declared length).
 *
 * <p>Threading: any; stateless.
 */
final class FixFields
{
    static final char SOH = '\u0001';
    /** The tag of a field whose text before its '=' is no tag. */
    static final int NOT_A_TAG = -1;

    /** Told of each field of a message, in order. */
    @FunctionalInterface
    interface Reader
    {
        /**
         * @param tag       the field's tag, or {@link #NOT_A_TAG}.
         * @param message   the message.
         * @param valueFrom where the field's value starts in it.
         * @param valueTo   where it ends (its SOH, or the message's end).
         */
        void field(int tag, String message, int valueFrom, int valueTo);
    }

    private FixFields()
    {
    }

    /** Hands each field of {@code message} to {@code reader}, in order. */
    static void read(final String message, final Reader reader)
    {
        final int length = message.length();
        int at = 0;
        while (at < length)
        {
            final int equals = message.indexOf('=', at);
            if (equals < 0)
            {
                break;
            }
            final int soh = message.indexOf(SOH, equals + 1);
            final int end = soh < 0 ? length : soh;
            reader.field(tagOf(message, at, equals), message, equals + 1, end);
            at = end + 1;
        }
    }

    /**
     * @return the tag of the field whose text before its '=' runs from {@code from} to {@code to},
     *         as QuickFIX/J reads it, or {@link #NOT_A_TAG} where it is none.
     */
    static int tagOf(final String message, final int from, final int to)
    {
        try
        {
            final int tag = Integer.parseInt(message, from, to, 10);
            return tag > 0 ? tag : NOT_A_TAG;
        }
        catch (final NumberFormatException ex)
        {
            return NOT_A_TAG;
        }
    }
}
