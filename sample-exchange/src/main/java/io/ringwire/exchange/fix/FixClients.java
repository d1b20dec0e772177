package io.ringwire.exchange.fix;

import org.HdrHistogram.Histogram;
import quickfix.Application;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketInitiator;
import quickfix.field.ClOrdID;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.OrigClOrdID;
import quickfix.field.Password;
import quickfix.field.Price;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TimeInForce;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;
import quickfix.fix44.OrderCancelReplaceRequest;
import quickfix.fix44.OrderCancelRequest;

import java.net.InetSocketAddress;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Simulated members trading through the FIX door with QuickFIX/J's initiator, beside the SBE door's
 * simulated clients: each sends limit orders around the reference price (some immediate-or-cancel),
 * and cancels and replaces orders it knows to be live from its own execution reports. It counts
 * what it sent and heard, and times order to acknowledgement from the moment before it sends.
 *
 * <p>Thread layout: QuickFIX/J's initiator thread reads (blocking I/O), and one flow thread sends
 * at the rate, sleeping between orders: neither spins.
 */
public final class FixClients implements Application, AutoCloseable
{
    /** Counter: requests sent. */
    public static final int SENT = 0;
    /** Counter: new orders sent. */
    public static final int NEW_ORDERS = 1;
    /** Counter: new orders acknowledged (accepted or rejected). */
    public static final int ACKS = 2;
    /** Counter: an acknowledgement for an order acknowledged before. */
    public static final int DUPLICATE_ACKS = 3;
    /** Counter: trade reports. */
    public static final int FILLS = 4;
    /** Counter: lots bought. */
    public static final int BOUGHT = 5;
    /** Counter: lots sold. */
    public static final int SOLD = 6;
    /** Counter: rejected orders (the same index as {@code SimulatedClients.REJECTS}). */
    public static final int REJECTS = 7;
    /** Counter: canceled reports (the same index as {@code SimulatedClients.CANCELS}). */
    public static final int CANCELS = 8;
    /** Counter: OrderCancelRejects. */
    public static final int CANCEL_REJECTS = 9;
    /** Counter: logons. */
    public static final int LOGONS = 10;
    private static final int COUNTERS = 11;

    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);

    /**
     * One member: its SenderCompID and password.
     */
    public record Login(String senderCompId, String password)
    {
    }

    private static final class Member
    {
        final SessionID sessionId;
        final String password;
        final List<String> live = new ArrayList<>();
        final Map<String, Long> sentNs = new HashMap<>();
        volatile boolean loggedOn;
        long nextId;

        Member(final SessionID sessionId, final String password)
        {
            this.sessionId = sessionId;
            this.password = password;
        }
    }

    private final AtomicLongArray counters = new AtomicLongArray(COUNTERS);
    private final Histogram orderToAck = new Histogram(HIGHEST_NS, 3);
    private final Map<SessionID, Member> members = new HashMap<>();
    private final List<Member> order = new ArrayList<>();
    private final SocketInitiator initiator;
    private final long referencePrice;
    private final int instruments;
    private final long ratePerSecond;
    private final SplittableRandom random;
    private final Thread flow;
    private volatile boolean sending = true;

    /**
     * What every QuickFIX/J initiator of the door's members shares: connect to the door, a session
     * that is always on, a reconnect every second.
     *
     * @param door             where the door listens.
     * @param heartbeatSeconds the session's HeartBtInt.
     * @return the settings, for the caller's own additions.
     */
    public static SessionSettings initiatorSettings(final InetSocketAddress door, final int heartbeatSeconds)
    {
        final SessionSettings settings = new SessionSettings();
        settings.setString("ConnectionType", "initiator");
        settings.setString("SocketConnectHost", door.getHostString());
        settings.setLong("SocketConnectPort", door.getPort());
        settings.setString("StartTime", "00:00:00");
        settings.setString("EndTime", "00:00:00");
        settings.setLong("HeartBtInt", heartbeatSeconds);
        settings.setLong("ReconnectInterval", 1);
        return settings;
    }

    /**
     * @param door          the door's address.
     * @param doorCompId    its CompID.
     * @param logins        the members.
     * @param instruments   instruments 1 to this.
     * @param referencePrice where prices centre.
     * @param ratePerSecond requests a second over all members.
     * @param seed          the flow's seed.
     */
    public FixClients(final InetSocketAddress door, final String doorCompId, final List<Login> logins,
        final int instruments, final long referencePrice, final long ratePerSecond, final long seed)
    {
        this.referencePrice = referencePrice;
        this.instruments = instruments;
        this.ratePerSecond = Math.max(1, ratePerSecond);
        this.random = new SplittableRandom(seed);
        final SessionSettings settings = initiatorSettings(door, 5);
        settings.setString("SocketTcpNoDelay", "Y");
        settings.setString("ResetOnLogon", "Y");
        for (final Login login : logins)
        {
            final SessionID sessionId = new SessionID("FIX.4.4", login.senderCompId(), doorCompId);
            settings.setString(sessionId, "BeginString", "FIX.4.4");
            final Member member = new Member(sessionId, login.password());
            members.put(sessionId, member);
            order.add(member);
        }
        try
        {
            initiator = new SocketInitiator(this, new MemoryStoreFactory(), settings, null, new DefaultMessageFactory());
        }
        catch (final ConfigError ex)
        {
            throw new IllegalArgumentException("FIX clients: " + ex.getMessage(), ex);
        }
        flow = new Thread(this::sendFlow, "fix-clients");
        flow.setDaemon(true);
    }

    /** Connects the members; they log on in the background ({@link #isConnected}). */
    public void connect()
    {
        try
        {
            initiator.start();
        }
        catch (final ConfigError ex)
        {
            throw new IllegalStateException("FIX clients did not start: " + ex.getMessage(), ex);
        }
    }

    /** Starts the flow: requests at the rate, to the members logged on. */
    public void startSending()
    {
        flow.start();
    }

    /** @return whether every member is logged on. */
    public boolean isConnected()
    {
        return order.stream().allMatch(member -> member.loggedOn);
    }

    /** @return the counters, by the constants of this class. */
    public AtomicLongArray counters()
    {
        return counters;
    }

    /** @return order to acknowledgement, ns, from before the send (a copy). */
    public Histogram orderToAck()
    {
        synchronized (orderToAck)
        {
            return orderToAck.copy();
        }
    }

    /**
     * Stops sending and waits for the acknowledgements still due.
     *
     * @param timeoutMs how long to wait.
     * @return whether every new order was acknowledged.
     */
    public boolean quiesce(final long timeoutMs) throws InterruptedException
    {
        sending = false;
        if (flow.isAlive())
        {
            flow.join(timeoutMs);
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (counters.get(ACKS) < counters.get(NEW_ORDERS) && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        Thread.sleep(200); // the last fills and cancels after the acknowledgements
        return counters.get(ACKS) >= counters.get(NEW_ORDERS);
    }

    @Override
    public void close()
    {
        sending = false;
        initiator.stop(true);
    }

    private void sendFlow()
    {
        final long intervalNs = 1_000_000_000L / ratePerSecond;
        long due = System.nanoTime();
        int next = 0;
        while (sending)
        {
            final long wait = due - System.nanoTime();
            if (wait > 0)
            {
                LockSupport.parkNanos(wait);
                continue;
            }
            due += intervalNs;
            final Member member = order.get(next++ % order.size());
            if (member.loggedOn)
            {
                sendOne(member);
            }
        }
    }

    private void sendOne(final Member member)
    {
        final int dice = random.nextInt(100);
        final String target;
        final String id;
        synchronized (member)
        {
            target = member.live.isEmpty() || dice < 70 ? null : member.live.get(random.nextInt(member.live.size()));
            id = member.sessionId.getSenderCompID() + "-" + ++member.nextId;
        }
        final int instrument = 1 + random.nextInt(instruments);
        final Message message;
        if (null == target)
        {
            final char side = random.nextBoolean() ? Side.BUY : Side.SELL;
            final long price = referencePrice + (side == Side.BUY ? -1 : 1) * (random.nextInt(8) - 2);
            final NewOrderSingle newOrder = new NewOrderSingle(new ClOrdID(id), new Side(side),
                new TransactTime(LocalDateTime.now(ZoneOffset.UTC)), new OrdType(OrdType.LIMIT));
            newOrder.set(new Symbol(Integer.toString(instrument)));
            newOrder.setString(Price.FIELD, Long.toString(price));
            newOrder.set(new OrderQty(1 + random.nextInt(10)));
            newOrder.set(new TimeInForce(random.nextInt(5) == 0 ? TimeInForce.IMMEDIATE_OR_CANCEL : TimeInForce.DAY));
            final long sentNs = System.nanoTime();
            newOrder.setString(FixDoor.CLIENT_SEND_NS_TAG, Long.toString(sentNs));
            synchronized (member)
            {
                member.sentNs.put(id, sentNs);
            }
            counters.incrementAndGet(NEW_ORDERS);
            message = newOrder;
        }
        else
        {
            final String[] parts = target.split("\\|");
            final char side = parts[2].charAt(0);
            if (dice < 90)
            {
                final OrderCancelRequest cancel = new OrderCancelRequest(new OrigClOrdID(parts[0]), new ClOrdID(id),
                    new Side(side), new TransactTime(LocalDateTime.now(ZoneOffset.UTC)));
                cancel.set(new Symbol(parts[1]));
                message = cancel;
            }
            else
            {
                final OrderCancelReplaceRequest replace = new OrderCancelReplaceRequest(new OrigClOrdID(parts[0]),
                    new ClOrdID(id), new Side(side), new TransactTime(LocalDateTime.now(ZoneOffset.UTC)),
                    new OrdType(OrdType.LIMIT));
                replace.set(new Symbol(parts[1]));
                replace.setString(Price.FIELD, parts[3]);
                replace.set(new OrderQty(1 + random.nextInt(10)));
                message = replace;
            }
            synchronized (member)
            {
                member.live.remove(target); // asked to go: a cancel or replace is not sent for it twice
            }
        }
        counters.incrementAndGet(SENT);
        Session.lookupSession(member.sessionId).send(message);
    }

    @Override
    public void onCreate(final SessionID sessionId)
    {
    }

    @Override
    public void onLogon(final SessionID sessionId)
    {
        members.get(sessionId).loggedOn = true;
        counters.incrementAndGet(LOGONS);
    }

    @Override
    public void onLogout(final SessionID sessionId)
    {
        members.get(sessionId).loggedOn = false;
    }

    @Override
    public void toAdmin(final Message message, final SessionID sessionId)
    {
        try
        {
            if (MsgType.LOGON.equals(message.getHeader().getString(MsgType.FIELD)))
            {
                message.setField(new Password(members.get(sessionId).password));
            }
        }
        catch (final FieldNotFound ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void fromAdmin(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void toApp(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void fromApp(final Message message, final SessionID sessionId) throws FieldNotFound
    {
        final long nowNs = System.nanoTime();
        final Member member = members.get(sessionId);
        final String type = message.getHeader().getString(MsgType.FIELD);
        if (MsgType.ORDER_CANCEL_REJECT.equals(type))
        {
            counters.incrementAndGet(CANCEL_REJECTS);
            return;
        }
        if (!MsgType.EXECUTION_REPORT.equals(type))
        {
            return;
        }
        final char execType = message.getChar(150);
        final String clOrdId = message.isSetField(11) ? message.getString(11) : "";
        synchronized (member)
        {
            if (execType == '0' || execType == '8')
            {
                final Long sent = member.sentNs.remove(clOrdId);
                if (null == sent)
                {
                    counters.incrementAndGet(DUPLICATE_ACKS);
                }
                else
                {
                    synchronized (orderToAck)
                    {
                        orderToAck.recordValue(Math.min(HIGHEST_NS, Math.max(0, nowNs - sent)));
                    }
                    counters.incrementAndGet(ACKS); // after the timing: a reader that sees the count sees it timed
                }
            }
            final String key = clOrdId + "|" + message.getString(55) + "|" + message.getChar(54) + "|" +
                (message.isSetField(44) ? (long)message.getDouble(44) : 0); // a market order's report has no Price
            switch (execType)
            {
                case '0' -> member.live.add(key);
                case '5' ->
                {
                    final String replaced = message.getString(41) + "|";
                    member.live.removeIf(live -> live.startsWith(replaced));
                    member.live.add(key);
                }
                case '8' -> counters.incrementAndGet(REJECTS);
                case '4' ->
                {
                    counters.incrementAndGet(CANCELS);
                    member.live.removeIf(live -> live.startsWith(clOrdId + "|"));
                    if (message.isSetField(41))
                    {
                        final String original = message.getString(41);
                        member.live.removeIf(live -> live.startsWith(original + "|"));
                    }
                }
                case 'F' ->
                {
                    counters.incrementAndGet(FILLS);
                    counters.addAndGet(message.getChar(54) == Side.BUY ? BOUGHT : SOLD, (long)message.getDouble(32));
                    if (message.getDouble(151) == 0)
                    {
                        member.live.removeIf(live -> live.startsWith(clOrdId + "|"));
                    }
                }
                default ->
                {
                }
            }
        }
    }
}
