package io.ringwire.rdma.contract;

/**
 * The two-process contract on {@code roce}.
 */
class RoceTwoProcessContractTest extends TwoProcessContractTest
{
    @Override
    protected String provider()
    {
        return "roce";
    }
}
