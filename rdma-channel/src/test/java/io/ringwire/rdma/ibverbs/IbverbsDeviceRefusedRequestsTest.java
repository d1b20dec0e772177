package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import org.junit.jupiter.api.Tag;

/**
 * Refused requests on {@code ibverbs} with a real device: tagged {@code vm}.
 */
@Tag("vm")
class IbverbsDeviceRefusedRequestsTest extends IbverbsRefusedRequestsTest
{
    @Override
    protected RdmaConfig config()
    {
        return new RdmaConfig().provider("ibverbs");
    }
}
