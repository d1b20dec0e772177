package io.ringwire.rdma.faults;

import io.ringwire.rdma.RdmaProvider;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * roce's fault test on a real network path: two network namespaces joined by a veth pair
 * ({@code faults/netns-lab.sh}), the kernel injecting loss 2%, duplication 1%, reordering 5% and
 * corruption 0.5% in both directions plus a 200 ms blackout half-way. A sender JVM in one namespace
 * ({@link StreamSender}) streams 100,000 messages of seeded sizes from 32 B to 64 KiB as RDMA WRITE
 * WITH IMMEDIATE into a ring the receiver JVM in the other ({@link StreamReceiver}) advertised
 * through the connection manager; the receiver proves each arrived exactly once, in order and
 * byte-exact (CRC32 and a byte comparison with the seeded payload).
 *
 * <p>Provider: {@value #PROVIDER_PROP} (default {@code roce}), or {@link #requestedProvider()} of a
 * subclass. If that provider is not on the class path the test fails, unless
 * {@value #FALLBACK_PROP} names one to use instead (e.g. {@code socket}, to check the lab and the
 * stream without {@code roce}; TCP hides the faults from its counters). For {@code roce} the
 * device counters must show the faults were handled: retransmits, duplicates, NAKs (received or
 * sequence NAKs sent) and ICRC errors all above zero. For every provider the kernel's counters must
 * show each fault fired on the data path.
 *
 * <p>Needs root (with the right to create network namespaces) and iproute2 + nftables; skipped, with
 * the reason, otherwise. Bounded: each child JVM halts itself at the end of its lifetime
 * ({@value #TIMEOUT_PROP}, 170 s by default), every wait has a timeout, and {@link #labDown()} kills
 * the processes and takes the lab down whatever happened.
 */
@Tag("system")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public class FaultyNetworkTest
{
    /** System property naming the provider under test. */
    public static final String PROVIDER_PROP = "ringwire.faults.provider";
    /** System property naming a provider to use when the one under test is not on the class path. */
    public static final String FALLBACK_PROP = "ringwire.faults.fallbackProvider";
    /** System property overriding the number of messages (default 100,000). */
    public static final String MESSAGES_PROP = "ringwire.faults.messages";
    /**
     * System property for diagnostic runs: which faults to inject, "all" (the default and the only
     * value under which the device counters are asserted), "none", or a comma list of loss, dup,
     * corrupt, reorder and blackout.
     */
    public static final String KINDS_PROP = "ringwire.faults.kinds";
    /** System property: seconds the child JVMs may live (default 170, to keep the run near three minutes). */
    public static final String TIMEOUT_PROP = "ringwire.faults.timeoutSeconds";

    private static final long SEED = 0x5EED_2026L;
    private static final String SECRET = "faulty-network-test";
    /** RoCEv2's UDP port; each end binds it in its own namespace. The socket provider uses it for TCP. */
    private static final int DATA_PORT = 4791;
    private static final long PEER_TIMEOUT_MS = 10_000;
    private static final int BLACKOUT_MS = 200;

    private final int messages = messageCount();
    private final String kinds = faultKinds();
    private final long childLifetimeMs = TimeUnit.SECONDS.toMillis(Long.getLong(TIMEOUT_PROP, 170));
    /** How long the stream may take: the children's lifetime less their start-up and the handshake. */
    private final Duration streamTimeout = Duration.ofMillis(childLifetimeMs - 20_000);
    private final List<LabProcess> processes = new ArrayList<>();
    private String provider;
    private NetnsLab lab;

    /**
     * @return the provider under test: {@value #PROVIDER_PROP}, {@code roce} by default. A subclass
     *         pinned to one provider overrides this (JUnit allows a test class one constructor only).
     */
    protected String requestedProvider()
    {
        return System.getProperty(PROVIDER_PROP, "roce");
    }

    /**
     * @return the faults to inject: {@value #KINDS_PROP}, "all" by default. A subclass that tests
     *         one fault overrides this (called while the instance is built: return a constant).
     */
    protected String faultKinds()
    {
        return System.getProperty(KINDS_PROP, "all");
    }

    /**
     * @return how many messages to stream: {@value #MESSAGES_PROP}, 100,000 by default.
     */
    protected int messageCount()
    {
        return Integer.getInteger(MESSAGES_PROP, 100_000);
    }

    /**
     * @return JVM options for both ends' processes besides the {@code ringwire.rdma.*} properties of
     *         this JVM, which they inherit.
     */
    protected List<String> childJvmOptions()
    {
        return List.of();
    }

    /**
     * What the stream's outcome must show of the faults, beyond every message arriving exactly once,
     * in order and byte-exact (asserted before this is called).
     *
     * @param outcome the run's result lines and counters.
     */
    protected void assertFaultEffects(final StreamOutcome outcome)
    {
        // The kernel did inject every fault into this stream (in either direction).
        for (final String fault : List.of("loss", "dup", "reorder", "blackout"))
        {
            if (wants(fault))
            {
                final long count = fault.equals("blackout") ?
                    outcome.kernelCount("blackout_out") + outcome.kernelCount("blackout_in") : outcome.kernelCount(fault);
                assertTrue(count > 0, "the lab injected no " + fault + ": " + outcome.kernel());
            }
        }
        if (!"all".equals(kinds))
        {
            System.out.println("FaultyNetworkTest: diagnostic run with " + KINDS_PROP + "=" + kinds +
                "; the device counters are asserted only with all faults");
        }
        else if ("roce".equals(provider))
        {
            // The transport saw the faults and recovered from each kind.
            final Map<String, Long> counters = outcome.counters();
            assertTrue(outcome.kernelCount("corrupt") > 0, "the lab corrupted no UDP packet: " + outcome.kernel());
            assertTrue(counters.get("retransmits") > 0, "no retransmits: " + counters);
            assertTrue(counters.get("duplicate_requests") > 0, "no duplicate requests seen: " + counters);
            assertTrue(counters.get("naks_received") + counters.get("sequence_naks_sent") > 0, "no NAKs: " + counters);
            assertTrue(counters.get("icrc_errors") > 0, "no ICRC errors: " + counters);
        }
        else
        {
            System.out.println("FaultyNetworkTest: provider '" + provider + "' is not roce, so its transport may hide " +
                "the faults from the device counters; only the kernel's fault counters were asserted");
        }
    }

    @BeforeAll
    void labUp() throws Exception
    {
        final String reason = NetnsLab.unavailableReason();
        Assumptions.assumeTrue(null == reason, () -> "FaultyNetworkTest skipped: " + reason);
        provider = resolveProvider();
        lab = NetnsLab.up();
    }

    private String resolveProvider()
    {
        final List<String> available = RdmaProviders.all().stream().map(RdmaProvider::name).toList();
        final String requested = requestedProvider();
        if (available.contains(requested))
        {
            return requested;
        }
        final String fallback = System.getProperty(FALLBACK_PROP);
        if (null != fallback && available.contains(fallback))
        {
            System.out.println("FaultyNetworkTest: provider '" + requested + "' is not on the class path " +
                available + "; FALLING BACK to '" + fallback + "' as " + FALLBACK_PROP + " allows");
            return fallback;
        }
        return fail("provider '" + requested + "' is not on the class path (available: " + available + "); " +
            "set -D" + PROVIDER_PROP + "=<provider>, or -D" + FALLBACK_PROP + "=socket to validate the lab without it");
    }

    @AfterAll
    void labDown() throws Exception
    {
        processes.forEach(LabProcess::close);
        processes.clear();
        if (null != lab)
        {
            lab.close();
        }
    }

    @Test
    void mixedMessagesArriveExactlyOnceInOrderByteExactThroughTheLabsKernelFaults() throws Exception
    {
        final StreamOutcome outcome = streamUnderFaults();
        System.out.println(outcome);
        assertTrue(outcome.verdict().startsWith("VERDICT OK messages=" + messages + " "), "receiver: " + outcome.verdict());
        assertTrue(outcome.senderResult().startsWith("DONE messages=" + messages + " "), "sender: " + outcome.senderResult());
        assertEquals(0, outcome.receiverExit(), "receiver exit status");
        assertEquals(0, outcome.senderExit(), "sender exit status");

        assertFaultEffects(outcome);
    }

    /**
     * What one run produced: the two ends' result lines and exit statuses, their device counters
     * summed, and the kernel's fault counters.
     */
    protected record StreamOutcome(String verdict, String senderResult, int receiverExit, int senderExit,
        Map<String, Long> counters, Map<String, String> kernel, String description)
    {
        long kernelCount(final String fault)
        {
            return Long.parseLong(kernel.getOrDefault("a_" + fault, "0")) +
                Long.parseLong(kernel.getOrDefault("b_" + fault, "0"));
        }

        @Override
        public String toString()
        {
            return description;
        }
    }

    /**
     * Starts the receiver (namespace b) and the sender (namespace a), lets them connect, switches the
     * faults on, starts the stream, injects the blackout half-way and collects both ends' results.
     * Fails at once if the receiver's verdict is not OK.
     */
    private StreamOutcome streamUnderFaults() throws Exception
    {
        final long startNs = System.nanoTime();
        final LabProcess receiver = start("receiver", NetnsLab.B, StreamReceiver.class,
            List.of("listen=" + lab.address(NetnsLab.B)));
        final String listener = receiver.awaitLine(Duration.ofSeconds(60), "LISTENING").split(" ")[1];
        final LabProcess sender = start("sender", NetnsLab.A, StreamSender.class, List.of("connect=" + listener));
        sender.awaitLine(Duration.ofSeconds(60), "CONNECTED");
        receiver.awaitLine(Duration.ofSeconds(30), "CONNECTED");

        // The connection manager's TCP exchange is over (its connection closed): fault everything now.
        final String packetFaults = packetFaults();
        if (!packetFaults.isEmpty())
        {
            lab.faultsOn(packetFaults);
        }
        sender.send("GO");
        final long streamStartNs = System.nanoTime();
        final long deadlineNs = System.nanoTime() + streamTimeout.toNanos();
        if (wants("blackout"))
        {
            awaitHalfWay(receiver, sender, deadlineNs);
            System.out.println("blackout half-way: " + lab.blackout(BLACKOUT_MS));
        }

        final String verdict = awaitReceiver(receiver, sender, deadlineNs, "VERDICT");
        final String receiverCounters = receiver.awaitLine(Duration.ofSeconds(10), "COUNTERS");
        assertTrue(verdict.startsWith("VERDICT OK"), "receiver: " + verdict + "\n  " + receiverCounters +
            "\n  kernel: " + lab.stats());
        final String senderResult = sender.awaitLine(Duration.ofSeconds(60), "DONE", "FAIL");
        if (senderResult.startsWith("DONE"))
        {
            sender.send("EXIT"); // the receiver has its verdict: the sender may disconnect now
        }
        final String senderCounters = sender.awaitLine(Duration.ofSeconds(10), "COUNTERS");
        final long streamMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - streamStartNs);
        final Map<String, String> kernel = lab.stats();
        lab.faultsOff();
        final int receiverExit = receiver.awaitExit(Duration.ofSeconds(30));
        final int senderExit = sender.awaitExit(Duration.ofSeconds(30));

        final String description = "FaultyNetworkTest provider=" + provider + " faults=" + kinds + " messages=" +
            messages + " streamMs=" + streamMs + " totalMs=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) +
            "\n  receiver: " + verdict + "\n  sender: " + senderResult + "\n  " + receiverCounters + "\n  " +
            senderCounters + "\n  kernel: " + kernel;
        return new StreamOutcome(verdict, senderResult, receiverExit, senderExit,
            sum(parseCounters(receiverCounters), parseCounters(senderCounters)), kernel, description);
    }

    private boolean wants(final String fault)
    {
        return "all".equals(kinds) || List.of(kinds.split(",")).contains(fault);
    }

    /**
     * @return the packet faults to switch on for netns-lab.sh ("all", a comma list, or empty).
     */
    private String packetFaults()
    {
        if ("all".equals(kinds))
        {
            return "all";
        }
        final List<String> selected = new ArrayList<>();
        for (final String kind : kinds.split(","))
        {
            switch (kind)
            {
                case "loss", "dup", "corrupt", "reorder", "icrcblind" -> selected.add(kind);
                case "blackout", "none" -> { }
                default -> fail(KINDS_PROP + "='" + kinds + "': allowed are all, none, or a comma list of loss, dup, " +
                    "corrupt, reorder, blackout");
            }
        }
        return String.join(",", selected);
    }

    private LabProcess start(final String name, final String side, final Class<?> mainClass, final List<String> extra)
        throws Exception
    {
        final List<String> args = new ArrayList<>(List.of(
            "provider=" + provider,
            "bind=" + lab.address(side) + ":" + DATA_PORT,
            "messages=" + messages,
            "seed=" + SEED,
            "secret=" + SECRET,
            "peerTimeoutMs=" + PEER_TIMEOUT_MS,
            "lifetimeMs=" + childLifetimeMs));
        args.addAll(extra);
        final LabProcess process = LabProcess.start(name, lab.javaCommand(side, mainClass, childJvmOptions(), args));
        processes.add(process);
        return process;
    }

    private void awaitHalfWay(final LabProcess receiver, final LabProcess sender, final long deadlineNs)
        throws InterruptedException
    {
        while (true)
        {
            final String line = awaitReceiver(receiver, sender, deadlineNs, "PROGRESS", "VERDICT");
            if (line.startsWith("VERDICT"))
            {
                fail("the receiver finished before the blackout could be injected: " + line);
            }
            if (Long.parseLong(line.split(" ")[1]) >= messages / 2)
            {
                return;
            }
        }
    }

    /**
     * Waits for the receiver's next line with one of the prefixes until the deadline, failing at once
     * if the sender reports a failure meanwhile (the receiver would otherwise wait out its lifetime).
     */
    private String awaitReceiver(final LabProcess receiver, final LabProcess sender, final long deadlineNs,
        final String... prefixes) throws InterruptedException
    {
        while (System.nanoTime() < deadlineNs)
        {
            final String line = receiver.pollLine(Duration.ofSeconds(1), prefixes);
            if (null != line)
            {
                return line;
            }
            final String senderFailure = sender.printed("FAIL");
            if (null != senderFailure)
            {
                fail("the sender failed: " + senderFailure + "\nsender output:\n" + sender.tail(30) +
                    "\nreceiver output:\n" + receiver.tail(10));
            }
        }
        return fail("no " + List.of(prefixes) + " from the receiver within " + streamTimeout.toSeconds() + " s of the " +
            "start; receiver output:\n" + receiver.tail(20) + "\nsender output:\n" + sender.tail(10));
    }

    private static Map<String, Long> parseCounters(final String line)
    {
        final Map<String, Long> values = new HashMap<>();
        for (final String field : line.split(" "))
        {
            final int eq = field.indexOf('=');
            if (eq > 0 && field.substring(eq + 1).matches("-?\\d+"))
            {
                values.put(field.substring(0, eq), Long.parseLong(field.substring(eq + 1)));
            }
        }
        return values;
    }

    private static Map<String, Long> sum(final Map<String, Long> a, final Map<String, Long> b)
    {
        final Map<String, Long> total = new TreeMap<>(a);
        b.forEach((key, value) -> total.merge(key, value, Long::sum));
        return total;
    }
}
