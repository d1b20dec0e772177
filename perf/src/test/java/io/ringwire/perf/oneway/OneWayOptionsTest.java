package io.ringwire.perf.oneway;

import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.throughput.ThroughputOptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command lines of {@code oneway} and {@code throughput}: defaults, values, and refusals that
 * name the option.
 */
class OneWayOptionsTest
{
    @Test
    void onewayDefaultsToMessagingOverShmSocketAndRoceWithOneMessageInFlight()
    {
        final OneWayOptions options = OneWayOptions.parse();

        assertEquals(List.of("shm", "socket", "roce"), options.providers());
        assertEquals("messaging", options.api());
        assertEquals(0, options.rate());
    }

    @Test
    void onewayReadsItsValues()
    {
        final OneWayOptions options = OneWayOptions.parse("--provider", "socket", "--size=256", "--messages", "500",
            "--warmup", "0", "--rate", "20000", "--json", "--out", "r");

        assertEquals(List.of("socket"), options.providers());
        assertEquals(256, options.size());
        assertEquals(500, options.messages());
        assertEquals(0, options.warmup());
        assertEquals(20_000, options.rate());
        assertTrue(options.json());
        assertEquals("r", options.out());
    }

    @Test
    void theChannelApiIsRefusedByNameUntilItIsMeasuredOneWay()
    {
        final UsageException refusal = assertThrows(UsageException.class,
            () -> OneWayOptions.parse("--api", "channel"));

        assertTrue(refusal.getMessage().contains("--api channel is not measured one-way yet"), refusal.getMessage());
    }

    @Test
    void throughputReadsSizesAndTheSweepAndTakesOneProvider()
    {
        final ThroughputOptions options = ThroughputOptions.parse("--provider", "roce", "--sizes", "32, 1024",
            "--seconds", "2", "--sweep-steps", "3", "--sweep-start", "5000");

        assertEquals("roce", options.provider());
        assertEquals(List.of(32, 1024), options.sizes());
        assertEquals(2, options.seconds());
        assertEquals(3, options.sweepSteps());
        assertEquals(5000, options.sweepStartRate());
        assertThrows(UsageException.class, () -> ThroughputOptions.parse("--provider", "shm,socket"));
    }

    @Test
    void aSizeThatIsNotANumberIsRefusedNamingSizes()
    {
        final UsageException refusal = assertThrows(UsageException.class,
            () -> ThroughputOptions.parse("--sizes", "32,big"));

        assertTrue(refusal.getMessage().startsWith("--sizes 'big' is not a size"), refusal.getMessage());
    }

    @Test
    void sizesThatAreFloodsOfOneLengthAreRefused()
    {
        final UsageException below = assertThrows(UsageException.class,
            () -> ThroughputOptions.parse("--sizes", "16,32"));
        assertTrue(below.getMessage().contains("16 and 32 are both floods of"), below.getMessage());
        assertThrows(UsageException.class, () -> ThroughputOptions.parse("--sizes", "256,256"));
    }
}
