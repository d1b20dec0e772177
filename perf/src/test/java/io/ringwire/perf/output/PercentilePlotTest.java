package io.ringwire.perf.output;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PercentilePlotTest
{
    @Test
    void theLogAxisIsLabelledWithTheNinesOfItsPercentiles()
    {
        assertEquals("0%", PercentilePlot.percentileLabel(1));
        assertEquals("90%", PercentilePlot.percentileLabel(10));
        assertEquals("99%", PercentilePlot.percentileLabel(100));
        assertEquals("99.9%", PercentilePlot.percentileLabel(1_000));
        assertEquals("99.999%", PercentilePlot.percentileLabel(100_000));
    }

    @Test
    void theDefaultDirectoryIsPerfResultsUnderTheRepositoryFoundFromInsideIt(@TempDir final Path repository)
        throws IOException
    {
        Files.createDirectories(repository.resolve("perf"));
        Files.writeString(repository.resolve("perf/pom.xml"), "<project/>");
        final LocalDateTime now = LocalDateTime.of(2026, 11, 26, 9, 5, 7);

        final Path fromModule = ResultsWriter.defaultDirectory(repository.resolve("perf"), now);
        final Path fromRoot = ResultsWriter.defaultDirectory(repository, now);

        assertEquals(repository.resolve("perf/results/2026-11-26T09-05-07"), fromModule);
        assertEquals(fromModule, fromRoot, "the same folder from the repository and from the module");
    }
}
