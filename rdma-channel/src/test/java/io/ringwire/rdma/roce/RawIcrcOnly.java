package io.ringwire.rdma.roce;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class's roce devices with {@code ringwire.rdma.roce.icrc=raw}: for tests that pin the
 * packets a device puts on the wire and takes from it one by one, which a device that predicts IP
 * IDs changes at the start of each flow (it primes the flow, and drops a flow's first packet as
 * unverified: see {@link RoceReceiver}). Where this process may not open raw sockets (no
 * CAP_NET_RAW), the class is skipped with that reason; the predicted mode has tests of its own.
 */
public final class RawIcrcOnly extends IcrcCheckSetting
{
    @Override
    public void beforeAll(final ExtensionContext context)
    {
        try
        {
            RawUdpReceiver.open(0x7F00_0001, 9).close();
        }
        catch (final LibcSockets.Unavailable ex)
        {
            Assumptions.abort("this process cannot open raw sockets (" + ex.getMessage() + "): the wire-level roce " +
                "tests need a device that sees each packet's IP header");
        }
        use(RoceSettings.ICRC_RAW);
    }
}
