package io.ringwire.perf.output;

import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;

/**
 * The pieces of JSON the benchmarks' one-line results share: arrays and strings. Formatting only,
 * after a run.
 */
public final class JsonText
{
    private JsonText()
    {
    }

    /**
     * Appends {@code [first,second,...]}.
     *
     * @param json    where the array goes.
     * @param items   its elements, in order.
     * @param element appends one element.
     * @param <T>     the elements' type.
     * @return {@code json}.
     */
    public static <T> StringBuilder appendArray(final StringBuilder json, final List<T> items,
        final BiConsumer<StringBuilder, T> element)
    {
        json.append('[');
        for (int i = 0; i < items.size(); i++)
        {
            if (i > 0)
            {
                json.append(',');
            }
            element.accept(json, items.get(i));
        }
        return json.append(']');
    }

    /**
     * @param text any text.
     * @return it as a JSON string, quotes included.
     */
    public static String quote(final String text)
    {
        final StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default ->
                {
                    if (c < 0x20)
                    {
                        quoted.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
