package io.ringwire.rdma.contract;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.roce.PredictedIcrc;
import io.ringwire.rdma.roce.RoceProvider;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;

/**
 * The provider contract on {@code roce} whose receivers cannot see IP headers
 * ({@value RoceProvider#ICRC_CHECK_PROP}=predicted, the mode of a process without CAP_NET_RAW): every
 * request, answer and refusal still completes as the contract says, although each flow's first
 * packet only teaches its receiver the sender's IP ID sequence.
 */
@ExtendWith(PredictedIcrc.class)
class RocePredictedIcrcContractTest extends ProviderContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0");
    }
}
