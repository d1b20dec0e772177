package io.ringwire.rdma.roce;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class's roce devices with {@code ringwire.rdma.roce.icrc=predicted}, the mode of a
 * process without CAP_NET_RAW (see {@link RoceReceiver}), and restores the property after it.
 */
public final class PredictedIcrc implements BeforeAllCallback, AfterAllCallback
{
    private String previous;

    @Override
    public void beforeAll(final ExtensionContext context)
    {
        previous = System.setProperty(RoceProvider.ICRC_CHECK_PROP, RoceSettings.ICRC_PREDICTED);
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        if (null == previous)
        {
            System.clearProperty(RoceProvider.ICRC_CHECK_PROP);
        }
        else
        {
            System.setProperty(RoceProvider.ICRC_CHECK_PROP, previous);
        }
    }
}
