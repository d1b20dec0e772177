package io.ringwire.rdma.contract;

import io.ringwire.rdma.roce.RoceProvider;

import java.util.List;

/**
 * The two-process contract on {@code roce} between the two ways of sending: this process sends
 * from connected sockets with learnt IP IDs (the default), the peer from unconnected ones (ID 0).
 * Each side's receiver must accept the other's ICRCs.
 */
class RoceMixedSendingTwoProcessContractTest extends TwoProcessContractTest
{
    @Override
    protected String provider()
    {
        return "roce";
    }

    @Override
    protected List<String> peerOptions()
    {
        return List.of("-D" + RoceProvider.CONNECTED_SEND_PROP + "=false");
    }
}
