package io.ringwire.exchange.config;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.RoleProcess;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.node.ExchangeLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The exchange deployed host by host: each role (engine, gateway, market data, clients) in a
 * network namespace of its own with a real address on the namespaces' subnet (veth pairs into one
 * bridge), started from the config file and identity keys written for it, over roce and over
 * socket. They trade, and conservation holds: every new order acknowledged once, as much bought as
 * sold, every execution report once, the market-data subscriber's books equal the engine's.
 *
 * <p>Needs root and iproute2 with bridge support; without them it is skipped, or fails when
 * {@value #REQUIRE_PROP} is set (as {@code ringwire test} sets it).
 */
@Tag("system")
class RolesInNamespacesTest
{
    static final String REQUIRE_PROP = "ringwire.test.require.native";
    private static final List<String> ROLES = List.of("engine", "gateway", "marketdata", "clients");
    private static final Duration READY = Duration.ofSeconds(90);
    private static final Duration STOP = Duration.ofSeconds(30);
    private static final int CLIENTS = 2;
    private static final long RATE = 2_000;

    @TempDir
    Path directory;

    private final String lab = "rwx" + ProcessHandle.current().pid() % 100_000;
    private final int subnet = (int)(ProcessHandle.current().pid() % 200) + 20;
    private final List<RoleProcess> roles = new ArrayList<>();

    @BeforeEach
    void namespacesJoinedByABridge() throws Exception
    {
        final String refusal = refusal();
        if (null != refusal)
        {
            // The property says the packages are there; a user who is not root still cannot run this.
            if (Boolean.getBoolean(REQUIRE_PROP) && "root".equals(System.getProperty("user.name")))
            {
                fail(refusal + " (" + REQUIRE_PROP + " is set)");
            }
            Assumptions.abort(refusal);
        }
        down();
        ip("netns", "add", namespace("hub"));
        ip("-n", namespace("hub"), "link", "add", "br0", "type", "bridge");
        ip("-n", namespace("hub"), "link", "set", "br0", "up");
        for (int i = 0; i < ROLES.size(); i++)
        {
            final String role = ROLES.get(i);
            final String inside = lab + i + "a";
            final String outside = lab + i + "b";
            ip("netns", "add", namespace(role));
            ip("link", "add", inside, "type", "veth", "peer", "name", outside);
            ip("link", "set", inside, "netns", namespace(role));
            ip("link", "set", outside, "netns", namespace("hub"));
            ip("-n", namespace("hub"), "link", "set", outside, "master", "br0", "up");
            ip("-n", namespace(role), "addr", "add", address(i) + "/24", "dev", inside);
            ip("-n", namespace(role), "link", "set", inside, "up");
            ip("-n", namespace(role), "link", "set", "lo", "up");
        }
    }

    @AfterEach
    void tearDown() throws Exception
    {
        roles.forEach(RoleProcess::close);
        down();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "roce", "socket" })
    void rolesInNamespacesOfTheirOwnTradeFromTheirConfigFilesAndConserve(final String provider) throws Exception
    {
        final ExchangeLayout layout = new ExchangeLayout(provider,
            address(1) + ":40110", address(1) + ":40113", address(0) + ":40112", address(2) + ":40114",
            address(2) + ":40116",
            List.of(address(3) + ":40201", address(3) + ":40202"),
            List.of("member-101", "member-102"),
            List.of(address(3) + ":40301"), List.of(ExchangeLayout.marketDataSubscriber(0)));
        final Path files = directory.resolve("roles");
        // Four JVMs and the test's on two cores: a role may pause for seconds while they all start.
        final RoleFiles.Run run = ExchangeDemo.roleFiles(4, CLIENTS, RATE, 3, directory.resolve("journal"),
            directory.resolve("shm"), "", 0).withLivenessTimeoutMs(10_000);
        RoleFiles.writeCore(files, layout, run);
        RoleFiles.writeClients(files.resolve("clients.conf"), layout, run, 0, CLIENTS, 0, 0);

        final RoleProcess engine = start("engine", files.resolve("engine.conf"));
        final RoleProcess gateway = start("gateway", files.resolve("gateway.conf"));
        final RoleProcess marketData = start("marketdata", files.resolve("marketdata.conf"));
        final RoleProcess clients = start("clients", files.resolve("clients.conf"));
        for (final RoleProcess role : List.of(engine, gateway, marketData, clients))
        {
            role.awaitReady(READY);
        }
        Thread.sleep(5_000);

        final Map<String, String> c = clients.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, gateway.stopAndWait(STOP));
        assertEquals(0, marketData.stopAndWait(STOP));
        assertEquals(0, clients.stopAndWait(STOP));
        // Every role's counters, so that a failure says which hop lost what.
        final String reports = "; clients " + c + "; gateway " + gateway.report("gateway") + "; engine " + e +
            "; market data " + marketData.report("marketdata");

        assertTrue(Long.parseLong(c.get("newOrders")) > 500, "the flow ran" + reports);
        // Five JVMs on two cores: the gateway may cut a client's session as a slow consumer. Orders
        // the client sent before it found the session lost may go unanswered (the gateway refuses a
        // request of a session not logged on); every other one is acknowledged.
        final long unanswered = Long.parseLong(c.get("unansweredAcrossHold")) +
            Long.parseLong(c.get("unansweredAcrossLoss"));
        assertEquals(Long.parseLong(c.get("newOrders")), Long.parseLong(c.get("acks")) + unanswered,
            "every new order acknowledged, but those sent into a session the gateway had lost" + reports);
        assertTrue(0 == unanswered || Long.parseLong(c.get("sessionsLost")) > 0,
            "an order goes unanswered only across a lost session" + reports);
        assertEquals("0", c.get("duplicateAcks"), c.toString());
        assertEquals(c.get("bought"), c.get("sold"), "each fill has both sides: " + c);
        assertEquals(e.get("sequence"), c.get("sequences"), "every execution report once" + reports);
        assertEquals("0", c.get("duplicateSequences"), c.toString());
        assertEquals(e.get("books"), c.get("books"), "the subscriber's books are the engine's");
        assertEquals(e.get("digest"), JournaledEngine.replay(directory.resolve("journal")).digest());
    }

    private RoleProcess start(final String role, final Path config) throws IOException
    {
        final RoleProcess process = RoleProcess.start(role, List.of("ip", "netns", "exec", namespace(role)), config,
            line -> System.out.println(role + ": " + line));
        roles.add(process);
        return process;
    }

    private String namespace(final String role)
    {
        return lab + "-" + role;
    }

    private String address(final int index)
    {
        return "10.201." + subnet + "." + (10 + index);
    }

    private static String refusal() throws InterruptedException
    {
        if (!"root".equals(System.getProperty("user.name")))
        {
            return "the namespace lab needs root (user is " + System.getProperty("user.name") + ")";
        }
        try
        {
            final Process probe = new ProcessBuilder("ip", "-V").redirectErrorStream(true).start();
            return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0 ? null : "ip -V failed";
        }
        catch (final IOException ex)
        {
            return "iproute2 (ip) is not installed: " + ex.getMessage();
        }
    }

    private void down() throws Exception
    {
        for (final String role : List.of("engine", "gateway", "marketdata", "clients", "hub"))
        {
            new ProcessBuilder("ip", "netns", "del", namespace(role)).redirectErrorStream(true).start()
                .waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void ip(final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of("timeout", "10", "ip"));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(15, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            fail("ip " + String.join(" ", args) + " failed: " + output);
        }
    }
}
