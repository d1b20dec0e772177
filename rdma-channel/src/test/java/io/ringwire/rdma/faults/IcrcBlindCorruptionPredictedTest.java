package io.ringwire.rdma.faults;

/**
 * {@link IcrcBlindCorruptionTest} with the receiver that cannot see IP headers (no CAP_NET_RAW):
 * it accepts a packet only when its ICRC matches an IP ID predicted before the packet arrived (the
 * next few of its peer's sequence), so the error that imitates another ID is dropped as unverified,
 * never delivered, and the packet after it still matches the sequence.
 */
public class IcrcBlindCorruptionPredictedTest extends IcrcBlindCorruptionTest
{
    @Override
    protected String icrcCheck()
    {
        return "predicted";
    }

    /**
     * @return two: the corrupted packet itself, with a margin for a corruption that lands among a
     *         connection's priming ACKs and so delays the receiver taking up the peer's ID sequence.
     */
    @Override
    protected long maxDropsPerCorruption()
    {
        return 2;
    }
}
