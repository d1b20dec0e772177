package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.contract.ProviderContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;

/**
 * The provider contract on {@code ibverbs} over the fake libibverbs ({@code src/test/c/fake_ibverbs.c}):
 * the provider's whole native path, on machines without RDMA. The same suite runs on a real device
 * in {@link IbverbsProviderContractTest}. The responder-counter tests are disabled with the reason
 * ({@link ResponderCountersStayInTheNic}).
 */
@ExtendWith(ResponderCountersStayInTheNic.class)
class IbverbsFakeProviderContractTest extends ProviderContractTest
{
    @Override
    protected RdmaConfig config(final Path tempDir)
    {
        return FakeContract.config();
    }

    @AfterAll
    static void restoreLibrary()
    {
        FakeContract.restore();
    }
}
