package io.ringwire.rdma.doctor;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.ibverbs.IbverbsInventory;
import io.ringwire.rdma.ibverbs.IbverbsProvider;

import java.util.ArrayList;
import java.util.List;

/**
 * Which provider to use on this machine: {@code ibverbs} when a usable RDMA port exists, else
 * {@code socket} between hosts; {@code shm} for processes on the same host in every case.
 *
 * @param provider         for peers on other hosts.
 * @param sameHostProvider for processes on this host.
 * @param reason           why.
 * @param settings         the JVM options that select it.
 * @param hints            other options worth knowing (kernel-bypass preloads, roce).
 */
public record Recommendation(String provider, String sameHostProvider, String reason, List<String> settings,
    List<String> hints)
{
    private static final String SAME_HOST_HINT =
        "processes on this host: provider shm (shared memory: no network stack at all)";

    /**
     * Copies the lists.
     */
    public Recommendation
    {
        settings = List.copyOf(settings);
        hints = List.copyOf(hints);
    }

    /**
     * @param snapshot the RDMA devices.
     * @param bypass   the kernel-bypass finding (its advice becomes a hint when there is no RDMA port).
     * @return the recommendation.
     */
    public static Recommendation of(final IbverbsInventory.Snapshot snapshot, final Finding bypass)
    {
        final UsablePort usable = UsablePort.best(snapshot);
        final List<String> hints = new ArrayList<>();
        hints.add(SAME_HOST_HINT);
        if (null != usable)
        {
            final String device = usable.device().name();
            final List<String> settings = List.of("-D" + RdmaConfig.PROVIDER_PROP + "=ibverbs",
                "-D" + IbverbsProvider.DEVICE_PROP + "=" + device,
                "-D" + IbverbsProvider.PORT_PROP + "=" + usable.port().number(),
                "-D" + IbverbsProvider.GID_INDEX_PROP + "=" + usable.gid().index());
            if (usable.device().isSoftRoce())
            {
                hints.add(device + " is Soft-RoCE: right for testing against RDMA peers, not faster than provider socket");
            }
            return new Recommendation("ibverbs", "shm", "RDMA device " + device + " port " + usable.port().number() +
                " is ACTIVE with RoCE v2 GID " + usable.gid().address(), settings, hints);
        }
        hints.add(bypass.advice());
        hints.add("peers with RoCE NICs: provider roce speaks RoCEv2 over UDP without a NIC here");
        return new Recommendation("socket", "shm", "no usable RDMA device (see the rdma finding)",
            List.of("-D" + RdmaConfig.PROVIDER_PROP + "=socket", "(or -D" + RdmaConfig.PROVIDER_PROP + "=auto: " +
                "ibverbs when a device works, else socket)"), hints);
    }

    /**
     * @return the recommendation for a machine whose RDMA devices were not scanned (a captured tree):
     *         {@code auto}, which decides on the machine itself.
     */
    public static Recommendation unscanned()
    {
        return new Recommendation("auto", "shm", "RDMA devices not scanned (a captured tree): auto opens ibverbs " +
            "when a device works on the machine itself, else socket",
            List.of("-D" + RdmaConfig.PROVIDER_PROP + "=auto"),
            List.of(SAME_HOST_HINT,
                "run ringwire doctor on the machine itself for a recommendation from its devices"));
    }
}
