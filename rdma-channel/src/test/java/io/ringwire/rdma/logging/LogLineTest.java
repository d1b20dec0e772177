package io.ringwire.rdma.logging;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RingWire's one log format and threshold: a line names level, component and message, keeps every
 * cause of the chain on the same line, and nothing below the threshold is written.
 */
class LogLineTest
{
    @Test
    void aLineNamesLevelComponentAndMessageWithoutDateOrClassHeader()
    {
        assertEquals("WARN ConnectionListener: refused 10.0.0.7",
            LogLine.format(Level.WARNING, "io.ringwire.rdma.cm.ConnectionListener", "refused 10.0.0.7", null));
        assertEquals("ERROR ringwire: ", LogLine.format(Level.ERROR, "", null, null));
    }

    @Test
    void everyCauseOfTheChainIsKeptOnTheSameLine()
    {
        final IOException root = new SocketException("Connection reset");
        final Throwable thrown = new UncheckedIOException("cannot read the handshake", new IOException("read failed", root));
        final String line = LogLine.format(Level.WARNING, "x.Listener", "dropped a peer", thrown);
        assertEquals("WARN Listener: dropped a peer (cause: java.io.UncheckedIOException: cannot read the handshake; " +
            "caused by: java.io.IOException: read failed; caused by: java.net.SocketException: Connection reset)", line);
    }

    @Test
    void aMultiLineMessageStaysOneLine()
    {
        final String line = LogLine.format(Level.ERROR, "a.B", "first\nsecond", new IllegalStateException("x\ny"));
        assertFalse(line.contains("\n"), line);
        assertTrue(line.startsWith("ERROR B: first second"), line);
    }

    @Test
    void theThresholdDefaultsToWarningAndRefusesANameThatIsNoLevel()
    {
        assertEquals(Level.WARNING, LogLevel.parse(null));
        assertEquals(Level.DEBUG, LogLevel.parse(" Debug "));
        assertEquals(Level.OFF, LogLevel.parse("off"));
        final IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
            () -> LogLevel.parse("loud"));
        assertTrue(refusal.getMessage().contains("ringwire.log.level='loud'"), refusal.getMessage());
        assertTrue(refusal.getMessage().contains(LogLevel.ALLOWED), refusal.getMessage());
    }

    @Test
    void aLoggerWritesNothingBelowItsThresholdAndOneLineAtOrAbove()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream target = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final System.Logger logger = new RingWireLoggerFinder.ConsoleLogger("io.ringwire.Demo", Level.WARNING, false,
            target);
        logger.log(Level.INFO, "routine");
        logger.log(Level.DEBUG, () -> "detail");
        logger.log(Level.WARNING, "ring {0} refused: {1}", 3, "too large");
        logger.log(Level.ERROR, "failed", new IOException("disk full"));
        assertEquals("WARN Demo: ring 3 refused: too large" + System.lineSeparator() +
            "ERROR Demo: failed (cause: java.io.IOException: disk full)" + System.lineSeparator(),
            bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theProcessWideLoggerFinderIsRingWires()
    {
        assertInstanceOf(RingWireLoggerFinder.class, System.LoggerFinder.getLoggerFinder());
        assertFalse(System.getLogger("io.ringwire.Any").isLoggable(Level.INFO), "INFO is off by default");
        assertTrue(System.getLogger("io.ringwire.Any").isLoggable(Level.WARNING));
    }
}
