package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.contract.TwoProcessContractTest;
import org.junit.jupiter.api.Tag;

/**
 * The two-process contract on {@code ibverbs} with a real device: tagged {@code vm}. The peer JVM
 * opens the first device, port 1, GID 1 (it is started without the test's system properties).
 * A killed peer is detected after about (retry_cnt + 1) ACK timeouts, by the NIC.
 */
@Tag("vm")
class IbverbsTwoProcessContractTest extends TwoProcessContractTest
{
    @Override
    protected String provider()
    {
        return "ibverbs";
    }
}
