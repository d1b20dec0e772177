package io.ringwire.messaging.system;

import io.ringwire.messaging.status.RingWireStat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.ringwire.messaging.system.ChildProcess.longValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ringwire stat} (its main, in a process of its own) prints the live counters of every
 * running RingWire process, snapshot after snapshot, like AeronStat.
 */
@Tag("system")
class StatSystemTest
{
    private static final long SEED = 0x57A7L;
    private static final int MESSAGES = 2000;
    private static final Pattern COUNTER = Pattern.compile("^\\s+\\d+\\s+([\\d,]+)\\s+(.*)$");

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void statPrintsTheCountersOfEveryRunningProcessAtEachInterval()
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        try (ChildProcess subscriber = ChildProcess.start("subscriber", directory, settings, SubscriberProcess.class,
                "provider=shm", "seed=" + SEED, "count=" + MESSAGES, "sizes=mixed", "timeoutMs=60000"))
        {
            final int port = (int)longValue(subscriber.awaitLine("READY", Duration.ofSeconds(30)), "port");
            try (ChildProcess publisher = ChildProcess.start("publisher", directory, settings, PublisherProcess.class,
                "provider=shm", "ports=" + port, "seed=" + SEED, "count=" + MESSAGES, "sizes=mixed", "timeoutMs=60000"))
            {
                publisher.awaitLine("DONE", Duration.ofSeconds(60));
                final String result = subscriber.awaitLine("RESULT", Duration.ofSeconds(60));
                assertTrue(result.startsWith("RESULT ok"), result);

                final int snapshots = 3;
                try (ChildProcess stat = ChildProcess.start("stat", directory, settings, RingWireStat.class,
                    "--dir", settings.countersDirectory().toString(), "--interval", "200", "--count", "" + snapshots))
                {
                    assertEquals(0, stat.exit(Duration.ofSeconds(30)), "stat exit code" + stat.diagnostics());
                    final List<String> lines = stat.lines();
                    assertEquals(snapshots, lines.stream().filter(line -> line.contains(" counters in ")).count(),
                        String.join("\n", lines));
                    for (final ChildProcess process : List.of(publisher, subscriber))
                    {
                        assertEquals(snapshots, lines.stream()
                            .filter(line -> line.startsWith("process " + process.pid() + " ")).count(),
                            "a section for process " + process.pid() + " in every snapshot:\n" + String.join("\n", lines));
                    }
                    final Map<Long, Map<String, Long>> last = lastSnapshot(lines);
                    assertEquals(MESSAGES, counter(last, publisher.pid(), "messages sent"), last.toString());
                    assertEquals(MESSAGES, counter(last, subscriber.pid(), "messages received"), last.toString());
                    assertEquals(counter(last, publisher.pid(), "bytes sent"),
                        counter(last, subscriber.pid(), "bytes received"), last.toString());
                    assertEquals(1, counter(last, subscriber.pid(), "images opened"), last.toString());
                    // The devices' own counters sit beside messaging's: on shm the frames go by stores
                    // into the subscriber's memory log, so the device's requests are the connection's alone.
                    assertTrue(counter(last, publisher.pid(), "device requests sent") >= 1, last.toString());
                    assertTrue(counter(last, publisher.pid(), "device requests sent") < MESSAGES, last.toString());
                    assertEquals(0, counter(last, subscriber.pid(), "device responder unknown rkey"), last.toString());
                    assertEquals(0, counter(last, subscriber.pid(), "device icrc errors"), last.toString());
                }
            }
        }
    }

    /** The last snapshot's counters: process id to label (without its stream prefix) to value. */
    private static Map<Long, Map<String, Long>> lastSnapshot(final List<String> lines)
    {
        final Map<Long, Map<String, Long>> processes = new HashMap<>();
        Map<String, Long> current = null;
        for (final String line : lines)
        {
            if (line.contains(" counters in "))
            {
                processes.clear();
                current = null;
            }
            else if (line.startsWith("process "))
            {
                current = new HashMap<>();
                processes.put(Long.parseLong(line.split(" ")[1]), current);
            }
            else
            {
                final Matcher matcher = COUNTER.matcher(line);
                if (null != current && matcher.matches())
                {
                    final String label = matcher.group(2);
                    current.put(label.substring(label.lastIndexOf(": ") + 2), Long.parseLong(matcher.group(1).replace(",", "")));
                }
            }
        }
        return processes;
    }

    private static long counter(final Map<Long, Map<String, Long>> snapshot, final long pid, final String label)
    {
        final Map<String, Long> counters = snapshot.get(pid);
        assertTrue(null != counters && counters.containsKey(label), "no '" + label + "' for process " + pid);
        return counters.get(label);
    }
}
