package io.ringwire.exchange.fix;

import io.ringwire.exchange.config.RoleFiles;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.RoleProcess;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.LoopbackPorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import quickfix.Message;
import quickfix.field.ClOrdID;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.Price;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TimeInForce;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;
import quickfix.fix44.OrderStatusRequest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX door as deployed: the engine, the gateway (its config file naming two sessions FIX
 * sessions and the door's address) and the market-data service run as processes of their own; an
 * SBE clients process trades its two sessions while two QuickFIX/J members trade theirs through the
 * door. FIX and SBE orders meet in the same books; a FIX member whose connection drops has its
 * resting orders canceled; and every lot bought is a lot sold, across both doors.
 */
@Tag("system")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class FixDoorRolesTest
{
    private static final Duration READY = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int INSTRUMENTS = 2;

    @TempDir
    Path directory;

    private final List<RoleProcess> roles = new ArrayList<>();
    private final List<FixTestClient> members = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        members.forEach(FixTestClient::close);
        roles.forEach(RoleProcess::close);
    }

    private RoleProcess start(final String name, final Path config) throws Exception
    {
        final RoleProcess role = RoleProcess.start(name, config, null);
        roles.add(role);
        return role;
    }

    /** FIX fills seen by one member: lots bought and sold, and reports by ExecID. */
    private static final class Fills
    {
        long bought;
        long sold;
        long reports;
        long canceled;
        private final java.util.Set<String> execIds = new java.util.HashSet<>();

        void add(final Message report) throws Exception
        {
            assertTrue(execIds.add(report.getString(17)), "no report twice: " + report);
            reports++;
            canceled += report.getChar(150) == '4' ? 1 : 0;
            if (report.getChar(150) == 'F')
            {
                if (report.getChar(54) == '1')
                {
                    bought += (long)report.getDouble(32);
                }
                else
                {
                    sold += (long)report.getDouble(32);
                }
            }
        }
    }

    private static Message drainUntil(final FixTestClient member, final Fills fills, final char execType)
        throws Exception
    {
        while (true)
        {
            final Message report = member.next(MsgType.EXECUTION_REPORT, WAIT);
            fills.add(report);
            if (report.getChar(150) == execType)
            {
                return report;
            }
        }
    }

    private static NewOrderSingle order(final String id, final char side, final long price, final int quantity,
        final char timeInForce)
    {
        final NewOrderSingle order = new NewOrderSingle(new ClOrdID(id), new Side(side),
            new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
        order.set(new Symbol("1"));
        order.setString(Price.FIELD, Long.toString(price));
        order.set(new OrderQty(quantity));
        order.set(new TimeInForce(timeInForce));
        return order;
    }

    @Test
    void fixAndSbeMembersTradeInTheSameBooksAndADroppedFixMembersOrdersAreCanceled() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 4, 1);
        final List<SessionConfig> sessions = ExchangeDemo.sessions(4);
        final Path files = directory.resolve("roles");
        final RoleFiles.Run run = ExchangeDemo.roleFiles(INSTRUMENTS, 4, 2_000, 1, directory.resolve("journal"),
            directory.resolve("shm"), "", 0).withLivenessTimeoutMs(5_000);
        RoleFiles.writeCore(files, layout, run);
        final int port = LoopbackPorts.pick();
        // Sessions 0 and 1 become FIX sessions: a SenderCompID where the reply endpoint was.
        final Path gatewayFile = files.resolve("gateway.conf");
        String gateway = Files.readString(gatewayFile);
        for (int i = 0; i < 2; i++)
        {
            gateway = gateway.replace("replies " + layout.clientReplies().get(i), "fix FIXMEMBER" + i);
        }
        Files.writeString(gatewayFile, gateway + "fix-door = 127.0.0.1:" + port + "\nfix-comp-id = " +
            FixDoorTest.DOOR_COMP_ID + "\nfix-store = fix-store\n");
        final long reference = Long.parseLong(gateway.lines().filter(line -> line.startsWith("price.reference"))
            .findFirst().orElseThrow().replaceAll(".*=\\s*", "").trim());

        final RoleProcess engine = start("engine", files.resolve("engine.conf"));
        final RoleProcess gatewayRole = start("gateway", gatewayFile);
        final RoleProcess marketData = start("marketdata", files.resolve("marketdata.conf"));
        final Path clientsFile = files.resolve("clients-2-4.conf");
        RoleFiles.writeClients(clientsFile, layout, run, 2, 4, -1, 0);
        final RoleProcess clients = start("clients 2:4", clientsFile);
        for (final RoleProcess role : List.of(engine, gatewayRole, marketData, clients))
        {
            role.awaitReady(READY);
        }

        final FixTestClient buyer = new FixTestClient(port, "FIXMEMBER0", sessions.get(0).token(),
            directory.resolve("member0"));
        members.add(buyer);
        final FixTestClient seller = new FixTestClient(port, "FIXMEMBER1", sessions.get(1).token(),
            directory.resolve("member1"));
        members.add(seller);
        assertTrue(buyer.awaitLogon(WAIT) && seller.awaitLogon(WAIT), "both FIX members logged on");
        final Fills buyerFills = new Fills();
        final Fills sellerFills = new Fills();

        // A FIX buyer's order rests far below the market; the FIX seller crosses it with an IOC,
        // which may meet better SBE bids first: whatever it meets, both doors' fills balance.
        final long low = reference - 400;
        buyer.send(order("B1", Side.BUY, low, 5, TimeInForce.GOOD_TILL_CANCEL));
        drainUntil(buyer, buyerFills, '0');
        seller.send(order("S1", Side.SELL, low, 5, TimeInForce.IMMEDIATE_OR_CANCEL));
        drainUntil(seller, sellerFills, '0');
        long soldByFix = 0;
        while (soldByFix < 5)
        {
            final Message report = seller.next(MsgType.EXECUTION_REPORT, WAIT);
            sellerFills.add(report);
            soldByFix = sellerFills.sold;
            if (report.getChar(150) == '4')
            {
                break;
            }
        }
        assertTrue(sellerFills.sold > 0, "the FIX seller traded");

        // Two resting orders far above the market, then the member's connection drops without a Logout.
        for (int i = 0; i < 2; i++)
        {
            buyer.send(order("R" + i, Side.SELL, reference + 400 + i, 1, TimeInForce.GOOD_TILL_CANCEL));
            drainUntil(buyer, buyerFills, '0');
        }
        buyer.session().disconnect("the member's process dies", false);
        buyer.close();
        drain(buyer, buyerFills);
        Thread.sleep(3_000);
        final Map<String, String> c = clients.quiesce(STOP);

        // The member comes back with its sequence numbers: what the door sent while it was away (its
        // cancel-on-disconnect cancels, any fill before them) is resent to it, once.
        final FixTestClient back = new FixTestClient(port, "FIXMEMBER0", sessions.get(0).token(),
            directory.resolve("member0"));
        members.add(back);
        assertTrue(back.awaitLogon(WAIT));
        drainThroughBarrier(back, buyerFills);
        drainThroughBarrier(seller, sellerFills);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, marketData.stopAndWait(STOP));
        final Map<String, String> m = marketData.report("marketdata");
        assertTrue(Long.parseLong(m.getOrDefault("dropped", "-1")) > 0,
            "no market-data subscriber: the feed went nowhere, and the service says so: " + m);
        assertEquals(0, gatewayRole.stopAndWait(STOP));
        final Map<String, String> x = gatewayRole.report("gateway");
        assertEquals(0, clients.stopAndWait(STOP));

        assertFalse(e.containsKey("resting." + sessions.get(0).account()),
            "the dropped FIX member's orders were canceled: " + e);
        assertTrue(buyerFills.canceled >= 2, "and it heard of both cancels when it came back");
        assertTrue(Long.parseLong(x.get("cancelOnDisconnect")) >= 1, x.toString());
        assertTrue(Long.parseLong(x.get("fixRequests")) >= 4, x.toString());
        assertEquals(c.get("newOrders"), c.get("acks"), "every SBE order acknowledged: " + c);
        assertEquals(Long.parseLong(c.get("bought")) + buyerFills.bought + sellerFills.bought,
            Long.parseLong(c.get("sold")) + buyerFills.sold + sellerFills.sold,
            "every lot bought was sold, across both doors: SBE " + c + ", FIX bought " + buyerFills.bought + "+" +
            sellerFills.bought + ", sold " + buyerFills.sold + "+" + sellerFills.sold);
        assertEquals(Long.parseLong(e.get("sequence")), Long.parseLong(c.get("sequences")) + buyerFills.reports +
            sellerFills.reports, "every execution report reached its member once, over either door: " + e + c);
    }

    /**
     * Reads the member's messages up to the door's answer to an OrderStatusRequest sent now, adding
     * its execution reports to its fills: the door answers that request itself (a
     * BusinessMessageReject), and FIX delivers in sequence, so whatever the door sent or resends to
     * the member before it (a ResendRequest's gap after a logon included) has been read by then.
     */
    private static void drainThroughBarrier(final FixTestClient member, final Fills fills) throws Exception
    {
        final OrderStatusRequest status = new OrderStatusRequest(new ClOrdID("barrier"), new Side(Side.BUY));
        status.set(new Symbol("1"));
        member.send(status);
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (true)
        {
            final Message message = member.received.poll(Math.max(1, deadline - System.nanoTime()),
                TimeUnit.NANOSECONDS);
            assertNotNull(message, "the door's answer to the barrier within " + WAIT);
            final String type = message.getHeader().getString(MsgType.FIELD);
            if (MsgType.BUSINESS_MESSAGE_REJECT.equals(type))
            {
                return;
            }
            if (MsgType.EXECUTION_REPORT.equals(type))
            {
                fills.add(message);
            }
        }
    }

    private static void drain(final FixTestClient member, final Fills fills) throws Exception
    {
        Message report;
        while (null != (report = member.received.poll()))
        {
            if (MsgType.EXECUTION_REPORT.equals(report.getHeader().getString(MsgType.FIELD)))
            {
                fills.add(report);
            }
        }
    }
}
