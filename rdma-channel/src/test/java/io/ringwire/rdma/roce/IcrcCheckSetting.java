package io.ringwire.rdma.roce;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class extension that runs the class's roce devices with one {@code ringwire.rdma.roce.icrc}
 * mode and restores the property after the class.
 */
abstract class IcrcCheckSetting implements BeforeAllCallback, AfterAllCallback
{
    private String previous;

    /** Sets the mode, remembering the property's value before. */
    protected final void use(final String mode)
    {
        previous = System.setProperty(RoceProvider.ICRC_CHECK_PROP, mode);
    }

    @Override
    public final void afterAll(final ExtensionContext context)
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
