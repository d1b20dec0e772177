package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogoutEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.Outbound;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The demo's trading clients: each logs on to the gateway with its session's token, then sends a
 * seeded flow ({@link OrderFlow}: new orders around a drifting mid price, IOC and MARKET orders,
 * cancels and replaces of its own live orders) at its share of the offered rate, heartbeats when
 * idle, and reads its replies. It follows its orders from their reports: an order filled, canceled
 * or rejected leaves the flow's live orders ({@link OrderFlow#ended}), so its cancels and replaces
 * miss (UNKNOWN_ORDER) only when the order ends while they are on their way. Each order is due at
 * a fixed time on the rate's schedule; a client that falls behind sends what is due at once, and
 * the latency from the due time charges the wait to every order behind the stall.
 *
 * <p>Replies are read by {@link ReplyReader}: every acknowledgement (the first report of a new
 * order: NEW or REJECTED) is timed hop by hop from its ledger into a {@link LatencyLedger}; fills and
 * rejects are counted, and the counts a run must conserve (each order acknowledged once, bought and
 * sold quantities equal) are kept.
 *
 * <p>A client never waits on the gateway (which may be waiting on it to read its replies): a
 * request the gateway is too far behind to take is held and offered again after the replies are
 * read.
 *
 * <p>Threading: one thread (the agent's) for all clients; it backs off when idle, so the spinning
 * engine and gateway keep their cores. Counters may be read from any thread.
 */
public final class SimulatedClients implements Agent, AutoCloseable
{
    /** Counter indexes in {@link #counters()}. */
    public static final int SENT = 0;
    /** New orders sent. */
    public static final int NEW_ORDERS = 1;
    /** New orders acknowledged (NEW or REJECTED), once each. */
    public static final int ACKS = 2;
    /** A second acknowledgement of an order already acknowledged: must stay 0. */
    public static final int DUPLICATE_ACKS = 3;
    /** Fill reports (partial or full). */
    public static final int FILLS = 4;
    /** Quantity bought in fills. */
    public static final int BOUGHT = 5;
    /** Quantity sold in fills. */
    public static final int SOLD = 6;
    /** Rejected requests (any reason). */
    public static final int REJECTS = 7;
    /** Reports canceling an order. */
    public static final int CANCELS = 8;
    /** Reports of any kind. */
    public static final int REPORTS = 9;
    /** Requests not sent: the gateway was not reachable. */
    public static final int UNSENT = 10;
    /** Sessions logged on. */
    public static final int LOGGED_ON = 11;
    /** Distinct engine sequences among the reports received (gateway rejects carry none). */
    public static final int SEQUENCES = 12;
    /** Reports whose engine sequence had been received already: must stay 0. */
    public static final int DUPLICATE_SEQUENCES = 13;
    /** The highest engine sequence received. */
    public static final int MAX_SEQUENCE = 14;
    /** Orders reported both filled and canceled: must stay 0. */
    public static final int FILLED_AND_CANCELED = 15;
    /** New orders acknowledged by the gateway's reject (it never reached the engine). */
    public static final int ACKS_REJECTED_BY_GATEWAY = 16;
    /** New orders acknowledged by the engine's reject. */
    public static final int ACKS_REJECTED_BY_ENGINE = 17;
    /** Rejects of any request by reason start here: index {@code REJECT_REASONS + reason}. */
    public static final int REJECT_REASONS = 18;
    /** Rejects that acknowledged a new order, by reason, start here: {@code ACK_REJECT_REASONS + reason}. */
    public static final int ACK_REJECT_REASONS = REJECT_REASONS + 64;
    /** Replies a client never received: its session's reply sequence jumped (the gateway no longer kept them). */
    public static final int REPLY_GAPS = ACK_REJECT_REASONS + 64;
    /**
     * Replies received again: the gateway's resend of one that was still on its way when the client
     * logged on again. Dropped by their sequence, so each is taken once.
     */
    public static final int DUPLICATE_REPLIES = REPLY_GAPS + 1;
    /**
     * Sessions a client found lost (told it is not logged on or logged out, its connection gone, or
     * its thread held past its heartbeats): it logs on again.
     */
    public static final int SESSIONS_LOST = REPLY_GAPS + 2;
    /**
     * New orders whose send a hold of the thread past its heartbeats straddled, not acknowledged so
     * far: the checks before a send saw no hold, so the order may have gone into a session the gateway
     * had lost meanwhile, where a request may go unanswered. Each leaves it when acknowledged.
     */
    public static final int UNANSWERED_ACROSS_HOLD = REPLY_GAPS + 3;
    /**
     * New orders still waiting for their acknowledgement when their client found its session lost,
     * not acknowledged so far (those sent across a hold are counted in
     * {@link #UNANSWERED_ACROSS_HOLD} alone): what a client sent between the gateway's loss of the
     * session and its own finding may go unanswered. Each leaves it when acknowledged.
     */
    public static final int UNANSWERED_ACROSS_LOSS = REPLY_GAPS + 4;
    /**
     * Reports whose engine sequence was older than the window of sequences checked for duplicates
     * ({@link EngineSequences#WINDOW} behind the highest): counted in {@link #SEQUENCES} unchecked.
     */
    public static final int UNCHECKED_SEQUENCES = REPLY_GAPS + 5;
    /**
     * Replies that do not decode as the schema has them (short, a length past the message, a value
     * of a field the schema does not list): dropped unread.
     */
    public static final int MALFORMED_REPLIES = REPLY_GAPS + 6;
    /**
     * Orders that fell due while their client's session was down (from the first due after it found
     * the session lost to its next accepted logon): never sent, so never timed; the schedule starts
     * again at the logon. Counted when the logon is accepted.
     */
    public static final int DUE_WHILE_LOST = REPLY_GAPS + 7;
    private static final int COUNTERS = REPLY_GAPS + 8;

    private static final int FRAGMENT_LIMIT = 32;
    private static final int MAX_BURST = 64;
    /**
     * Heartbeat intervals without a word from the gateway after which a client takes its session
     * as gone: twice the silence after which the gateway loses one, so a gateway that only stalled
     * is waited for.
     */
    private static final int GATEWAY_SILENCE_HEARTBEATS = 2 * Gateway.MISSED_HEARTBEATS_TO_LOSE;
    private static final long BASE_PRICE = 10_000;
    private static final long LOGON_RETRY_NS = 2_000_000_000L;
    private static final int SPREAD_TICKS = 20;

    private final SimulatedClient[] clients;
    private final AtomicLongArray counters = new AtomicLongArray(COUNTERS);
    private final ReplyReader replyReader;
    private final long intervalNs;
    private final long heartbeatNs;
    private final RequestStamps stamps = new RequestStamps();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
    private final LogoutEncoder logout = new LogoutEncoder();
    /** When a duty cycle last ran, 0 before the first. */
    private long lastDutyCycleNs;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    private volatile boolean sending = true;

    /**
     * @param context     messaging settings.
     * @param layout      where the gateway and each client's replies listen.
     * @param sessions    one per client.
     * @param firstIndex  the layout's reply endpoint of the first of them (clients of one run may be
     *                    spread over processes).
     * @param instruments instruments 1 to N the flow trades.
     * @param rate        orders a second over all clients.
     * @param seed        the flow's seed (each client adds its index).
     * @param ledger      where acknowledgements are timed.
     * @param running     the run's flag.
     */
    public SimulatedClients(final MessagingContext context, final ExchangeLayout layout,
        final List<SessionConfig> sessions, final int firstIndex, final int instruments, final long rate,
        final long seed,
        final LatencyLedger ledger, final RunFlag running)
    {
        this.clients = new SimulatedClient[sessions.size()];
        this.intervalNs = Math.max(1, 1_000_000_000L * sessions.size() / Math.max(1, rate));
        this.replyReader = new ReplyReader(counters, ledger, intervalNs);
        this.heartbeatNs = 1_000_000_000L;
        try
        {
            for (int i = 0; i < clients.length; i++)
            {
                final Subscription replies = Subscription.open(context, layout.clientRepliesSubscription(firstIndex + i),
                    ExchangeLayout.REPLIES_STREAM);
                final Publication orders;
                try
                {
                    orders = Publication.open(context, layout.clientOrdersPublication(firstIndex + i), ExchangeLayout.ORDERS_STREAM);
                }
                catch (final RuntimeException ex)
                {
                    replies.close();
                    throw ex;
                }
                final SessionConfig session = sessions.get(i);
                clients[i] = new SimulatedClient(session, new OrderFlow(seed + firstIndex + i, instruments, session.account(), 1, BASE_PRICE,
                    SPREAD_TICKS, 256), new Outbound(orders), replies);
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /** @return the lowest price the flow sends (for the instruments' bands). */
    public static long minPrice()
    {
        return new OrderFlow(0, 1, 1, 1, BASE_PRICE, SPREAD_TICKS, 1).minPrice();
    }

    /** @return the highest price the flow sends. */
    public static long maxPrice()
    {
        return new OrderFlow(0, 1, 1, 1, BASE_PRICE, SPREAD_TICKS, 1).maxPrice();
    }

    /** @return the price every instrument's mid starts at. */
    public static long basePrice()
    {
        return BASE_PRICE;
    }

    @Override
    public int doWork()
    {
        final long nowNs = System.nanoTime();
        int work = heldPastHeartbeats(nowNs);
        for (final SimulatedClient client : clients)
        {
            final int replies = replyReader.poll(client, FRAGMENT_LIMIT);
            work += replies + client.out.doWork(nowNs);
            if (client.loggedOn && !client.out.isConnected())
            {
                replyReader.lost(client); // the gateway lost the session with the connection: log on again once it is back
            }
            if (!client.logonSent)
            {
                if (replies == FRAGMENT_LIMIT || client.replies.imageCount() == 0 || !sendOwedLogout(client, nowNs))
                {
                    // Read what arrived first, so the logon asks for exactly what is missing; the
                    // answer needs the gateway's reply link (it leaves a logon it cannot answer
                    // unanswered); an owed Logout goes first.
                    continue;
                }
                work += logon(client, nowNs);
            }
            else if (!client.loggedOn && nowNs - client.lastSentNs > LOGON_RETRY_NS)
            {
                client.logonSent = false; // no answer (lost with a connection, or refused): try again
            }
            else if (client.loggedOn && nowNs - client.lastHeardNs > GATEWAY_SILENCE_HEARTBEATS * heartbeatNs)
            {
                // The gateway heartbeats a session it holds: this one it no longer does, or cannot
                // reach (its reply link went). Logged out and on again, the client asks for the
                // replies it missed instead of waiting on them.
                logOut(client, nowNs);
                work++;
            }
            else if (client.loggedOn)
            {
                work += sending ? sendDue(client, nowNs) : heartbeatIfIdle(client, nowNs);
            }
        }
        return work;
    }

    /** Stops the flow; replies are still read. Any thread. */
    public void stopSending()
    {
        sending = false;
    }

    /** Whether every client's publication and reply subscription are connected. */
    public boolean isConnected()
    {
        for (final SimulatedClient client : clients)
        {
            if (!client.out.isConnected() || client.replies.imageCount() == 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Polls replies and drives publications without sending requests (setup and drain); a logged-on
     * client still heartbeats, so its session outlives a drain of any length.
     */
    public int pollOnly()
    {
        final long nowNs = System.nanoTime();
        int work = heldPastHeartbeats(nowNs);
        for (final SimulatedClient client : clients)
        {
            work += replyReader.poll(client, FRAGMENT_LIMIT) + client.out.doWork(nowNs);
            if (client.loggedOn)
            {
                work += heartbeatIfIdle(client, nowNs);
            }
        }
        return work;
    }

    /**
     * A thread held longer than the gateway waits for heartbeats (a stopped process, a long pause)
     * has lost its sessions, whether or not the gateway has acted on it yet: each logged-on client
     * logs out and on again before it sends anything, so no request goes into a session the gateway
     * no longer holds.
     */
    private int heldPastHeartbeats(final long nowNs)
    {
        final boolean held = lastDutyCycleNs != 0 && isHeld(lastDutyCycleNs, nowNs);
        lastDutyCycleNs = nowNs;
        if (!held)
        {
            return 0;
        }
        int work = 0;
        for (final SimulatedClient client : clients)
        {
            if (client.loggedOn)
            {
                logOut(client, nowNs);
                work++;
            }
        }
        return work;
    }

    /** Ends a session the client cannot count on, so that its next logon is not refused as a second one. */
    private void logOut(final SimulatedClient client, final long nowNs)
    {
        client.logoutOwed = true;
        sendOwedLogout(client, nowNs);
        replyReader.lost(client);
    }

    /** @return whether no Logout is owed any more. */
    private boolean sendOwedLogout(final SimulatedClient client, final long nowNs)
    {
        if (client.logoutOwed)
        {
            logout.wrapAndApplyHeader(scratch, 0, headerEncoder).sessionId(client.session.sessionId())
                .sendingTime(ExchangeClock.fromMonotonic(nowNs));
            // Dropped (not connected): the gateway loses the session with the connection anyway.
            client.logoutOwed = client.out.trySend(scratch, 0, MessageHeaderEncoder.ENCODED_LENGTH +
                logout.encodedLength()) == Outbound.RETRY;
        }
        return !client.logoutOwed;
    }

    /** @return whether the thread went from {@code fromNs} to {@code toNs} without a heartbeat the gateway would wait for. */
    private boolean isHeld(final long fromNs, final long toNs)
    {
        return toNs - fromNs > Gateway.MISSED_HEARTBEATS_TO_LOSE * heartbeatNs;
    }

    private int logon(final SimulatedClient client, final long nowNs)
    {
        final LogonEncoder logon = new LogonEncoder().wrapAndApplyHeader(scratch, 0, headerEncoder)
            .sessionId(client.session.sessionId())
            .heartbeatIntervalMs((int)(heartbeatNs / 1_000_000))
            .sendingTime(ExchangeClock.fromMonotonic(nowNs))
            .nextReplySequence(client.replySequence.askAtLogon())
            .replyLife(client.replySequence.life())
            .credentials(client.session.token());
        if (client.out.trySend(scratch, 0, MessageHeaderEncoder.ENCODED_LENGTH + logon.encodedLength()) ==
            Outbound.SENT)
        {
            client.logonSent = true;
            client.lastSentNs = nowNs;
            client.lastHeardNs = nowNs;
            client.nextDueNs = nowNs;
            return 1;
        }
        return 0;
    }

    private int sendDue(final SimulatedClient client, final long nowNs)
    {
        int sent = 0;
        if (client.heldLength > 0)
        {
            final long sendNs = System.nanoTime();
            // Stamped as it goes: its wait behind the gateway is the due time's, not the network's.
            stamps.stamp(client.held, sendNs);
            final int result = isHeld(nowNs, sendNs) ? Outbound.RETRY :
                client.out.trySend(client.held, 0, client.heldLength);
            if (result == Outbound.RETRY)
            {
                return 0;
            }
            client.heldLength = 0;
            if (result == Outbound.SENT)
            {
                sent(client, client.heldOrderId, sendNs, client.heldDue);
                sent++;
            }
            else
            {
                unsent(client, client.held);
            }
        }
        while (sent < MAX_BURST && nowNs - client.nextDueNs >= 0)
        {
            final long due = client.nextDueNs;
            client.nextDueNs += intervalNs;
            final int length = client.flow.next(scratch, 0);
            final long sendNs = System.nanoTime();
            final long clientOrderId = stamps.stamp(scratch, sendNs);
            // Held mid-burst past the heartbeats (the check at the cycle's start could not see it):
            // the session is gone, so this one waits for the next logon like one the gateway was
            // too far behind to take.
            final int result = isHeld(nowNs, sendNs) ? Outbound.RETRY : client.out.trySend(scratch, 0, length);
            if (result == Outbound.RETRY)
            {
                // The gateway is behind: hold this one, read replies, offer it again next time.
                client.held.putBytes(0, scratch, 0, length);
                client.heldLength = length;
                client.heldOrderId = clientOrderId;
                client.heldDue = due;
                break;
            }
            if (result == Outbound.DROPPED)
            {
                unsent(client, scratch);
                continue;
            }
            sent(client, clientOrderId, sendNs, due);
            sent++;
        }
        if (sent == 0 && client.heldLength == 0)
        {
            heartbeatIfIdle(client, nowNs);
        }
        return sent;
    }

    /**
     * A request dropped unsent (the gateway's connection gone): counted, and the order it would
     * have placed forgotten by the flow, which took it as live when it drew it, so that no later
     * cancel or replace aims at an order the engine never saw.
     */
    private void unsent(final SimulatedClient client, final UnsafeBuffer request)
    {
        counters.incrementAndGet(UNSENT);
        final long unplaced = stamps.unplacedId(request);
        if (0 != unplaced)
        {
            client.flow.ended(unplaced);
        }
    }

    /** A client keeps its session alive while it has nothing to send, stopped or not. */
    private int heartbeatIfIdle(final SimulatedClient client, final long nowNs)
    {
        if (nowNs - client.lastSentNs <= heartbeatNs)
        {
            return 0;
        }
        heartbeat.wrapAndApplyHeader(scratch, 0, headerEncoder).sessionId(client.session.sessionId())
            .sendingTime(ExchangeClock.fromMonotonic(nowNs));
        if (client.out.trySend(scratch, 0, MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength()) ==
            Outbound.SENT)
        {
            client.lastSentNs = nowNs;
            return 1;
        }
        return 0;
    }

    /**
     * Records a request that went.
     *
     * @param sendNs the clock read before the checks that no hold had begun, and before the send.
     */
    private void sent(final SimulatedClient client, final long clientOrderId, final long sendNs, final long due)
    {
        client.lastSentNs = sendNs;
        counters.lazySet(SENT, counters.get(SENT) + 1);
        if (clientOrderId != 0)
        {
            // A hold that began after the checks and ended after the send: the order may have gone
            // into a session the gateway lost meanwhile (the next duty cycle logs on again).
            final boolean acrossHold = isHeld(sendNs, System.nanoTime());
            client.orders.sent(clientOrderId, due, acrossHold);
            if (acrossHold)
            {
                counters.incrementAndGet(UNANSWERED_ACROSS_HOLD);
            }
            counters.lazySet(NEW_ORDERS, counters.get(NEW_ORDERS) + 1);
        }
    }

    /** @return the counters, indexed by this class's constants. */
    public AtomicLongArray counters()
    {
        return counters;
    }

    /** @return the number of clients. */
    public int clientCount()
    {
        return clients.length;
    }

    @Override
    public String roleName()
    {
        return "clients";
    }

    @Override
    public void close()
    {
        for (final SimulatedClient client : clients)
        {
            if (null != client)
            {
                CloseHelper.quietCloseAll(client.out.publication(), client.replies);
            }
        }
    }
}
