package io.ringwire.rdma.faults;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The corruption a RoCE receiver that solves for the IP Identification cannot see: the kernel XORs
 * 0x0f into the byte at UDP offset 101 of 2% of the datagrams and zeroes their UDP checksum, an
 * error the ICRC takes for a different IP ID whatever the packet (netns-lab.sh, {@code icrcblind}).
 * Over the roce provider, with the receiver checking the ID each packet really carried (a raw
 * socket: these tests run as root), every such packet is dropped as an ICRC error, the reliable
 * connection resends it, and every message arrives byte-exact.
 */
public class IcrcBlindCorruptionTest extends FaultyNetworkTest
{
    @Override
    protected String requestedProvider()
    {
        return "roce";
    }

    @Override
    protected String faultKinds()
    {
        return "icrcblind";
    }

    @Override
    protected int messageCount()
    {
        return 30_000;
    }

    @Override
    protected List<String> childJvmOptions()
    {
        return List.of("-Dringwire.rdma.roce.icrc=" + icrcCheck());
    }

    /**
     * @return packets the receiver drops for one corrupted one: just it, when it sees the IP header.
     */
    protected long maxDropsPerCorruption()
    {
        return 1;
    }

    /**
     * @return how the receiver checks the ICRC's IP ID ({@code ringwire.rdma.roce.icrc}).
     */
    protected String icrcCheck()
    {
        return "raw";
    }

    @Override
    protected void assertFaultEffects(final StreamOutcome outcome)
    {
        final long injected = outcome.kernelCount("icrcblind");
        assertTrue(injected > 0, "the lab corrupted no datagram: " + outcome.kernel());
        final Map<String, Long> counters = outcome.counters();
        final long dropped = counters.get("icrc_errors") + counters.get("icrc_unverified");
        assertTrue(dropped > 0, "no corrupted packet was dropped: " + counters);
        assertTrue(dropped <= maxDropsPerCorruption() * injected + 4, dropped + " packets dropped for " + injected +
            " corrupted: " + counters);
        assertEquals(0, counters.get("responder_malformed"), "corruption reached no parser: " + counters);
    }
}
