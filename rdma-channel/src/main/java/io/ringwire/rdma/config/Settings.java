package io.ringwire.rdma.config;

import java.util.List;

/**
 * The one parser of RingWire's settings: {@code ringwire.*} system properties, channel parameters
 * and command-line options. Each method checks a value against what is allowed and fails with a
 * message a user can act on, in one form everywhere: the setting's name, the value as given, what
 * is wrong, and what is allowed ({@code ringwire.rdma.mtu='9000' is not allowed; allowed: 256, 512,
 * 1024, 2048 or 4096}).
 *
 * <p>Threading: stateless; any thread. Not for hot paths: settings are read when something opens.
 */
public final class Settings
{
    private Settings()
    {
    }

    /**
     * @param name         the system property.
     * @param defaultValue its value when it is not set.
     * @return the property's value, or {@code defaultValue}.
     */
    public static String property(final String name, final String defaultValue)
    {
        return System.getProperty(name, defaultValue);
    }

    /**
     * Parses a whole number within bounds. Underscores between digits are allowed ({@code 1_000_000}).
     *
     * @param name    the setting, as the message names it.
     * @param value   as given.
     * @param min     the smallest allowed.
     * @param max     the largest allowed.
     * @param allowed what is allowed, in words, e.g. "1 to 3600000 milliseconds".
     * @return the number.
     * @throws IllegalArgumentException naming the setting, the value and what is allowed.
     */
    public static long parseLong(final String name, final String value, final long min, final long max,
        final String allowed)
    {
        final long parsed;
        try
        {
            parsed = Long.parseLong(null == value ? "" : value.trim().replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw invalid(name, value, "is not a number", allowed);
        }
        if (parsed < min || parsed > max)
        {
            throw invalid(name, value, "is out of range", allowed);
        }
        return parsed;
    }

    /**
     * {@link #parseLong} for a value that fits an int.
     *
     * @param name    the setting.
     * @param value   as given.
     * @param min     the smallest allowed.
     * @param max     the largest allowed.
     * @param allowed what is allowed, in words.
     * @return the number.
     * @throws IllegalArgumentException naming the setting, the value and what is allowed.
     */
    public static int parseInt(final String name, final String value, final int min, final int max,
        final String allowed)
    {
        return (int)parseLong(name, value, min, max, allowed);
    }

    /**
     * Parses a power of two within bounds (ring and buffer capacities).
     *
     * @param name  the setting.
     * @param value as given.
     * @param min   the smallest allowed, a power of two.
     * @param max   the largest allowed, a power of two.
     * @return the number.
     * @throws IllegalArgumentException naming the setting, the value and the allowed range.
     */
    public static int parsePowerOfTwo(final String name, final String value, final int min, final int max)
    {
        final String allowed = "a power of two from " + min + " to " + max;
        final int parsed = parseInt(name, value, min, max, allowed);
        if (Integer.bitCount(parsed) != 1)
        {
            throw invalid(name, value, "is not a power of two", allowed);
        }
        return parsed;
    }

    /**
     * Parses {@code true} or {@code false}, nothing else.
     *
     * @param name  the setting.
     * @param value as given.
     * @return the value.
     * @throws IllegalArgumentException naming the setting and the two allowed values.
     */
    public static boolean parseBoolean(final String name, final String value)
    {
        final String trimmed = null == value ? "" : value.trim();
        if ("true".equals(trimmed) || "false".equals(trimmed))
        {
            return Boolean.parseBoolean(trimmed);
        }
        throw invalid(name, value, "is not allowed", "true or false");
    }

    /**
     * Checks that a value is one of a list of names.
     *
     * @param name    the setting.
     * @param value   as given.
     * @param choices the allowed names.
     * @return the value, trimmed.
     * @throws IllegalArgumentException naming the setting and every allowed name.
     */
    public static String oneOf(final String name, final String value, final List<String> choices)
    {
        final String trimmed = null == value ? "" : value.trim();
        if (choices.contains(trimmed))
        {
            return trimmed;
        }
        throw invalid(name, value, "is not allowed", String.join(", ", choices));
    }

    /**
     * Parses a comma-separated list of whole numbers within bounds (e.g. the cores to pin to).
     *
     * @param name    the setting.
     * @param value   as given; blank for an empty list.
     * @param min     the smallest allowed element.
     * @param max     the largest allowed element.
     * @param allowed what is allowed, in words.
     * @return the numbers, in the order given.
     * @throws IllegalArgumentException naming the setting, the value and what is allowed.
     */
    public static int[] parseIntList(final String name, final String value, final int min, final int max,
        final String allowed)
    {
        if (null == value || value.isBlank())
        {
            return new int[0];
        }
        final String[] parts = value.split(",");
        final int[] parsed = new int[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            final String part = parts[i].trim();
            try
            {
                parsed[i] = Integer.parseInt(part);
            }
            catch (final NumberFormatException ex)
            {
                throw invalid(name, value, "has '" + part + "', which is not a number", allowed);
            }
            if (parsed[i] < min || parsed[i] > max)
            {
                throw invalid(name, value, "has " + parsed[i] + ", which is out of range", allowed);
            }
        }
        return parsed;
    }

    /**
     * The one form of a refusal, for checks a caller makes beyond these parsers (a value that
     * parses but contradicts another setting, say).
     *
     * @param name    the setting.
     * @param value   as given.
     * @param problem what is wrong, e.g. "is too long for ringwire.rdma.ack.timeout.us=10000".
     * @param allowed what is allowed, in words.
     * @return the exception, for the caller to throw.
     */
    public static IllegalArgumentException invalid(final String name, final String value, final String problem,
        final String allowed)
    {
        return new IllegalArgumentException(name + "='" + value + "' " + problem + "; allowed: " + allowed);
    }
}
