package io.ringwire.perf.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A smoke pass over every JMH benchmark: each runs in this JVM (no fork) for one short warm-up and
 * one short measurement iteration and yields a positive score. It proves the benchmarks run and
 * measure something, not how fast anything is: figures come from {@code ringwire perf jmh} runs.
 */
class JmhSmokeTest
{
    private static final Set<String> BENCHMARKS = Set.of(
        "SbeCodecBenchmark.encodeNewOrder", "SbeCodecBenchmark.decodeNewOrder", "SbeCodecBenchmark.validateNewOrder",
        "SbeCodecBenchmark.encodeExecutionReport", "SbeCodecBenchmark.decodeExecutionReport",
        "SbeCodecBenchmark.validateExecutionReport", "FrameBenchmark.append", "FrameBenchmark.read",
        "ShmPublicationBenchmark.offerThenPoll", "OrderBookBenchmark.addThenCancel", "OrderBookBenchmark.addThenMatch");

    @Test
    void everyBenchmarkRunsAndScoresAboveZero() throws Exception
    {
        final Options options = new OptionsBuilder()
            .include(JmhSmokeTest.class.getPackageName() + ".*Benchmark")
            .forks(0)
            .warmupIterations(1)
            .warmupTime(TimeValue.milliseconds(100))
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT)
            .build();
        final Collection<RunResult> results = new Runner(options).run();
        final Set<String> ran = new TreeSet<>();
        for (final RunResult result : results)
        {
            final String label = result.getParams().getBenchmark();
            final String name = label.substring(label.lastIndexOf('.', label.lastIndexOf('.') - 1) + 1);
            ran.add(name);
            final double score = result.getPrimaryResult().getScore();
            assertTrue(score > 0 && !Double.isNaN(score), name + " scored " + score);
        }
        assertEquals(new TreeSet<>(BENCHMARKS), ran);
    }
}
