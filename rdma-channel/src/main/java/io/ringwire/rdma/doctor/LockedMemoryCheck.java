package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.LockedMemoryLimit;

import java.util.List;
import java.util.Optional;

/**
 * The locked-memory limit ({@code ulimit -l}, from {@code /proc/self/limits}): registering memory
 * for RDMA pins it, and pinned pages count against this limit unless the process has CAP_IPC_LOCK
 * (bit 14 of CapEff in {@code /proc/self/status}; root usually has it).
 */
public final class LockedMemoryCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "memlock";
    /** Below this, registering rings and staging regions for ibverbs runs out. */
    public static final long RECOMMENDED_BYTES = 1L << 30;

    private static final int CAP_IPC_LOCK = 14;

    @Override
    public Finding run(final Host host)
    {
        final long limit = host.read("/proc/self/limits").map(LockedMemoryLimit::parse).orElse(LockedMemoryLimit.UNKNOWN);
        final boolean ipcLock = hasIpcLock(host.read("/proc/self/status"));
        final String observed = "memlock limit " + LockedMemoryLimit.describe(limit);
        if (limit == LockedMemoryLimit.UNLIMITED || limit >= RECOMMENDED_BYTES)
        {
            return new Finding(NAME, Status.OK, observed, List.of(), "nothing to change");
        }
        if (ipcLock)
        {
            return new Finding(NAME, Status.OK, observed + ", not enforced: this process has CAP_IPC_LOCK",
                List.of("processes without CAP_IPC_LOCK (not root) still get " + LockedMemoryLimit.describe(limit)),
                "nothing to change for processes run like this one; for others: ulimit -l unlimited");
        }
        if (limit == LockedMemoryLimit.UNKNOWN)
        {
            return new Finding(NAME, Status.INFO, "memlock limit unknown (/proc/self/limits unreadable)", List.of(),
                "make sure ulimit -l is unlimited where RingWire runs with provider ibverbs");
        }
        return new Finding(NAME, Status.WARN, observed + ": too low to register RingWire's rings for RDMA",
            List.of("ibv_reg_mr pins memory and fails with ENOMEM once " + LockedMemoryLimit.humanBytes(limit) +
                " are pinned (provider ibverbs; the other providers do not pin)"),
            "raise it: ulimit -l unlimited (or 'memlock unlimited' in /etc/security/limits.conf, " +
                "LimitMEMLOCK=infinity in a systemd unit, --ulimit memlock=-1 for docker)");
    }

    private static boolean hasIpcLock(final Optional<String> status)
    {
        if (status.isEmpty())
        {
            return false;
        }
        for (final String line : status.get().split("\n"))
        {
            if (line.startsWith("CapEff:"))
            {
                try
                {
                    return ((Long.parseUnsignedLong(line.substring(7).trim(), 16) >>> CAP_IPC_LOCK) & 1) == 1;
                }
                catch (final NumberFormatException ex)
                {
                    return false;
                }
            }
        }
        return false;
    }
}
