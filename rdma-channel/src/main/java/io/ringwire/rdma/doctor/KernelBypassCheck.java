package io.ringwire.rdma.doctor;

import java.util.ArrayList;
import java.util.List;

/**
 * The LD_PRELOAD libraries that move provider {@code socket}'s plain socket calls onto faster paths:
 * libvma (NVIDIA/Mellanox NICs: kernel bypass for TCP/UDP; not packaged by Debian, shipped with
 * MLNX_OFED/DOCA) and rsocket's {@code librspreload.so} (rdma-core's librdmacm1: sockets over RDMA,
 * needs an RDMA device on both ends). Found through the shared-library cache ({@code ldconfig -p})
 * and the usual install paths.
 */
public final class KernelBypassCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "kernel-bypass";

    static final List<String> LIBVMA_PATHS = List.of("/usr/lib/libvma.so", "/usr/lib64/libvma.so",
        "/usr/lib/x86_64-linux-gnu/libvma.so", "/usr/local/lib/libvma.so", "/usr/lib/libvma.so.9",
        "/usr/lib64/libvma.so.9");
    static final List<String> RSPRELOAD_PATHS = List.of("/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so",
        "/usr/lib64/rsocket/librspreload.so", "/usr/lib/rsocket/librspreload.so");

    @Override
    public Finding run(final Host host)
    {
        final String libvma = find(host, "libvma.so", LIBVMA_PATHS);
        final String rspreload = find(host, "librspreload.so", RSPRELOAD_PATHS);
        final boolean rdmaDevice = !host.rdma().devices().isEmpty();
        final List<String> details = new ArrayList<>();
        details.add("libvma: " + (null == libvma ? "not installed" : libvma));
        details.add("rsocket preload (librspreload.so): " + (null == rspreload ? "not installed" : rspreload));
        final List<String> advice = new ArrayList<>();
        if (null != libvma)
        {
            advice.add("on an NVIDIA/Mellanox NIC, run provider socket under LD_PRELOAD=" + libvma +
                " VMA_SPEC=latency (busy-polling kernel bypass)");
        }
        else
        {
            advice.add("with an NVIDIA/Mellanox NIC, libvma (from MLNX_OFED/DOCA, not in Debian) accelerates provider " +
                "socket under LD_PRELOAD=libvma.so VMA_SPEC=latency");
        }
        if (null != rspreload && rdmaDevice)
        {
            advice.add("LD_PRELOAD=" + rspreload + " carries provider socket over RDMA (rsocket) between two RDMA hosts");
        }
        else if (null == rspreload)
        {
            advice.add("rsocket (apt-get install librdmacm1) carries provider socket over RDMA when both hosts have a " +
                "device");
        }
        final String summary = null != libvma || null != rspreload ?
            "kernel-bypass preload available: " + (null != libvma ? "libvma" : "") +
                (null != libvma && null != rspreload ? ", " : "") + (null != rspreload ? "rsocket" : "") :
            "no kernel-bypass preload library installed";
        return new Finding(NAME, Status.INFO, summary, details, String.join("; ", advice));
    }

    private static String find(final Host host, final String soname, final List<String> paths)
    {
        // ldconfig -p lines: "\tlibvma.so.9 (libc6,x86-64) => /usr/lib/libvma.so.9"; prefer the unversioned name.
        String versioned = null;
        for (final String line : host.libraryCache().split("\n"))
        {
            final String trimmed = line.trim();
            final int arrow = trimmed.indexOf("=>");
            if (arrow > 0 && trimmed.startsWith(soname))
            {
                final String path = trimmed.substring(arrow + 2).trim();
                if (trimmed.startsWith(soname + " "))
                {
                    return path;
                }
                versioned = null == versioned ? path : versioned;
            }
        }
        if (null != versioned)
        {
            return versioned;
        }
        for (final String path : paths)
        {
            if (host.exists(path))
            {
                return path;
            }
        }
        return null;
    }
}
