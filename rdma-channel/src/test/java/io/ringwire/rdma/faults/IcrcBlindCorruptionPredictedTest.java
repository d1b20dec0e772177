package io.ringwire.rdma.faults;

/**
 * {@link IcrcBlindCorruptionTest} with the receiver that cannot see IP headers (no CAP_NET_RAW):
 * it accepts a packet only when its ICRC matches an IP ID predicted before the packet arrived, so an
 * error that imitates another ID is still dropped (as an ICRC error, or as unverified when it also
 * broke the sequence), never delivered.
 */
public class IcrcBlindCorruptionPredictedTest extends IcrcBlindCorruptionTest
{
    @Override
    protected String icrcCheck()
    {
        return "predicted";
    }

    /**
     * @return two: the corrupted packet, and its successor, whose ID was not the one predicted (the
     *         prediction followed the corrupted packet's), which re-learns the sequence.
     */
    @Override
    protected long maxDropsPerCorruption()
    {
        return 2;
    }
}
