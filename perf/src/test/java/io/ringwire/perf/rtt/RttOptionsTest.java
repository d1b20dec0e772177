package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.UsageException;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RttOptionsTest
{
    @Test
    void noOptionsGiveTheDocumentedDefaults()
    {
        final RttOptions options = RttOptions.parse();

        assertEquals(RttOptions.defaultProviders(), options.providers());
        assertEquals("both", options.api());
        assertEquals(32, options.size());
        assertEquals(1_000_000, options.messages());
        assertEquals(100_000, options.warmup());
        assertEquals(1, options.processes());
        assertEquals(1, options.rounds());
        assertFalse(options.json());
        assertFalse(options.allowOversubscribe());
        assertFalse(options.help());
    }

    @Test
    void everyOptionIsParsedInBothSpellings()
    {
        final RttOptions spaced = RttOptions.parse("--provider", "shm,socket,nio-tcp", "--api", "messaging", "--size",
            "64", "--messages", "2_000", "--warmup", "0", "--processes", "2", "--rounds", "5", "--json",
            "--allow-oversubscribe", "--shm-dir", "/tmp/x y");
        final RttOptions joined = RttOptions.parse("--provider=shm,socket,nio-tcp", "--api=messaging", "--size=64",
            "--messages=2000", "--warmup=0", "--processes=2", "--rounds=5", "--json", "--allow-oversubscribe",
            "--shm-dir=/tmp/x y");

        for (final RttOptions options : List.of(spaced, joined))
        {
            assertEquals(List.of("shm", "socket", "nio-tcp"), options.providers());
            assertEquals("messaging", options.api());
            assertEquals(64, options.size());
            assertEquals(2000, options.messages());
            assertEquals(0, options.warmup());
            assertEquals(2, options.processes());
            assertEquals(5, options.rounds());
            assertTrue(options.json());
            assertTrue(options.allowOversubscribe());
            assertEquals("/tmp/x y", options.shmDirectory());
        }
    }

    @Test
    void roceAndItsUdpBaselineAreTransportsAndUdpTakesMessagesUpToOneDatagram()
    {
        final RttOptions options = RttOptions.parse("--provider", "roce,nio-udp", "--size", "65507");

        assertEquals(List.of("roce", "nio-udp"), options.providers());
        assertEquals(65507, options.size());
        assertEquals(1 << 20, RttOptions.parse("--provider", "roce", "--size", "1048576").size(),
            "only nio-udp is bound to one datagram");
        assertTrue(RttOptions.defaultProviders().containsAll(List.of("socket", "roce", "nio-tcp", "nio-udp")),
            RttOptions.defaultProviders().toString());
    }

    @Test
    void theDefaultListKeepsShmWhateverTheDefaultShmDirectoryAndParsingCreatesNoDirectory(@TempDir final Path temp)
        throws IOException
    {
        final String before = System.getProperty(RdmaConfig.SHM_DIRECTORY_PROP);
        try
        {
            final Path notADirectory = Files.writeString(temp.resolve("file"), "x");
            System.setProperty(RdmaConfig.SHM_DIRECTORY_PROP, notADirectory.toString());
            final RttOptions named = RttOptions.parse("--shm-dir", temp.resolve("wanted").toString());
            assertTrue(named.providers().contains("shm"), "the directory named is the one the run uses: " +
                named.providers());

            final Path unwanted = temp.resolve("unwanted");
            System.setProperty(RdmaConfig.SHM_DIRECTORY_PROP, unwanted.toString());
            RttOptions.parse("--shm-dir", temp.resolve("wanted").toString(), "--help");
            assertFalse(Files.exists(unwanted), "parsing the options made a directory the run does not use");
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(RdmaConfig.SHM_DIRECTORY_PROP);
            }
            else
            {
                System.setProperty(RdmaConfig.SHM_DIRECTORY_PROP, before);
            }
        }
    }

    @Test
    void ibverbsIsATransportAndInTheDefaultListExactlyWhenItsProviderCanOpenADeviceHere()
    {
        assertEquals(List.of("ibverbs"), RttOptions.parse("--provider", "ibverbs").providers());
        final String reason = RdmaProviders.byName("ibverbs").unavailableReason(new RdmaConfig().provider("ibverbs"));

        assertEquals(null == reason, RttOptions.defaultProviders().contains("ibverbs"),
            "default " + RttOptions.defaultProviders() + ", ibverbs unavailable because: " + reason);
    }

    @Test
    void bothRunsEachRdmaProviderThroughTheChannelThenMessagingAndABaselineRawOnly()
    {
        final RttOptions both = RttOptions.parse("--provider", "shm,nio-udp");
        final RttOptions messaging = RttOptions.parse("--provider", "shm,nio-udp", "--api", "MESSAGING");
        final RttOptions channel = RttOptions.parse("--provider", "shm,nio-udp", "--api", "channel");

        assertEquals(List.of("channel", "messaging"), both.apisOf("shm"));
        assertEquals(List.of("raw"), both.apisOf("nio-udp"));
        assertEquals(List.of("messaging"), messaging.apisOf("shm"));
        assertEquals(List.of("raw"), messaging.apisOf("nio-udp"));
        assertEquals(List.of("channel"), channel.apisOf("shm"));
    }

    @Test
    void providersKeepTheOrderGivenSoTheFirstIsTheRatioBase()
    {
        assertEquals(List.of("nio-tcp", "socket"), RttOptions.parse("--provider", "nio-tcp, socket").providers());
    }

    @Test
    void rateMakesAnOpenLoopAndOutNamesTheResultsDirectoryWhileTheDefaultsAreAClosedLoopAndNoDirectory()
    {
        final RttOptions openLoop = RttOptions.parse("--provider", "shm", "--rate", "50000", "--out", "/tmp/run-1");
        final RttOptions closedLoop = RttOptions.parse("--provider", "shm");

        assertEquals(50_000, openLoop.rate());
        assertEquals("/tmp/run-1", openLoop.out());
        assertEquals(0, closedLoop.rate(), "no --rate: the closed loop as before");
        assertEquals(null, closedLoop.out(), "no --out: the default directory, chosen when the run ends");
    }

    @Test
    void helpIsRecognisedAndTheUsageNamesEveryOption()
    {
        assertTrue(RttOptions.parse("--help").help());
        final String usage = RttOptions.usage();
        for (final String option : List.of("--provider", "--api", "--size", "--messages", "--warmup", "--processes",
            "--rounds", "--json",
            "--allow-oversubscribe", "--shm-dir", "--rate", "--out", "--help"))
        {
            assertTrue(usage.contains(option), "usage mentions " + option);
        }
        for (final String provider : RttOptions.ALLOWED_PROVIDERS)
        {
            assertTrue(usage.contains("  " + provider + " "), "usage describes " + provider);
        }
        for (final String api : List.of("channel", "messaging"))
        {
            assertTrue(usage.contains("  " + api + " "), "usage describes " + api);
        }
    }

    @ParameterizedTest(name = "{0} is refused naming {1}")
    @CsvSource(delimiter = '|', value = {
        "--bogus                     | unknown option '--bogus'; allowed: --provider, --api",
        "--api sbe                   | --api='sbe' is not allowed; allowed: messaging (Publication and Subscription",
        "--api                       | --api needs a value: messaging|channel|both",
        "--provider rdma             | --provider 'rdma' is not a transport; allowed: shm, socket, roce, ibverbs, nio-tcp, nio-udp",
        "--provider nio-udp --size 65508 | --size 65508 is too large for nio-udp, which sends each message as one datagram",
        "--provider nio-udp-unconnected --size 65508 | --size 65508 is too large for nio-udp-unconnected, which sends each",
        "--provider socket,socket    | --provider lists 'socket' twice",
        "--provider                  | --provider needs a value",
        "--size 8                    | --size='8' is out of range; allowed: 16 to 1048576 bytes",
        "--size 2000000              | --size='2000000' is out of range; allowed: 16 to 1048576 bytes",
        "--size big                  | --size='big' is not a number; allowed: 16 to 1048576 bytes",
        "--messages 0                | --messages='0' is out of range; allowed: 1 to 1000000000",
        "--warmup -1                 | --warmup='-1' is out of range; allowed: 0 to 1000000000",
        "--rounds 0                  | --rounds='0' is out of range; allowed: 1 to 100 rounds",
        "--rounds 101                | --rounds='101' is out of range; allowed: 1 to 100 rounds",
        "--processes 3               | --processes='3' is not allowed; allowed: 1 (pinger and ponger threads",
        "--json=yes                  | --json takes no value",
        "--size --json               | --size needs a value: bytes",
        "--rate 0                    | --rate='0' is out of range; allowed: 1 to 1000000000 messages per second",
        "--out                       | --out needs a value: a directory",
    })
    void badOptionsAreRefusedWithAMessageNamingTheOptionAndTheAllowedValues(final String args, final String message)
    {
        final UsageException refused = assertThrows(UsageException.class, () -> RttOptions.parse(args.split(" ")));

        assertTrue(refused.getMessage().startsWith(message), "message was: " + refused.getMessage());
    }
}
