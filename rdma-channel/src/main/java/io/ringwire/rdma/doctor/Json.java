package io.ringwire.rdma.doctor;

import java.util.List;

/**
 * Just enough JSON writing for the doctor's report: strings, booleans, string lists.
 */
final class Json
{
    private Json()
    {
    }

    /**
     * @param text any string.
     * @return it as a JSON string literal.
     */
    static String string(final String text)
    {
        final StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        sb.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /**
     * @param items strings.
     * @return a JSON array of them.
     */
    static String strings(final List<String> items)
    {
        final StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++)
        {
            sb.append(i == 0 ? "" : ",").append(string(items.get(i)));
        }
        return sb.append(']').toString();
    }
}
