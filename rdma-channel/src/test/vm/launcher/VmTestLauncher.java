import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;

/**
 * The Soft-RoCE lab guest's JUnit runner (compiled on the host by the vm profile; the guest only
 * runs it): runs the named test classes on the JUnit platform, logs each test as it starts and
 * ends (the guest is slow, so progress matters), and writes one surefire-style
 * TEST-&lt;class&gt;.xml per class into the reports directory.
 *
 * <pre>java ... VmTestLauncher REPORTS_DIR CLASS...</pre>
 * Exit code 0 when every test passed (skips allowed), 1 on any failure, 2 when nothing ran.
 */
public final class VmTestLauncher
{
    private record Result(String name, String className, double seconds, String status, Throwable error, String reason)
    {
    }

    public static void main(final String[] args) throws IOException
    {
        if (args.length < 2)
        {
            System.err.println("usage: VmTestLauncher REPORTS_DIR CLASS...");
            System.exit(2);
        }
        final Path reports = Path.of(args[0]);
        Files.createDirectories(reports);
        final LauncherDiscoveryRequestBuilder builder = LauncherDiscoveryRequestBuilder.request();
        for (int i = 1; i < args.length; i++)
        {
            builder.selectors(DiscoverySelectors.selectClass(args[i]));
        }
        final LauncherDiscoveryRequest request = builder.build();
        final Map<String, List<Result>> byClass = new LinkedHashMap<>();
        final Map<String, Long> started = new LinkedHashMap<>();
        final TestExecutionListener recorder = new TestExecutionListener()
        {
            private String classOf(final TestIdentifier id)
            {
                return id.getSource().map(s -> s instanceof MethodSource m ? m.getClassName() :
                    s instanceof ClassSource c ? c.getClassName() : "unknown").orElse("unknown");
            }

            private String nameOf(final TestIdentifier id)
            {
                return id.getSource().filter(s -> s instanceof MethodSource)
                    .map(s -> ((MethodSource)s).getMethodName()).orElse(id.getDisplayName());
            }

            @Override
            public void executionStarted(final TestIdentifier id)
            {
                started.put(id.getUniqueId(), System.nanoTime());
                if (id.isTest())
                {
                    System.out.println("START " + classOf(id) + "." + id.getDisplayName());
                    System.out.flush();
                }
            }

            @Override
            public void executionSkipped(final TestIdentifier id, final String reason)
            {
                System.out.println("SKIP " + classOf(id) + "." + id.getDisplayName() + " :: " + reason);
                if (id.isTest())
                {
                    byClass.computeIfAbsent(classOf(id), k -> new ArrayList<>())
                        .add(new Result(nameOf(id), classOf(id), 0, "skipped", null, reason));
                }
            }

            @Override
            public void executionFinished(final TestIdentifier id, final TestExecutionResult result)
            {
                final Long t0 = started.remove(id.getUniqueId());
                final double seconds = null == t0 ? 0 : (System.nanoTime() - t0) / 1e9;
                final Throwable error = result.getThrowable().orElse(null);
                final String status = switch (result.getStatus())
                {
                    case SUCCESSFUL -> "passed";
                    case ABORTED -> "skipped";
                    case FAILED -> error instanceof AssertionError ? "failure" : "error";
                };
                if (id.isTest())
                {
                    System.out.printf(Locale.ROOT, "END %s %s.%s %.3f s%s%n", status.toUpperCase(Locale.ROOT), classOf(id),
                        id.getDisplayName(), seconds, null == error ? "" : " :: " + error);
                    System.out.flush();
                    byClass.computeIfAbsent(classOf(id), k -> new ArrayList<>())
                        .add(new Result(nameOf(id), classOf(id), seconds, status, error,
                            "skipped".equals(status) && null != error ? String.valueOf(error.getMessage()) : null));
                }
                else if (!"passed".equals(status) && id.isContainer())
                {
                    // A class-level failure (e.g. @BeforeAll): record it as a test so it is not lost.
                    System.out.println("CONTAINER " + status + " " + id.getDisplayName() + (null == error ? "" : " :: " + error));
                    byClass.computeIfAbsent(classOf(id), k -> new ArrayList<>())
                        .add(new Result("[" + id.getDisplayName() + "]", classOf(id), seconds, status, error, null));
                }
            }
        };
        final SummaryGeneratingListener summary = new SummaryGeneratingListener();
        final Launcher launcher = LauncherFactory.create();
        final TestPlan plan = launcher.discover(request);
        launcher.execute(plan, summary, recorder);

        for (final Map.Entry<String, List<Result>> e : byClass.entrySet())
        {
            write(reports.resolve("TEST-" + e.getKey() + ".xml"), e.getKey(), e.getValue());
        }
        final PrintWriter out = new PrintWriter(System.out);
        summary.getSummary().printTo(out);
        summary.getSummary().printFailuresTo(out, 40);
        out.flush();
        final long failed = summary.getSummary().getTotalFailureCount();
        final long ran = summary.getSummary().getTestsStartedCount();
        System.exit(failed != 0 ? 1 : ran == 0 ? 2 : 0);
    }

    private static void write(final Path file, final String className, final List<Result> results) throws IOException
    {
        int failures = 0, errors = 0, skipped = 0;
        double time = 0;
        for (final Result r : results)
        {
            time += r.seconds();
            switch (r.status())
            {
                case "failure" -> failures++;
                case "error" -> errors++;
                case "skipped" -> skipped++;
                default -> { }
            }
        }
        final StringBuilder sb = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append(String.format(Locale.ROOT,
            "<testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\" hostname=\"%s\" timestamp=\"%s\">\n",
            esc(className), results.size(), failures, errors, skipped, time, esc(host()), Instant.now()));
        sb.append("  <properties>\n");
        for (final String key : List.of("java.version", "os.version", "ringwire.rdma.ibverbs.device",
            "ringwire.rdma.ibverbs.gid.index", "ringwire.test.allocation.roundTrips"))
        {
            final String v = System.getProperty(key);
            if (null != v)
            {
                sb.append("    <property name=\"").append(esc(key)).append("\" value=\"").append(esc(v)).append("\"/>\n");
            }
        }
        sb.append("  </properties>\n");
        for (final Result r : results)
        {
            sb.append(String.format(Locale.ROOT, "  <testcase name=\"%s\" classname=\"%s\" time=\"%.3f\"",
                esc(r.name()), esc(r.className()), r.seconds()));
            switch (r.status())
            {
                case "passed" -> sb.append("/>\n");
                case "skipped" -> sb.append(">\n    <skipped message=\"").append(esc(String.valueOf(r.reason())))
                    .append("\"/>\n  </testcase>\n");
                default ->
                {
                    final String tag = r.status();
                    sb.append(">\n    <").append(tag).append(" message=\"").append(esc(String.valueOf(r.error())))
                        .append("\" type=\"").append(null == r.error() ? "" : esc(r.error().getClass().getName()))
                        .append("\">").append(esc(trace(r.error()))).append("</").append(tag).append(">\n  </testcase>\n");
                }
            }
        }
        sb.append("</testsuite>\n");
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    private static String host()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final Exception e)
        {
            return "ringwire-vm";
        }
    }

    private static String trace(final Throwable t)
    {
        if (null == t)
        {
            return "";
        }
        final StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    private static String esc(final String s)
    {
        final StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                default ->
                {
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
                    {
                        sb.append('?');
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
