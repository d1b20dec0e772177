package io.ringwire.rdma.logging;

import java.lang.System.Logger.Level;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The one format of a RingWire log line: {@code LEVEL component: message}, then, when the event has
 * a cause, {@code (cause: Type: message; caused by: Type: message)}, with every cause of the chain,
 * on the same line. A line has no date and no class header: the process is the context, and a
 * supervisor stamps the time. Pure.
 */
public final class LogLine
{
    /** What a line starts with after its level, so a reader can tell a log line from a command's output. */
    static final String SEPARATOR = ": ";

    private LogLine()
    {
    }

    /**
     * @param level      the event's level.
     * @param loggerName the logger's name: a class name, or any dotted name.
     * @param message    what happened (null reads as an empty message).
     * @param thrown     its cause, or null.
     * @return the line, without a line separator.
     */
    public static String format(final Level level, final String loggerName, final String message, final Throwable thrown)
    {
        final StringBuilder line = new StringBuilder(128)
            .append(LogLevel.label(level)).append(' ')
            .append(component(loggerName)).append(SEPARATOR)
            .append(null == message ? "" : oneLine(message));
        if (null != thrown)
        {
            appendCauses(line, thrown);
        }
        return line.toString();
    }

    /**
     * @param loggerName {@code io.ringwire.rdma.cm.ConnectionListener}.
     * @return {@code ConnectionListener}: the last part of a dotted name, the name itself otherwise.
     */
    static String component(final String loggerName)
    {
        if (null == loggerName || loggerName.isEmpty())
        {
            return "ringwire";
        }
        final int dot = loggerName.lastIndexOf('.');
        return dot >= 0 && dot < loggerName.length() - 1 ? loggerName.substring(dot + 1) : loggerName;
    }

    private static void appendCauses(final StringBuilder line, final Throwable thrown)
    {
        final Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        line.append(" (cause: ");
        Throwable cause = thrown;
        boolean first = true;
        while (null != cause && null == seen.put(cause, Boolean.TRUE))
        {
            if (!first)
            {
                line.append("; caused by: ");
            }
            line.append(cause.getClass().getName());
            if (null != cause.getMessage())
            {
                line.append(": ").append(oneLine(cause.getMessage()));
            }
            first = false;
            cause = cause.getCause();
        }
        line.append(')');
    }

    private static String oneLine(final String text)
    {
        return text.indexOf('\n') < 0 && text.indexOf('\r') < 0 ? text :
            text.replace("\r\n", " / ").replace('\n', ' ').replace('\r', ' ');
    }
}
