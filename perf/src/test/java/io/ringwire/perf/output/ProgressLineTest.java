package io.ringwire.perf.output;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressLineTest
{
    private static final long S = 1_000_000_000L;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String printed()
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aRunIsQuietForItsFirstTwoSecondsThenPrintsOnceASecondWithCountShareTimeAndRate()
    {
        final ProgressLine progress = new ProgressLine("shm channel", "round trips", 10_000_000, out, 0);
        assertFalse(progress.update(1_000_000, S), "1 s in");
        assertFalse(progress.update(1_900_000, 2 * S - 1), "just under 2 s in");
        assertTrue(progress.update(2_000_000, 2 * S));
        assertEquals("shm channel: 2,000,000 of 10,000,000 round trips (20%), 2 s, 1,000,000/s\n", printed());
        assertFalse(progress.update(2_500_000, 2 * S + S / 2), "half a second after the last line");
        assertTrue(progress.update(5_000_000, 3 * S));
        assertTrue(printed().endsWith("shm channel: 5,000,000 of 10,000,000 round trips (50%), 3 s, 3,000,000/s\n"),
            "the rate is over the last second, not the whole run: " + printed());
        assertEquals(2, progress.lines());
    }

    @Test
    void groupsOfThreeDigitsAreSeparatedAsPercentCommaDDoes()
    {
        for (final long value : new long[] { 0, 7, 999, 1000, 1001, 12_345, 100_000, 1_000_070, 10_200_000,
            Long.MAX_VALUE, -1_234_567 })
        {
            assertEquals(String.format(java.util.Locale.ROOT, "%,d", value),
                ProgressLine.appendGrouped(new StringBuilder(), value).toString());
        }
    }

    @Test
    void aFinishedRunPrintsNoMoreLines()
    {
        final ProgressLine progress = new ProgressLine("roce messaging", "round trips", 100, out, 0);
        assertFalse(progress.update(100, 5 * S));
        assertEquals("", printed());
        assertEquals(0, progress.lines());
    }
}
