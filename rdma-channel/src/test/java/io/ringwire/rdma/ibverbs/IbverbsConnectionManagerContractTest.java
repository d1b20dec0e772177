package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.contract.ConnectionManagerContractTest;
import org.junit.jupiter.api.Tag;

import java.nio.file.Path;

/**
 * The connection manager driving {@code ibverbs} queue pairs on a real device: tagged {@code vm}.
 */
@Tag("vm")
class IbverbsConnectionManagerContractTest extends ConnectionManagerContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("ibverbs");
    }
}
