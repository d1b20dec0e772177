package io.ringwire.exchange.config;

import io.ringwire.rdma.config.EndpointAddress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One role's config file: {@code key = value} lines, {@code #} comments (whole lines, or after a
 * value and a space: a {@code #} inside a word of a value, a session's token say, is part of it;
 * one that starts a word starts a comment), blank lines ignored. Keys are unique; a value may be a
 * comma list. Paths are read relative to the file's directory. Every refusal names the file, the line and what is allowed, and a key the
 * role does not know is refused rather than ignored, so a typo cannot silently leave a default in
 * place.
 *
 * <p>Threading: parsed and read by one thread at start.
 */
public final class ConfigFile
{
    private final Path file;
    private final Map<String, String> values;
    private final Map<String, Integer> lines;
    private final Set<String> read = new TreeSet<>();

    private ConfigFile(final Path file, final Map<String, String> values, final Map<String, Integer> lines)
    {
        this.file = file;
        this.values = values;
        this.lines = lines;
    }

    /**
     * @param file the config file.
     * @return its entries.
     * @throws IllegalArgumentException when it cannot be read, or a line is not {@code key = value}, or a
     *                                  key comes twice.
     */
    public static ConfigFile read(final Path file)
    {
        final List<String> text;
        try
        {
            text = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + ex.getMessage(), ex);
        }
        return parse(file, text);
    }

    /**
     * @param file where the lines come from (for messages, and the base of relative paths).
     * @param text the lines.
     * @return the entries.
     * @throws IllegalArgumentException naming the line that is not {@code key = value}, a key with no
     *                                  value, or a key given twice.
     */
    static ConfigFile parse(final Path file, final List<String> text)
    {
        final Map<String, String> values = new LinkedHashMap<>();
        final Map<String, Integer> lines = new LinkedHashMap<>();
        for (int i = 0; i < text.size(); i++)
        {
            // A byte-order mark (an editor's, before the first line) is no part of the first key.
            final String raw = i == 0 && text.get(i).startsWith("\uFEFF") ? text.get(i).substring(1) : text.get(i);
            final String line = stripComment(raw).trim();
            if (line.isEmpty())
            {
                continue;
            }
            final int equals = line.indexOf('=');
            if (equals <= 0)
            {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": '" + line + "' is not 'key = value'");
            }
            final String key = line.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            final String value = line.substring(equals + 1).trim();
            if (value.isEmpty())
            {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": '" + key + "' has no value; give one, " +
                    "or leave the line out for the default");
            }
            if (null != values.putIfAbsent(key, value))
            {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": '" + key + "' is set twice (first on " +
                    "line " + lines.get(key) + ")");
            }
            lines.put(key, i + 1);
        }
        return new ConfigFile(file, values, lines);
    }

    /**
     * @param value a value to write as {@code key = value}.
     * @return whether a config file's line reads it back unchanged: no line break, no white space
     *         at its ends (trimmed), no {@code #} after white space (a comment there).
     */
    public static boolean readsBack(final String value)
    {
        return value.indexOf('\n') < 0 && value.indexOf('\r') < 0 && value.strip().equals(value) &&
            stripComment(value).equals(value);
    }

    /** @return the line up to its comment: a {@code #} that starts the line or follows white space. */
    private static String stripComment(final String line)
    {
        for (int i = line.indexOf('#'); i >= 0; i = line.indexOf('#', i + 1))
        {
            if (i == 0 || Character.isWhitespace(line.charAt(i - 1)))
            {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /**
     * @return the file.
     */
    public Path file()
    {
        return file;
    }

    /**
     * @param key a key.
     * @return whether it is set.
     */
    public boolean has(final String key)
    {
        return values.containsKey(key);
    }

    /**
     * @param prefix e.g. {@code "session."}.
     * @return the keys that start with it, in file order.
     */
    public List<String> keysStartingWith(final String prefix)
    {
        final List<String> keys = new ArrayList<>();
        for (final String key : values.keySet())
        {
            if (key.startsWith(prefix))
            {
                keys.add(key);
            }
        }
        return keys;
    }

    /**
     * @param key     a key the role requires.
     * @param allowed what it takes, for the refusal.
     * @return its value.
     * @throws IllegalArgumentException when it is missing or empty.
     */
    public String required(final String key, final String allowed)
    {
        final String value = values.get(key);
        read.add(key);
        if (null == value || value.isEmpty())
        {
            throw new IllegalArgumentException(file + ": '" + key + "' is not set; it takes " + allowed);
        }
        return value;
    }

    /**
     * @param key          a key.
     * @param defaultValue what it is when missing.
     * @return its value, or the default.
     */
    public String optional(final String key, final String defaultValue)
    {
        read.add(key);
        final String value = values.get(key);
        return null == value || value.isEmpty() ? defaultValue : value;
    }

    /**
     * @param key          a key.
     * @param defaultValue what it is when missing.
     * @param min          the smallest allowed.
     * @param max          the largest allowed.
     * @return its value, a whole number in range.
     * @throws IllegalArgumentException naming the line and the range.
     */
    public long number(final String key, final long defaultValue, final long min, final long max)
    {
        final String value = optional(key, null);
        if (null == value)
        {
            return defaultValue;
        }
        try
        {
            final long parsed = Long.parseLong(value.replace("_", ""));
            if (parsed >= min && parsed <= max)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // refused below, with the range
        }
        throw refusal(key, "'" + value + "' is not allowed; allowed: " + min + " to " + max);
    }

    /**
     * @param key a key whose value is a comma list.
     * @return the trimmed elements, none empty; an empty list when the key is missing.
     */
    public List<String> list(final String key)
    {
        final String value = optional(key, "");
        if (value.isEmpty())
        {
            return List.of();
        }
        final List<String> elements = new ArrayList<>();
        for (final String element : value.split(","))
        {
            if (!element.isBlank())
            {
                elements.add(element.trim());
            }
        }
        return Collections.unmodifiableList(elements);
    }

    /**
     * @param key a key whose value is {@code host:port}.
     * @return the address, checked.
     * @throws IllegalArgumentException when it is missing or not an address.
     */
    public String address(final String key)
    {
        final String value = required(key, "host:port");
        try
        {
            EndpointAddress.parse(key, value, false);
            return value;
        }
        catch (final IllegalArgumentException ex)
        {
            throw refusal(key, ex.getMessage());
        }
    }

    /**
     * @param key a key whose value is a path.
     * @return it, relative to the file's directory unless absolute.
     */
    public Path path(final String key)
    {
        return resolve(required(key, "a path"));
    }

    /**
     * @param value a path as written.
     * @return it, relative to the file's directory unless absolute.
     */
    public Path resolve(final String value)
    {
        final Path path = Path.of(value);
        final Path base = file.toAbsolutePath().getParent();
        return path.isAbsolute() || null == base ? path : base.resolve(path);
    }

    /**
     * @param key     the key.
     * @param problem what is wrong with its value.
     * @return the refusal, naming the file and line.
     */
    public IllegalArgumentException refusal(final String key, final String problem)
    {
        final Integer line = lines.get(key);
        return new IllegalArgumentException(file + (null == line ? "" : ":" + line) + ": " + key + ": " + problem);
    }

    /**
     * Refuses keys the role never read: a typo, or a key of another role.
     *
     * @param role the role, for the message.
     * @throws IllegalArgumentException naming the first such key and its line.
     */
    public void rejectUnknownKeys(final String role)
    {
        for (final String key : values.keySet())
        {
            if (!read.contains(key))
            {
                throw new IllegalArgumentException(file + ":" + lines.get(key) + ": '" + key + "' is not a key of the " +
                    role + " role (a typo, or another role's key?)");
            }
        }
    }
}
