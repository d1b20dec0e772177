package io.ringwire.perf.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON parser for tests (objects, arrays, strings, numbers, true, false, null), so
 * the benchmark's JSON is checked by parsing it rather than by looking for substrings. Objects
 * become {@link Map}s, arrays {@link List}s, numbers {@link Double}s.
 */
public final class MiniJson
{
    private final String text;
    private int position;

    private MiniJson(final String text)
    {
        this.text = text;
    }

    /**
     * @param text one JSON value, optionally surrounded by white space.
     * @return the value.
     * @throws IllegalArgumentException when the text is not exactly one valid JSON value.
     */
    public static Object parse(final String text)
    {
        final MiniJson parser = new MiniJson(text);
        final Object value = parser.value();
        parser.skipWhiteSpace();
        if (parser.position != text.length())
        {
            throw parser.error("trailing characters");
        }
        return value;
    }

    private Object value()
    {
        skipWhiteSpace();
        if (position >= text.length())
        {
            throw error("unexpected end");
        }
        final char c = text.charAt(position);
        return switch (c)
        {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> object = new LinkedHashMap<>();
        position++;
        skipWhiteSpace();
        if (peek() == '}')
        {
            position++;
            return object;
        }
        while (true)
        {
            skipWhiteSpace();
            final String key = string();
            skipWhiteSpace();
            expect(':');
            if (object.put(key, value()) != null)
            {
                throw error("duplicate key " + key);
            }
            skipWhiteSpace();
            if (peek() == ',')
            {
                position++;
                continue;
            }
            expect('}');
            return object;
        }
    }

    private List<Object> array()
    {
        final List<Object> array = new ArrayList<>();
        position++;
        skipWhiteSpace();
        if (peek() == ']')
        {
            position++;
            return array;
        }
        while (true)
        {
            array.add(value());
            skipWhiteSpace();
            if (peek() == ',')
            {
                position++;
                continue;
            }
            expect(']');
            return array;
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            if (position >= text.length())
            {
                throw error("unterminated string");
            }
            final char c = text.charAt(position++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c < 0x20)
            {
                throw error("control character in string");
            }
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            final char escaped = text.charAt(position++);
            switch (escaped)
            {
                case '"', '\\', '/' -> sb.append(escaped);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' ->
                {
                    sb.append((char)Integer.parseInt(text.substring(position, position + 4), 16));
                    position += 4;
                }
                default -> throw error("bad escape \\" + escaped);
            }
        }
    }

    private Double number()
    {
        final int start = position;
        if (peek() == '-')
        {
            position++;
        }
        final int digits = position;
        while (position < text.length() && Character.isDigit(text.charAt(position)))
        {
            position++;
        }
        if (position == digits || (text.charAt(digits) == '0' && position - digits > 1))
        {
            throw error("bad number");
        }
        if (peek() == '.')
        {
            position++;
            final int fraction = position;
            while (position < text.length() && Character.isDigit(text.charAt(position)))
            {
                position++;
            }
            if (position == fraction)
            {
                throw error("bad fraction");
            }
        }
        if (peek() == 'e' || peek() == 'E')
        {
            position++;
            if (peek() == '+' || peek() == '-')
            {
                position++;
            }
            final int exponent = position;
            while (position < text.length() && Character.isDigit(text.charAt(position)))
            {
                position++;
            }
            if (position == exponent)
            {
                throw error("bad exponent");
            }
        }
        return Double.parseDouble(text.substring(start, position));
    }

    private Object literal(final String word, final Object value)
    {
        if (!text.startsWith(word, position))
        {
            throw error("expected " + word);
        }
        position += word.length();
        return value;
    }

    private void expect(final char c)
    {
        if (peek() != c)
        {
            throw error("expected '" + c + "'");
        }
        position++;
    }

    private char peek()
    {
        return position < text.length() ? text.charAt(position) : '\0';
    }

    private void skipWhiteSpace()
    {
        while (position < text.length() && " \t\r\n".indexOf(text.charAt(position)) >= 0)
        {
            position++;
        }
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException(what + " at " + position + " in: " + text);
    }
}
