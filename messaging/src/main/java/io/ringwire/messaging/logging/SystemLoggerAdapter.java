package io.ringwire.messaging.logging;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger over a {@link System.Logger} of the same name: SLF4J's levels map to the JDK's
 * (TRACE, DEBUG, INFO, WARN to WARNING, ERROR), its {@code {}} patterns are formatted here, and a
 * throwable is passed on as the event's cause, not folded into a string.
 *
 * <p>Threading: any thread, as the System.Logger it wraps.
 */
final class SystemLoggerAdapter extends LegacyAbstractLogger
{
    private static final long serialVersionUID = 1L;

    private final transient System.Logger target;

    /**
     * @param name the logger's name, usually a class name.
     */
    SystemLoggerAdapter(final String name)
    {
        this.name = name;
        this.target = System.getLogger(name);
    }

    @Override
    public boolean isTraceEnabled()
    {
        return target.isLoggable(System.Logger.Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled()
    {
        return target.isLoggable(System.Logger.Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled()
    {
        return target.isLoggable(System.Logger.Level.INFO);
    }

    @Override
    public boolean isWarnEnabled()
    {
        return target.isLoggable(System.Logger.Level.WARNING);
    }

    @Override
    public boolean isErrorEnabled()
    {
        return target.isLoggable(System.Logger.Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName()
    {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(final Level level, final Marker marker, final String messagePattern,
        final Object[] arguments, final Throwable throwable)
    {
        final System.Logger.Level jdkLevel = jdkLevel(level);
        if (target.isLoggable(jdkLevel))
        {
            target.log(jdkLevel, MessageFormatter.basicArrayFormat(messagePattern, arguments), throwable);
        }
    }

    /**
     * @param level an SLF4J level.
     * @return the JDK's level of the same severity.
     */
    static System.Logger.Level jdkLevel(final Level level)
    {
        return switch (level)
        {
            case TRACE -> System.Logger.Level.TRACE;
            case DEBUG -> System.Logger.Level.DEBUG;
            case INFO -> System.Logger.Level.INFO;
            case WARN -> System.Logger.Level.WARNING;
            case ERROR -> System.Logger.Level.ERROR;
        };
    }
}
