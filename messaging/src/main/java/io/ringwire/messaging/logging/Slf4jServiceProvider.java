package io.ringwire.messaging.logging;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * SLF4J 2's provider, found through {@code META-INF/services}: its loggers hand every event to
 * {@link System#getLogger(String)}, which RingWire's logger finder answers, so a library that logs
 * through SLF4J writes the same one-line format at the same threshold as RingWire's own code. No MDC:
 * RingWire's lines carry their context in the message.
 */
public final class Slf4jServiceProvider implements SLF4JServiceProvider
{
    /** The SLF4J API generation this provider implements. */
    private static final String REQUESTED_API_VERSION = "2.0.99";

    private ILoggerFactory loggerFactory;
    private IMarkerFactory markerFactory;
    private MDCAdapter mdcAdapter;

    @Override
    public ILoggerFactory getLoggerFactory()
    {
        return loggerFactory;
    }

    @Override
    public IMarkerFactory getMarkerFactory()
    {
        return markerFactory;
    }

    @Override
    public MDCAdapter getMDCAdapter()
    {
        return mdcAdapter;
    }

    @Override
    public String getRequestedApiVersion()
    {
        return REQUESTED_API_VERSION;
    }

    @Override
    public void initialize()
    {
        loggerFactory = SystemLoggerAdapter::new;
        markerFactory = new BasicMarkerFactory();
        mdcAdapter = new NOPMDCAdapter();
    }
}
