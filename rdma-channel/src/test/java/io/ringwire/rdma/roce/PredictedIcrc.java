package io.ringwire.rdma.roce;

import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class's roce devices with {@code ringwire.rdma.roce.icrc=predicted}, the mode of a
 * process without CAP_NET_RAW (see {@link RoceReceiver}).
 */
public final class PredictedIcrc extends IcrcCheckSetting
{
    @Override
    public void beforeAll(final ExtensionContext context)
    {
        use(RoceSettings.ICRC_PREDICTED);
    }
}
