package io.ringwire.perf.cli;

import io.ringwire.perf.compare.CompareOptions;
import io.ringwire.perf.oneway.OneWayOptions;
import io.ringwire.perf.path.PathOptions;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.throughput.ThroughputOptions;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The options several commands share are read by one reader: each has the same name, value and
 * refusal in every command that takes it, and a command that does not take one refuses it as an
 * unknown option.
 */
class CommonOptionsTest
{
    private static final List<Consumer<String[]>> EVERY_COMMAND = List.of(RttOptions::parse, OneWayOptions::parse,
        ThroughputOptions::parse, CompareOptions::parse, PathOptions::parse);

    @Test
    void jsonAndTheShmDirectoryAreReadAlikeByEveryCommand()
    {
        final String[] args = { "--json", "--shm-dir=/tmp/ring wire" };

        assertTrue(RttOptions.parse(args).json());
        assertEquals("/tmp/ring wire", RttOptions.parse(args).shmDirectory());
        assertEquals("/tmp/ring wire", OneWayOptions.parse(args).shmDirectory());
        assertEquals("/tmp/ring wire", ThroughputOptions.parse(args).shmDirectory());
        assertEquals("/tmp/ring wire", CompareOptions.parse(args).shmDirectory());
        assertTrue(PathOptions.parse(args).json());
        assertEquals("/tmp/ring wire", PathOptions.parse(args).shmDirectory());
    }

    @Test
    void aBlankShmDirectoryIsRefusedTheSameWayByEveryCommand()
    {
        for (final Consumer<String[]> command : EVERY_COMMAND)
        {
            final UsageException refused = assertThrows(UsageException.class,
                () -> command.accept(new String[] { "--shm-dir", " " }));

            assertEquals("--shm-dir needs a directory, e.g. /dev/shm/ringwire", refused.getMessage());
        }
    }

    @Test
    void theProcessesOfRttAndCompareAreRefusedWithOneMessage()
    {
        final String rtt = assertThrows(UsageException.class, () -> RttOptions.parse("--processes", "3")).getMessage();
        final String compare = assertThrows(UsageException.class,
            () -> CompareOptions.parse("--processes", "3")).getMessage();

        assertEquals(rtt, compare);
        assertTrue(rtt.startsWith("--processes='3' is not allowed; allowed: 1 (pinger and ponger threads"), rtt);
        assertEquals(2, CompareOptions.parse("--processes", "2").processes());
    }

    @Test
    void countsAreRefusedInTheUnitOfTheCommand()
    {
        assertTrue(assertThrows(UsageException.class, () -> OneWayOptions.parse("--messages", "0")).getMessage()
            .endsWith("1 to 1000000000 messages"));
        assertTrue(assertThrows(UsageException.class, () -> CompareOptions.parse("--warmup", "-1")).getMessage()
            .endsWith("0 to 1000000000 round trips"));
    }

    @Test
    void anOptionTheCommandDoesNotShareIsLeftToItAndACommandWithoutItRefusesItAsUnknown()
    {
        final CommonOptions common = new CommonOptions("messages").with("--allow-oversubscribe");
        final OptionReader option = new OptionReader("--rate", "5", "--allow-oversubscribe");

        assertTrue(option.next());
        assertFalse(common.take(option), "--rate was not declared");
        assertEquals("--rate", option.name());
        assertEquals("5", option.value("a rate"), "its value is still there for the command");
        assertTrue(option.next());
        assertTrue(common.take(option));
        assertTrue(common.values(option).allowOversubscribe());
        assertTrue(assertThrows(UsageException.class, () -> PathOptions.parse("--rate", "5")).getMessage()
            .startsWith("unknown option '--rate'"));
        assertTrue(assertThrows(UsageException.class, () -> CompareOptions.parse("--provider", "shm")).getMessage()
            .startsWith("unknown option '--provider'"));
    }

    @Test
    void providerAndProvidersAreOneOptionAndGivingBothIsRefused()
    {
        assertTrue(assertThrows(UsageException.class, () -> OneWayOptions.parse("--provider", "shm", "--providers",
            "roce")).getMessage().contains("--provider and --providers are one option"));
        assertEquals(List.of("roce"), OneWayOptions.parse("--providers", "roce").providers());
    }

    @Test
    void throughputTakesOneProviderWhereTheOthersTakeAList()
    {
        assertEquals("roce", ThroughputOptions.parse("--provider", "roce").provider());
        assertEquals(List.of("roce", "shm"), OneWayOptions.parse("--providers", "roce,shm").providers());
        assertEquals("--provider takes one transport for throughput, got [shm, socket]",
            assertThrows(UsageException.class, () -> ThroughputOptions.parse("--provider", "shm,socket")).getMessage());
    }
}
