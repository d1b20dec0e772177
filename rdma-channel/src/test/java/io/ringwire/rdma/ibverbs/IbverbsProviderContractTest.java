package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.contract.ProviderContractTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;

/**
 * The provider contract on {@code ibverbs} with a real device (Soft-RoCE in the VM lab): tagged
 * {@code vm}. The device, port and GID index come from {@link IbverbsProvider#DEVICE_PROP},
 * {@link IbverbsProvider#PORT_PROP} and {@link IbverbsProvider#GID_INDEX_PROP} (defaults: the first
 * device, port 1, GID 1). The responder-counter tests are disabled with the reason
 * ({@link ResponderCountersStayInTheNic}), and on rxe the too-long-SEND test
 * ({@link RxeLengthErrorDeviation}); {@link IbverbsDeviceRefusedRequestsTest} checks the rest.
 */
@Tag("vm")
@ExtendWith({ ResponderCountersStayInTheNic.class, RxeLengthErrorDeviation.class })
class IbverbsProviderContractTest extends ProviderContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("ibverbs");
    }
}
