package io.ringwire.rdma.contract;

/**
 * The two-process contract on {@code shm}.
 */
class ShmTwoProcessContractTest extends TwoProcessContractTest
{
    @Override
    protected String provider()
    {
        return "shm";
    }
}
