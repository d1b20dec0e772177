package io.ringwire.rdma.doctor;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ringwire doctor}: tells whether this machine is ready for low latency and which provider to
 * use. Checks RDMA devices (ports, MTU, GIDs), the locked-memory limit, huge pages, cores and
 * isolated cores, the CPU frequency governor and kernel-bypass preload libraries; each finding says
 * what to change.
 *
 * <p>Usage: {@code ringwire doctor [--json] [--root DIR]}. {@code --json} prints one JSON object;
 * {@code --root} reads {@code proc/} and {@code sys/} under DIR instead of {@code /} (a captured
 * tree; RDMA devices and libraries are then not scanned). Exit status 0 (the report is the result),
 * 2 for a usage error.
 */
public final class Doctor
{
    private Doctor()
    {
    }

    /**
     * @return every check, in report order.
     */
    public static List<Check> checks()
    {
        return List.of(new RdmaDevicesCheck(), new LockedMemoryCheck(), new HugePagesCheck(), new CoreCountCheck(),
            new IsolatedCoresCheck(), new CpuGovernorCheck(), new KernelBypassCheck());
    }

    /**
     * Runs every check.
     *
     * @param host the machine.
     * @return the report.
     */
    public static DoctorReport examine(final Host host)
    {
        final List<Finding> findings = new ArrayList<>();
        Finding bypass = null;
        for (final Check check : checks())
        {
            final Finding finding = check.run(host);
            findings.add(finding);
            if (finding.check().equals(KernelBypassCheck.NAME))
            {
                bypass = finding;
            }
        }
        return new DoctorReport(findings, host.scansRdma() ? Recommendation.of(host.rdma(), bypass) :
            Recommendation.unscanned());
    }

    /**
     * @param args {@code --json}, {@code --root DIR}, {@code --help}.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * @param args command line.
     * @param out  where the report goes.
     * @param err  where usage errors go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        boolean json = false;
        Host host = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--json" -> json = true;
                case "--root" ->
                {
                    if (i + 1 >= args.length || !Files.isDirectory(Path.of(args[i + 1])))
                    {
                        err.println("ringwire doctor: --root needs a directory holding proc/ and sys/");
                        return 2;
                    }
                    host = Host.captured(Path.of(args[++i]));
                }
                case "--help", "-h" ->
                {
                    out.println("usage: ringwire doctor [--json] [--root DIR]\n" +
                        "  checks RDMA devices, memlock, huge pages, cores, isolated cores, CPU governor and\n" +
                        "  kernel-bypass libraries, says what to change, and recommends a provider\n" +
                        "  --json      one JSON object instead of the report\n" +
                        "  --root DIR  read DIR/proc and DIR/sys instead of /proc and /sys");
                    return 0;
                }
                default ->
                {
                    err.println("ringwire doctor: unknown option '" + args[i] + "' (try --help)");
                    return 2;
                }
            }
        }
        final DoctorReport report = examine(null == host ? Host.local() : host);
        out.println(json ? report.toJson() : report.toText());
        return 0;
    }
}
