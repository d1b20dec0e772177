package io.ringwire.rdma.logging;

import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * The threshold of RingWire's logging path, from {@value #PROPERTY}: the least severe level written.
 * Parsed once; a value that is no level is refused with the allowed ones.
 */
public final class LogLevel
{
    /** The system property that sets the threshold. */
    public static final String PROPERTY = "ringwire.log.level";
    /** What the property accepts, for its refusal. */
    public static final String ALLOWED = "off, error, warn, info, debug, trace, all";

    private LogLevel()
    {
    }

    /**
     * @param value the property's value, or null for the default.
     * @return the threshold: {@link Level#WARNING} when {@code value} is null or blank.
     * @throws IllegalArgumentException naming the property and the allowed values.
     */
    public static Level parse(final String value)
    {
        if (null == value || value.isBlank())
        {
            return Level.WARNING;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT))
        {
            case "off" -> Level.OFF;
            case "error" -> Level.ERROR;
            case "warn", "warning" -> Level.WARNING;
            case "info" -> Level.INFO;
            case "debug" -> Level.DEBUG;
            case "trace" -> Level.TRACE;
            case "all" -> Level.ALL;
            default -> throw new IllegalArgumentException(PROPERTY + "='" + value + "' is not a level; allowed: " +
                ALLOWED);
        };
    }

    /**
     * @param level a level.
     * @return its name in a log line: ERROR, WARN, INFO, DEBUG, TRACE.
     */
    static String label(final Level level)
    {
        return switch (level)
        {
            case ERROR -> "ERROR";
            case WARNING -> "WARN";
            case INFO -> "INFO";
            case DEBUG -> "DEBUG";
            case TRACE, ALL -> "TRACE";
            case OFF -> "OFF";
        };
    }
}
