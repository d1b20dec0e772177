package io.ringwire.messaging.logging;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * What a library logs through SLF4J (OpenHFT affinity) takes RingWire's path: the same one-line
 * format and threshold, the throwable kept as the cause, and no SLF4J warning of its own.
 */
class Slf4jServiceProviderTest
{
    @Test
    void slf4jEventsBecomeRingWireLinesWithTheirCauseAndBelowWarningNothing()
    {
        final PrintStream saved = System.err;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            final Logger logger = LoggerFactory.getLogger("net.openhft.affinity.AffinityLock");
            assertInstanceOf(SystemLoggerAdapter.class, logger, "SLF4J found RingWire's provider");
            logger.info("Assigning cpu {} to {}", 1, "engine");
            logger.debug("detail");
            logger.warn("Unable to set affinity of {}", "engine", new IOException("EPERM"));
        }
        finally
        {
            System.setErr(saved);
        }
        assertEquals("WARN AffinityLock: Unable to set affinity of engine (cause: java.io.IOException: EPERM)" +
            System.lineSeparator(), bytes.toString(StandardCharsets.UTF_8));
        assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("SLF4J"));
    }
}
