package io.ringwire.rdma.logging;

import java.io.PrintStream;
import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.util.ResourceBundle;
import java.util.function.Supplier;

/**
 * The JDK's logger finder for the whole process, found through {@code META-INF/services}: every
 * {@link System#getLogger(String)} (RingWire's code, the SLF4J bridge, the JDK's own) returns a
 * {@link ConsoleLogger} that writes {@link LogLine}s to stderr at or above {@link LogLevel}'s
 * threshold, so there is one path and one format instead of java.util.logging's two-line records.
 *
 * <p>Set {@code -Dringwire.log.stacktraces=true} to follow a line with its cause's stack trace.
 *
 * <p>Threading: any thread; a line is written with one {@code println}, so lines do not interleave.
 */
public final class RingWireLoggerFinder extends System.LoggerFinder
{
    /** The system property that adds stack traces after lines with a cause. */
    public static final String STACK_TRACES_PROPERTY = "ringwire.log.stacktraces";

    private final Level threshold;
    private final boolean stackTraces;

    /**
     * Reads the threshold and the stack-trace switch from the system properties; a threshold that
     * is no level falls back to WARNING and says so once, since a logger finder must not fail.
     */
    public RingWireLoggerFinder()
    {
        Level level;
        try
        {
            level = LogLevel.parse(System.getProperty(LogLevel.PROPERTY));
        }
        catch (final IllegalArgumentException ex)
        {
            level = Level.WARNING;
            System.err.println(LogLine.format(Level.WARNING, RingWireLoggerFinder.class.getName(),
                ex.getMessage() + "; logging at warn", null));
        }
        this.threshold = level;
        this.stackTraces = Boolean.getBoolean(STACK_TRACES_PROPERTY);
    }

    @Override
    public System.Logger getLogger(final String name, final Module module)
    {
        return new ConsoleLogger(name, threshold, stackTraces, null);
    }

    /**
     * A logger writing {@link LogLine}s.
     */
    static final class ConsoleLogger implements System.Logger
    {
        private final String name;
        private final Level threshold;
        private final boolean stackTraces;
        private final PrintStream target;

        /**
         * @param name        the logger's name.
         * @param threshold   the least severe level written.
         * @param stackTraces whether a cause's stack trace follows its line.
         * @param target      where lines go; null for the current {@link System#err}.
         */
        ConsoleLogger(final String name, final Level threshold, final boolean stackTraces, final PrintStream target)
        {
            this.name = name;
            this.threshold = threshold;
            this.stackTraces = stackTraces;
            this.target = target;
        }

        @Override
        public String getName()
        {
            return name;
        }

        @Override
        public boolean isLoggable(final Level level)
        {
            return level != Level.OFF && threshold != Level.OFF && level.getSeverity() >= threshold.getSeverity();
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String message, final Throwable thrown)
        {
            if (isLoggable(level))
            {
                write(level, localized(bundle, message), thrown);
            }
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String format, final Object... params)
        {
            if (isLoggable(level))
            {
                final String pattern = localized(bundle, format);
                write(level, null == params || params.length == 0 || null == pattern ? pattern :
                    MessageFormat.format(pattern, params), null);
            }
        }

        @Override
        public void log(final Level level, final Supplier<String> messageSupplier)
        {
            if (isLoggable(level))
            {
                write(level, messageSupplier.get(), null);
            }
        }

        @Override
        public void log(final Level level, final Supplier<String> messageSupplier, final Throwable thrown)
        {
            if (isLoggable(level))
            {
                write(level, messageSupplier.get(), thrown);
            }
        }

        private void write(final Level level, final String message, final Throwable thrown)
        {
            final PrintStream out = null != target ? target : System.err;
            out.println(LogLine.format(level, name, message, thrown));
            if (stackTraces && null != thrown)
            {
                thrown.printStackTrace(out);
            }
        }

        private static String localized(final ResourceBundle bundle, final String key)
        {
            if (null != bundle && null != key && bundle.containsKey(key))
            {
                return bundle.getString(key);
            }
            return key;
        }
    }
}
