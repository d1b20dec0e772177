package io.ringwire.perf.cli;

import io.ringwire.rdma.config.Settings;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the options of one {@code ringwire perf} command line, {@code --name value} or
 * {@code --name=value}, one at a time, for the options record of each command. An option
 * takes the argument after it only when it asks for a value, numbers are parsed by {@link Settings},
 * and every refusal is a {@link UsageException} naming the option and what it allows.
 *
 * <p>Threading: one thread, one command line.
 */
public final class OptionReader
{
    private final String[] args;
    /** Options read so far: one given twice is refused, not settled by which came last. */
    private final Set<String> seen = new HashSet<>();
    private int nextIndex;
    private String arg;
    private String name;
    private String inlineValue;
    private boolean helpAsked;

    /**
     * @param args the arguments after the benchmark's name.
     */
    public OptionReader(final String... args)
    {
        this.args = args;
    }

    /**
     * Moves to the next option, past the value the current one took; {@code --help} and {@code -h},
     * which every command takes, are noted for {@link #helpAsked()} and passed over.
     *
     * @return false when there is none.
     * @throws UsageException when an option is given a second time.
     */
    public boolean next()
    {
        while (nextIndex < args.length)
        {
            arg = args[nextIndex++];
            final int equals = arg.indexOf('=');
            final boolean joined = arg.startsWith("--") && equals > 0;
            name = joined ? arg.substring(0, equals) : arg;
            inlineValue = joined ? arg.substring(equals + 1) : null;
            if (!"--help".equals(name) && !"-h".equals(name))
            {
                if (name.startsWith("--") && !seen.add(name))
                {
                    throw new UsageException(name + " is given twice");
                }
                return true;
            }
            helpAsked = true;
        }
        return false;
    }

    /**
     * @return whether {@code --help} or {@code -h} was among the options read so far.
     */
    public boolean helpAsked()
    {
        return helpAsked;
    }

    /**
     * @return the option's name: {@code --size} of {@code --size=32} or of {@code --size}; any other
     *         argument as it is.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return true, for an option that is a flag.
     * @throws UsageException when it was given a value.
     */
    public boolean flag()
    {
        if (null != inlineValue)
        {
            throw new UsageException(name + " takes no value (got '" + inlineValue + "')");
        }
        return true;
    }

    /**
     * @param allowed what the option takes, for the refusal ("bytes", "a directory").
     * @return its value: after '=', or the next argument, which the option then takes.
     * @throws UsageException when there is no value (the next argument is another option).
     */
    public String value(final String allowed)
    {
        if (null != inlineValue)
        {
            return inlineValue;
        }
        if (nextIndex >= args.length || args[nextIndex].startsWith("--"))
        {
            throw new UsageException(name + " needs a value: " + allowed);
        }
        return args[nextIndex++];
    }

    /**
     * @param example a directory the option could take, for the refusal.
     * @return its value, a directory's path.
     * @throws UsageException when there is none, or it is blank (it would name the working directory).
     */
    public String directory(final String example)
    {
        final String value = value("a directory");
        if (value.isBlank())
        {
            throw new UsageException(name + " needs a directory, e.g. " + example);
        }
        return value;
    }

    /**
     * The directory a run's results go to, checked before the run: one that exists as a file, or
     * under a file or a directory this user cannot write in, would fail only once the run is over.
     *
     * @param example a directory to name in a refusal.
     * @return the value, a directory that exists or can be made.
     * @throws UsageException when it is missing, blank, or cannot take the results.
     */
    public String outputDirectory(final String example)
    {
        final String value = directory(example);
        final Path path;
        try
        {
            path = Path.of(value).toAbsolutePath();
        }
        catch (final InvalidPathException ex)
        {
            throw new UsageException(name + " '" + value + "' is not a path: " + ex.getReason());
        }
        Path existing = path;
        while (null != existing && !Files.exists(existing))
        {
            existing = existing.getParent();
        }
        if (null != existing && (!Files.isDirectory(existing) || !Files.isWritable(existing)))
        {
            throw new UsageException(name + " '" + value + "' cannot take the results: " + existing +
                (Files.isDirectory(existing) ? " is not writable" : " is not a directory"));
        }
        return value;
    }

    /**
     * @param needed what the option takes, for a missing value ("bytes", "a count").
     * @param min    the smallest allowed.
     * @param max    the largest allowed.
     * @param unit   what the number counts, for a refusal ("bytes", "round trips").
     * @return the value, a whole number from {@code min} to {@code max}.
     * @throws UsageException when it is missing, not a number or out of range.
     */
    public long number(final String needed, final long min, final long max, final String unit)
    {
        final String value = value(needed);
        try
        {
            return Settings.parseLong(name, value, min, max, min + " to " + max + " " + unit);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
    }

    /**
     * {@link #number} for a value that fits an int.
     *
     * @param needed what the option takes, for a missing value.
     * @param min    the smallest allowed.
     * @param max    the largest allowed.
     * @param unit   what the number counts, for a refusal.
     * @return the value.
     */
    public int intNumber(final String needed, final int min, final int max, final String unit)
    {
        return (int)number(needed, min, max, unit);
    }

    /**
     * Reads a comma list of names, each at most once, in the order given (trimmed, lower case).
     *
     * @param allowed the names allowed.
     * @param problem what a name not allowed is, for its refusal ("is not a transport").
     * @param example a valid list, for that refusal.
     * @return the names.
     * @throws UsageException naming a name not allowed, or one listed twice.
     */
    public List<String> names(final List<String> allowed, final String problem, final String example)
    {
        final String value = value("a comma list of " + String.join(", ", allowed));
        final List<String> names = new ArrayList<>();
        for (final String raw : value.split(",", -1))
        {
            final String element = raw.trim().toLowerCase(Locale.ROOT);
            if (!allowed.contains(element))
            {
                throw new UsageException(name + " '" + raw.trim() + "' " + problem + "; allowed: " +
                    String.join(", ", allowed) + " (several as a comma list, e.g. " + example + ")");
            }
            if (names.contains(element))
            {
                throw new UsageException(name + " lists '" + element + "' twice in '" + value + "'");
            }
            names.add(element);
        }
        return names;
    }

    /**
     * @param allowed the options the command takes, for the refusal.
     * @return the refusal of the current argument as an unknown option, for the caller to throw.
     */
    public UsageException unknown(final String allowed)
    {
        return new UsageException("unknown option '" + arg + "'; allowed: " + allowed);
    }

    /**
     * The check of a record built without the parser: a list option must name something.
     *
     * @param option  the option, for the refusal.
     * @param values  what it names.
     * @param allowed what it allows.
     * @return an unmodifiable copy of {@code values}.
     * @throws UsageException when {@code values} is empty.
     */
    public static List<String> atLeastOne(final String option, final List<String> values, final List<String> allowed)
    {
        if (values.isEmpty())
        {
            throw new UsageException(option + " needs at least one of " + String.join(", ", allowed));
        }
        return List.copyOf(values);
    }
}
