package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.LogoutEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.field.ClOrdID;
import quickfix.field.ExecInst;
import quickfix.field.MassCancelRequestType;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.OrigClOrdID;
import quickfix.field.Price;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TimeInForce;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;
import quickfix.fix44.OrderCancelReplaceRequest;
import quickfix.fix44.OrderCancelRequest;
import quickfix.fix44.OrderMassCancelRequest;
import quickfix.fix44.OrderStatusRequest;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX 4.4 door over real TCP, driven by QuickFIX/J initiators: members log on with their
 * SenderCompID and password and trade through the gateway's checks and the real matching engine;
 * every answer is the FIX message FIX 4.4 prescribes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FixDoorTest
{
    static final String DOOR_COMP_ID = "RINGWIRE";
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    private FixExchange exchange;
    private final List<FixTestClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception
    {
        exchange = new FixExchange(directory.resolve("door"));
    }

    @AfterEach
    void stop() throws Exception
    {
        clients.forEach(FixTestClient::close);
        exchange.close();
    }

    private FixTestClient logOn(final String member, final String password) throws Exception
    {
        final FixTestClient client = new FixTestClient(exchange.port, member, password, null);
        clients.add(client);
        assertTrue(client.awaitLogon(WAIT), member + " logged on");
        return client;
    }

    private static NewOrderSingle limit(final String clOrdId, final char side, final String price, final int quantity,
        final char timeInForce)
    {
        final NewOrderSingle order = new NewOrderSingle(new ClOrdID(clOrdId), new Side(side),
            new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
        order.set(new Symbol("1"));
        order.set(new Price(Double.parseDouble(price)));
        order.setString(Price.FIELD, price);
        order.set(new OrderQty(quantity));
        order.set(new TimeInForce(timeInForce));
        return order;
    }

    /** An OrderCancelRequest for the buy order {@code origClOrdId} on instrument 1. */
    private static OrderCancelRequest cancel(final String origClOrdId, final String clOrdId)
    {
        final OrderCancelRequest cancel = new OrderCancelRequest(new OrigClOrdID(origClOrdId), new ClOrdID(clOrdId),
            new Side(Side.BUY), new TransactTime(LocalDateTime.now()));
        cancel.set(new Symbol("1"));
        return cancel;
    }

    private static char execType(final Message report) throws Exception
    {
        return report.getChar(150);
    }

    @Test
    void twoMembersTradeAndEachHearsItsFillWithQuantitiesAndPrices() throws Exception
    {
        final FixTestClient buyer = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        final FixTestClient seller = logOn(FixExchange.MEMBER_B, FixExchange.PASSWORD_B);

        buyer.send(limit("B-1", Side.BUY, "1000", 10, TimeInForce.DAY));
        final Message acked = buyer.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('0', execType(acked));
        assertEquals('0', acked.getChar(39));
        assertEquals("B-1", acked.getString(11));
        assertEquals(10, acked.getDouble(151), 0);

        seller.send(limit("S-1", Side.SELL, "995", 4, TimeInForce.DAY));
        assertEquals('0', execType(seller.next(MsgType.EXECUTION_REPORT, WAIT)), "the engine acknowledges first");
        final Message sold = seller.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('F', execType(sold), "a trade");
        assertEquals('2', sold.getChar(39), "the seller is filled");
        assertEquals(1000, sold.getDouble(31), 0, "at the resting price");
        assertEquals(4, sold.getDouble(32), 0);
        assertEquals(4, sold.getDouble(14), 0);
        assertEquals(0, sold.getDouble(151), 0);
        assertEquals(1000, sold.getDouble(6), 0, "AvgPx");

        final Message bought = buyer.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('F', execType(bought));
        assertEquals('1', bought.getChar(39), "the buyer is partially filled");
        assertEquals("B-1", bought.getString(11));
        assertEquals(4, bought.getDouble(32), 0);
        assertEquals(6, bought.getDouble(151), 0);
        assertEquals(4, bought.getDouble(14), 0);
        assertEquals(1, exchange.openOrders(0));
    }

    @Test
    void aCancelAndAReplaceNameTheirOrderAndAnUnknownOneIsAnOrderCancelReject() throws Exception
    {
        final FixTestClient client = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        client.send(limit("O-1", Side.BUY, "990", 5, TimeInForce.GOOD_TILL_CANCEL));
        assertEquals('0', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)));

        final OrderCancelReplaceRequest replace = new OrderCancelReplaceRequest(new OrigClOrdID("O-1"),
            new ClOrdID("O-2"), new Side(Side.BUY), new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
        replace.set(new Symbol("1"));
        replace.setString(Price.FIELD, "991");
        replace.set(new OrderQty(7));
        client.send(replace);
        final Message replaced = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('5', execType(replaced));
        assertEquals("O-2", replaced.getString(11));
        assertEquals("O-1", replaced.getString(41));
        assertEquals(991, replaced.getDouble(44), 0);
        assertEquals(7, replaced.getDouble(151), 0);

        // A cancel that reuses the live order's own ClOrdID: refused as a cancel, the order live.
        client.send(cancel("O-2", "O-2"));
        final Message duplicate = client.next(MsgType.ORDER_CANCEL_REJECT, WAIT);
        assertEquals(6, duplicate.getInt(102), "CxlRejReason: duplicate ClOrdID");
        assertEquals('0', duplicate.getChar(39), "the order is still live");
        assertEquals(1, exchange.liveOrders());

        client.send(cancel("O-2", "C-1"));
        final Message canceled = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('4', execType(canceled));
        assertEquals('4', canceled.getChar(39));
        assertEquals("C-1", canceled.getString(11), "the cancel's ClOrdID");
        assertEquals("O-2", canceled.getString(41), "the order's as OrigClOrdID");
        assertEquals(0, exchange.liveOrders());

        client.send(cancel("O-2", "C-2"));
        final Message refused = client.next(MsgType.ORDER_CANCEL_REJECT, WAIT);
        assertEquals("C-2", refused.getString(11));
        assertEquals("O-2", refused.getString(41));
        assertEquals('1', refused.getChar(434), "CxlRejResponseTo: cancel");
        assertEquals(0, refused.getInt(102), "CxlRejReason: too late to cancel");
        assertEquals('4', refused.getChar(39), "the order's status: canceled");
        assertEquals("too late to cancel: the order is canceled", refused.getString(58));

        // A door-side refusal (the ClOrdID is the canceled order's own) also gives the order's status.
        client.send(cancel("O-2", "O-1"));
        final Message duplicateAfter = client.next(MsgType.ORDER_CANCEL_REJECT, WAIT);
        assertEquals(6, duplicateAfter.getInt(102), "CxlRejReason: duplicate ClOrdID");
        assertEquals('4', duplicateAfter.getChar(39), "the order's status: canceled");

        client.send(cancel("NEVER", "C-3"));
        assertEquals(1, client.next(MsgType.ORDER_CANCEL_REJECT, WAIT).getInt(102), "refused at the door");

        // A cancel sent again before the first is answered: the first has the order's CANCELED
        // report, the second an OrderCancelReject of its own.
        client.send(limit("O-3", Side.BUY, "990", 5, TimeInForce.GOOD_TILL_CANCEL));
        assertEquals('0', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)));
        client.send(cancel("O-3", "C-4"));
        client.send(cancel("O-3", "C-5"));
        final Message first = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('4', execType(first));
        assertEquals("C-4", first.getString(11));
        assertEquals("O-3", first.getString(41));
        final Message again = client.next(MsgType.ORDER_CANCEL_REJECT, WAIT);
        assertEquals("C-5", again.getString(11));
        assertEquals("O-3", again.getString(41));
        assertEquals(0, again.getInt(102), "CxlRejReason: too late to cancel");
    }

    @Test
    void immediateOrCancelAndFillOrKillWithoutLiquidityEndAtOnce() throws Exception
    {
        final FixTestClient client = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        client.send(limit("I-1", Side.BUY, "1000", 3, TimeInForce.IMMEDIATE_OR_CANCEL));
        assertEquals('0', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)));
        final Message ioc = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('4', ioc.getChar(39), "the IOC's remainder is canceled: " + ioc);
        assertEquals(0, ioc.getDouble(151), 0);
        assertEquals("immediate-or-cancel remainder canceled", ioc.getString(58));

        client.send(limit("F-1", Side.BUY, "1000", 3, TimeInForce.FILL_OR_KILL));
        Message fok = client.next(MsgType.EXECUTION_REPORT, WAIT);
        if (execType(fok) == '0')
        {
            fok = client.next(MsgType.EXECUTION_REPORT, WAIT);
        }
        assertTrue(fok.getChar(39) == '4' || fok.getChar(39) == '8', "the FOK ends unfilled: " + fok);
        assertEquals(0, fok.getDouble(14), 0);
        assertEquals(0, exchange.liveOrders());
    }

    @Test
    void aMassCancelIsAnsweredWithItsReportAndCancelsTheMembersOrders() throws Exception
    {
        final FixTestClient client = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        for (int i = 1; i <= 3; i++)
        {
            client.send(limit("M-" + i, Side.BUY, String.valueOf(990 - i), 1, TimeInForce.DAY));
            assertEquals('0', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)));
        }
        final OrderMassCancelRequest request = new OrderMassCancelRequest(new ClOrdID("MC-1"),
            new MassCancelRequestType(MassCancelRequestType.CANCEL_ALL_ORDERS), new TransactTime(LocalDateTime.now()));
        client.send(request);
        final Message report = client.next(MsgType.ORDER_MASS_CANCEL_REPORT, WAIT);
        assertEquals('7', report.getChar(531), "accepted: all orders");
        for (int i = 0; i < 3; i++)
        {
            assertEquals('4', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)));
        }
        assertEquals(0, exchange.liveOrders());

        // The door's own refusals name the request as the member sent it: its type and Symbol.
        final OrderMassCancelRequest badSymbol = new OrderMassCancelRequest(new ClOrdID("MC-2"),
            new MassCancelRequestType(MassCancelRequestType.CANCEL_ORDERS_FOR_A_SECURITY),
            new TransactTime(LocalDateTime.now()));
        badSymbol.set(new Symbol("abc"));
        client.send(badSymbol);
        final Message badSymbolReport = client.next(MsgType.ORDER_MASS_CANCEL_REPORT, WAIT);
        assertEquals('0', badSymbolReport.getChar(531), "rejected");
        assertEquals('1', badSymbolReport.getChar(530), "the request's own type");
        assertEquals("abc", badSymbolReport.getString(55));
        assertEquals("MC-2", badSymbolReport.getString(11));

        client.send(new OrderMassCancelRequest(new ClOrdID("MC-3"),
            new MassCancelRequestType(MassCancelRequestType.CANCEL_ORDERS_FOR_A_CFICODE),
            new TransactTime(LocalDateTime.now())));
        final Message byCfiCode = client.next(MsgType.ORDER_MASS_CANCEL_REPORT, WAIT);
        assertEquals('0', byCfiCode.getChar(531), "rejected");
        assertEquals(MassCancelRequestType.CANCEL_ORDERS_FOR_A_CFICODE, byCfiCode.getChar(530),
            "the request's own type");
    }

    @Test
    void aWrongPasswordIsRefusedAndNeverLogsOn() throws Exception
    {
        final FixTestClient intruder = new FixTestClient(exchange.port, FixExchange.MEMBER_A, "not-the-token", null);
        clients.add(intruder);
        // The refusal is awaited, not a wait without a logon: a client that has not connected yet
        // is not logged on either.
        final long refusedBy = System.nanoTime() + WAIT.toNanos();
        while (exchange.door.logonsRefused() < 1 && System.nanoTime() < refusedBy)
        {
            Thread.sleep(5);
        }
        assertTrue(exchange.door.logonsRefused() >= 1);
        assertFalse(intruder.awaitLogon(Duration.ofSeconds(1)));
        final FixTestClient stranger = new FixTestClient(exchange.port, "NOBODY", FixExchange.PASSWORD_A, null);
        clients.add(stranger);
        assertFalse(stranger.awaitLogon(Duration.ofSeconds(2)), "an unknown SenderCompID");
    }

    @Test
    void aClientThatDropsItsConnectionHasItsRestingOrdersCanceled() throws Exception
    {
        final FixTestClient client = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        for (int i = 1; i <= 2; i++)
        {
            client.send(limit("K-" + i, Side.SELL, String.valueOf(1010 + i), 2, TimeInForce.GOOD_TILL_CANCEL));
            assertEquals('0', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)));
        }
        assertEquals(2, exchange.liveOrders());
        client.session().disconnect("killed", false);
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (exchange.liveOrders() > 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertEquals(0, exchange.liveOrders(), "cancel-on-disconnect");
    }

    /**
     * Member A logs on, then, on the gateway's thread so that it reads nothing meanwhile, drops and
     * logs on again, and only then does {@code gatewayActs} run there, as the gateway still knowing
     * the first connection alone: returns the second connection.
     */
    private FixTestClient reconnectedWhileTheGatewayWaits(final Runnable gatewayActs) throws Exception
    {
        final Path store = directory.resolve("member");
        final FixTestClient first = new FixTestClient(exchange.port, FixExchange.MEMBER_A, FixExchange.PASSWORD_A, store);
        clients.add(first);
        assertTrue(first.awaitLogon(WAIT));
        final FixTestClient[] again = new FixTestClient[1];
        exchange.onThread(() ->
        {
            first.kill();
            final SessionID doorSide = new SessionID("FIX.4.4", DOOR_COMP_ID, FixExchange.MEMBER_A);
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (Session.lookupSession(doorSide).isLoggedOn() && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            again[0] = new FixTestClient(exchange.port, FixExchange.MEMBER_A, FixExchange.PASSWORD_A, store);
            clients.add(again[0]);
            assertTrue(again[0].awaitLogon(WAIT), "logged on again");
            gatewayActs.run();
            return null;
        });
        return again[0];
    }

    @Test
    void aDisconnectTheGatewayAskedForTheMembersEarlierConnectionLeavesItsNewOneUp() throws Exception
    {
        final FixTestClient second = reconnectedWhileTheGatewayWaits(
            () -> exchange.door.disconnect(FixDoor.FIRST_TRANSPORT));
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (exchange.door.disconnectsStale() == 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(1, exchange.door.disconnectsStale(), "the disconnect was for the connection gone");
        assertEquals(0, exchange.door.disconnectsDone());
        assertTrue(second.isLoggedOn(), "the new connection is up");
        second.send(limit("N-1", Side.BUY, "1000", 1, TimeInForce.DAY));
        assertEquals('0', execType(second.next(MsgType.EXECUTION_REPORT, WAIT)), "and trades");

        // The gateway, having read the new logon, cuts the connection it knows: that one goes.
        exchange.onThread(() ->
        {
            exchange.door.disconnect(FixDoor.FIRST_TRANSPORT);
            return null;
        });
        final long cut = System.nanoTime() + WAIT.toNanos();
        // The door closes the socket, then counts: the client may see the close first.
        while ((second.isLoggedOn() || exchange.door.disconnectsDone() < 1) && System.nanoTime() < cut)
        {
            Thread.sleep(5);
        }
        assertFalse(second.isLoggedOn(), "the connection the gateway knew is closed");
        assertEquals(1, exchange.door.disconnectsDone());
    }

    @Test
    void aLogoutTheGatewaySentForTheMembersEarlierConnectionLeavesItsNewOneUp() throws Exception
    {
        final UnsafeBuffer logout = new UnsafeBuffer(new byte[64]);
        final int logoutLength = MessageHeaderEncoder.ENCODED_LENGTH + new LogoutEncoder()
            .wrapAndApplyHeader(logout, 0, new MessageHeaderEncoder()).sessionId(7).sendingTime(1).encodedLength();
        final FixTestClient second = reconnectedWhileTheGatewayWaits(
            () -> assertTrue(exchange.door.toSession(0, logout, 0, logoutLength)));
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (exchange.door.logoutsStale() == 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(1, exchange.door.logoutsStale(), "the Logout was for the connection gone");
        assertTrue(second.isLoggedOn(), "the new connection is up");
        second.send(limit("N-1", Side.BUY, "1000", 1, TimeInForce.DAY));
        assertEquals('0', execType(second.next(MsgType.EXECUTION_REPORT, WAIT)), "and trades");

        // The gateway, having read the new logon, ends the session it knows: that connection logs out.
        exchange.onThread(() -> exchange.door.toSession(0, logout, 0, logoutLength));
        final long cut = System.nanoTime() + WAIT.toNanos();
        while (second.isLoggedOn() && System.nanoTime() < cut)
        {
            Thread.sleep(5);
        }
        assertFalse(second.isLoggedOn(), "the connection the gateway knew is logged out");
        assertEquals(1, exchange.door.logoutsStale());
    }

    @Test
    void whatTheExchangeCannotTakeIsRefusedWithItsReasonAndAnUnsupportedMessageWithABusinessReject() throws Exception
    {
        final FixTestClient client = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        client.send(limit("P-1", Side.BUY, "1000.5", 1, TimeInForce.DAY));
        final Message fractional = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('8', execType(fractional));
        assertEquals(99, fractional.getInt(103));
        assertTrue(fractional.getString(58).contains("Price"), fractional.getString(58));

        final NewOrderSingle postOnly = limit("P-2", Side.BUY, "1000", 1, TimeInForce.DAY);
        postOnly.set(new ExecInst("G"));
        client.send(postOnly);
        assertEquals(11, client.next(MsgType.EXECUTION_REPORT, WAIT).getInt(103), "unsupported ExecInst");

        client.send(limit("P-3", Side.BUY, "1000", 5_000, TimeInForce.DAY));
        final Message risk = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals(3, risk.getInt(103), "the gateway's risk check: order exceeds limit");
        assertEquals("quantity above the session's maximum", risk.getString(58));

        client.send(limit("P-3", Side.BUY, "1000", 1, TimeInForce.DAY));
        assertEquals('0', execType(client.next(MsgType.EXECUTION_REPORT, WAIT)), "a refused id may be used again");
        client.send(limit("P-3", Side.BUY, "1000", 1, TimeInForce.DAY));
        assertEquals(6, client.next(MsgType.EXECUTION_REPORT, WAIT).getInt(103), "a duplicate ClOrdID");

        final long refusedBefore = exchange.door.refusals();
        final OrderStatusRequest status = new OrderStatusRequest(new ClOrdID("P-1"), new Side(Side.BUY));
        status.set(new Symbol("1"));
        client.send(status);
        final Message reject = client.next(MsgType.BUSINESS_MESSAGE_REJECT, WAIT);
        assertEquals("H", reject.getString(372));
        assertEquals(refusedBefore + 1, exchange.door.refusals(), "an unsupported message is counted as refused");

        // OrderQty is optional in FIX 4.4's dictionary (its component may carry CashOrderQty instead):
        // an order or a replace without it is refused as what it is, an order's reject or an
        // OrderCancelReject, which is what the member's pending request waits on.
        final NewOrderSingle noQuantity = limit("P-4", Side.BUY, "1000", 1, TimeInForce.DAY);
        noQuantity.removeField(OrderQty.FIELD);
        client.send(noQuantity);
        final Message missing = client.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('8', execType(missing));
        assertEquals("P-4", missing.getString(11));
        assertEquals(13, missing.getInt(103), "OrdRejReason: incorrect quantity");

        final OrderCancelReplaceRequest replaceNoQuantity = replace("P-3", "P-5", "1001", 1);
        replaceNoQuantity.removeField(OrderQty.FIELD);
        client.send(replaceNoQuantity);
        final Message replaceMissing = client.next(MsgType.ORDER_CANCEL_REJECT, WAIT);
        assertEquals("P-5", replaceMissing.getString(11));
        assertEquals("P-3", replaceMissing.getString(41));
        assertEquals('2', replaceMissing.getChar(434), "CxlRejResponseTo: replace");
        assertTrue(client.isLoggedOn(), "the session survives");
    }

    @Test
    void aReplaceThatOnlyReducesQuantityKeepsPriorityAndOneThatMovesThePriceLosesIt() throws Exception
    {
        final FixTestClient buyer = logOn(FixExchange.MEMBER_A, FixExchange.PASSWORD_A);
        final FixTestClient seller = logOn(FixExchange.MEMBER_B, FixExchange.PASSWORD_B);
        for (final String id : new String[]{ "P-1", "P-2" })
        {
            buyer.send(limit(id, Side.BUY, "990", 5, TimeInForce.DAY));
            assertEquals('0', execType(buyer.next(MsgType.EXECUTION_REPORT, WAIT)));
        }
        buyer.send(replace("P-1", "P-1b", "990", 3));
        assertEquals('5', execType(buyer.next(MsgType.EXECUTION_REPORT, WAIT)));
        seller.send(limit("S-1", Side.SELL, "990", 3, TimeInForce.IMMEDIATE_OR_CANCEL));
        final Message kept = buyer.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('F', execType(kept));
        assertEquals("P-1b", kept.getString(11), "a smaller quantity kept its place ahead of P-2");

        buyer.send(limit("P-3", Side.BUY, "990", 2, TimeInForce.DAY));
        assertEquals('0', execType(buyer.next(MsgType.EXECUTION_REPORT, WAIT)));
        buyer.send(replace("P-2", "P-2b", "991", 5));
        assertEquals('5', execType(buyer.next(MsgType.EXECUTION_REPORT, WAIT)));
        buyer.send(replace("P-2b", "P-2c", "990", 5));
        assertEquals('5', execType(buyer.next(MsgType.EXECUTION_REPORT, WAIT)));
        seller.send(limit("S-2", Side.SELL, "990", 2, TimeInForce.IMMEDIATE_OR_CANCEL));
        final Message moved = buyer.next(MsgType.EXECUTION_REPORT, WAIT);
        assertEquals('F', execType(moved));
        assertEquals("P-3", moved.getString(11), "P-2 moved its price and back: behind P-3 now");
        assertNull(buyer.received.poll(300, TimeUnit.MILLISECONDS), "and P-2c was not reached");
    }

    private static OrderCancelReplaceRequest replace(final String original, final String id, final String price,
        final int quantity)
    {
        final OrderCancelReplaceRequest replace = new OrderCancelReplaceRequest(new OrigClOrdID(original),
            new ClOrdID(id), new Side(Side.BUY), new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
        replace.set(new Symbol("1"));
        replace.setString(Price.FIELD, price);
        replace.set(new OrderQty(quantity));
        return replace;
    }
}
