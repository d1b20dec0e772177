package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user sees from {@code ringwire demo}: the command's own output, in a process of its own,
 * with no line from a logging framework (SLF4J's provider warnings, java.util.logging's date and
 * class header, or any log line at all on a run where nothing went wrong).
 */
@Tag("system")
class DemoOutputTest
{
    private static final long TIMEOUT_SECONDS = 120;
    private static final List<Pattern> LOGGING_LINES = List.of(
        Pattern.compile("SLF4J"),
        Pattern.compile("^[A-Z][a-z]{2} \\d{1,2}, \\d{4} \\d{1,2}:\\d{2}:\\d{2} [AP]M "),
        Pattern.compile("^(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): "),
        Pattern.compile("^(ERROR|WARN|INFO|DEBUG|TRACE) \\S+: "),
        Pattern.compile("^\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}"),
        Pattern.compile("^\\d{2}:\\d{2}:\\d{2}[.,]\\d{3} "),
        Pattern.compile("^\\s+at [\\w$.]+\\("));

    @Test
    void aOneSecondDemoPrintsItsOwnOutputAndNoLineFromALoggingFramework() throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!argument.startsWith("-agentlib") && !argument.startsWith("-javaagent"))
            {
                command.add(argument);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ExchangeDemo.class.getName(),
            "--seconds", "1"));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        final byte[] bytes = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the demo ended");
        final String output = new String(bytes, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("checks            passed"), output);
        // The drain after the run keeps every session: the clients heartbeat while it lasts.
        assertTrue(output.contains(" 0 cancel-on-disconnect"), output);
        for (final String line : output.split("\\R"))
        {
            for (final Pattern logging : LOGGING_LINES)
            {
                assertTrue(!logging.matcher(line).find(), "a logging framework's line: '" + line + "' in:\n" + output);
            }
        }
    }
}
