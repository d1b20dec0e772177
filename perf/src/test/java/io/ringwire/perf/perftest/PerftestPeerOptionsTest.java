package io.ringwire.perf.perftest;

import io.ringwire.perf.cli.UsageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerftestPeerOptionsTest
{
    @Test
    void theDefaultsArePerftestsOwnForEachTest()
    {
        final PerftestPeerOptions lat = PerftestPeerOptions.parse("--mode", "lat", "--bind", "10.201.0.2");
        assertEquals(2, lat.size());
        assertEquals(1000, lat.iterations());
        assertEquals(18515, lat.port());
        assertEquals(4791, lat.rocePort());
        assertEquals(4791, lat.peerRocePort());
        assertEquals(1024, lat.mtu());
        final PerftestPeerOptions bw = PerftestPeerOptions.parse("--mode=bw", "--bind=10.201.0.2", "--iters", "200");
        assertEquals(65536, bw.size());
        assertEquals(200, bw.iterations());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--bind 10.201.0.2|--mode is required",
        "--mode lat|--bind is required",
        "--mode rd --bind 10.201.0.2|--mode 'rd' is not a perftest program here; allowed: lat, bw",
        "--mode lat --bind ::1|--bind needs an IPv4 address",
        "--mode lat --bind 10.201.0.2 --mtu 1500|--mtu must be 256, 512, 1024, 2048 or 4096",
        "--mode lat --bind 10.201.0.2 --size x|--size needs a whole number",
        "--mode lat --bind 10.201.0.2 --iters|--iters needs a value",
        "--mode lat --bind 10.201.0.2 --fast 1|unknown option '--fast'",
        "--mode lat --mode bw --bind 10.201.0.2|--mode is given twice",
        "--mode lat --bind 10.201.0.2 --size 1073741824|--size must be 1 to 536870912" })
    void aBadCommandLineIsRefusedNamingTheOption(final String args, final String message)
    {
        final UsageException refused = assertThrows(UsageException.class,
            () -> PerftestPeerOptions.parse(args.split(" ")));
        assertTrue(refused.getMessage().startsWith(message), refused.getMessage());
    }

    @Test
    void anAckDelayTheAckTimeoutDoesNotAllowIsRefusedAsTheFlagBeforeAnyDeviceOpens()
    {
        final UsageException refused = assertThrows(UsageException.class, () -> new PerftestPeer(
            PerftestPeerOptions.parse("--mode", "lat", "--bind", "127.0.0.1", "--ack-delay-us", "5000"), System.err));
        assertTrue(refused.getMessage().startsWith("--ack-delay-us 5000 is refused: ") &&
            refused.getMessage().contains("a quarter of the ack timeout"), refused.getMessage());
    }

    @Test
    void halfRoundTripsAreHalfTheIntervalsBetweenWritesAsPerftestReportsThem()
    {
        final long[] posted = new long[101];
        for (int i = 1; i < posted.length; i++)
        {
            posted[i] = posted[i - 1] + (i == 100 ? 202_000 : 2_000 * i);
        }
        final double[] latency = PerftestPeer.halfRoundTrips(posted);
        assertArrayEquals(new double[] { 51.0, (2_000L * 99 * 100 / 2 + 202_000) / 100.0 / 2000.0, 101.0 }, latency,
            1e-9);
    }
}
