package io.ringwire.rdma.ibverbs;

import org.agrona.concurrent.Agent;

/**
 * The progress agent of a hardware device: the NIC executes incoming requests, acknowledges,
 * retransmits and writes completions by itself, so there is nothing to do. It exists so that code
 * written for the software providers (which need progress) runs unchanged.
 */
final class IdleProgressAgent implements Agent
{
    private final String roleName;

    IdleProgressAgent(final String roleName)
    {
        this.roleName = roleName;
    }

    @Override
    public int doWork()
    {
        return 0;
    }

    @Override
    public String roleName()
    {
        return roleName;
    }
}
