package io.ringwire.rdma.contract;

/**
 * The two-process contract on {@code socket}.
 */
class SocketTwoProcessContractTest extends TwoProcessContractTest
{
    @Override
    protected String provider()
    {
        return "socket";
    }
}
