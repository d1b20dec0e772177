package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.LogoutEncoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.Outbound;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
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
 * <p>Every acknowledgement (the first report of a new order: NEW or REJECTED) is timed hop by hop
 * from its ledger into a {@link LatencyLedger}; fills and rejects are counted, and the counts a run
 * must conserve (each order acknowledged once, bought and sold quantities equal) are kept.
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
    private static final int COUNTERS = REPLY_GAPS + 4;

    private static final int FRAGMENT_LIMIT = 32;
    private static final int SEQUENCE_BITS = 1 << 27;
    private static final byte FILLED = 1;
    private static final byte CANCELED = 2;
    private static final int MAX_BURST = 64;
    private static final int PENDING = 1 << 16;
    /**
     * Heartbeat intervals without a word from the gateway after which a client takes its session
     * as gone: twice the silence after which the gateway loses one, so a gateway that only stalled
     * is waited for.
     */
    private static final int GATEWAY_SILENCE_HEARTBEATS = 2 * Gateway.MISSED_HEARTBEATS_TO_LOSE;
    private static final long BASE_PRICE = 10_000;
    private static final long LOGON_RETRY_NS = 2_000_000_000L;
    private static final int SPREAD_TICKS = 20;

    private final Client[] clients;
    private final LatencyLedger ledger;
    private final AtomicLongArray counters = new AtomicLongArray(COUNTERS);
    private final long intervalNs;
    private final long heartbeatNs;
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final LogonResponseDecoder logonResponse = new LogonResponseDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancel = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replace = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancel = new MassCancelEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
    private final LogoutEncoder logout = new LogoutEncoder();
    /** When a duty cycle last ran, 0 before the first. */
    private long lastDutyCycleNs;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    /** One bit per engine sequence received, up to {@link #SEQUENCE_BITS}. */
    private final long[] sequencesSeen = new long[SEQUENCE_BITS / 64];
    private Client current;
    private volatile boolean sending = true;
    private final FragmentHandler onReply = this::onReply;

    /** One client: its session, its flow, its connection and the orders it waits on. */
    private static final class Client
    {
        final SessionConfig session;
        final OrderFlow flow;
        final Outbound out;
        final Subscription replies;
        final long[] pendingIds = new long[PENDING];
        final long[] pendingSent = new long[PENDING];
        final long[] pendingDue = new long[PENDING];
        final long[] ackedIds = new long[PENDING];
        /** Per pending slot: its send was straddled by a hold (see {@link #UNANSWERED_ACROSS_HOLD}). */
        final boolean[] pendingAcrossHold = new boolean[PENDING];
        /** Per client order id slot: the id, and whether it was reported filled and canceled. */
        final long[] endedIds = new long[PENDING];
        final byte[] ended = new byte[PENDING];
        /** A request the gateway was too far behind to take, offered again before the next one. */
        final UnsafeBuffer held = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
        int heldLength;
        long heldOrderId;
        long heldDue;
        boolean logonSent;
        boolean loggedOn;
        /**
         * A Logout that could not go (the gateway behind): it goes before the next Logon, which
         * the gateway would refuse while it still holds the session.
         */
        boolean logoutOwed;
        /** One past the last reply sequence received, asked for at logon; 0 before the first logon. */
        long nextReplySequence;
        /** What the last Logon asked for: reports of it may arrive before the answer, and count. */
        long askedReplySequence;
        long nextDueNs;
        long lastSentNs;
        /** When the gateway was last heard from (any reply), or the logon was sent. */
        long lastHeardNs;

        Client(final SessionConfig session, final OrderFlow flow, final Outbound out, final Subscription replies)
        {
            this.session = session;
            this.flow = flow;
            this.out = out;
            this.replies = replies;
        }
    }

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
        this.ledger = ledger;
        this.clients = new Client[sessions.size()];
        this.intervalNs = Math.max(1, 1_000_000_000L * sessions.size() / Math.max(1, rate));
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
                clients[i] = new Client(session, new OrderFlow(seed + firstIndex + i, instruments, session.account(), 1, BASE_PRICE,
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
        for (final Client client : clients)
        {
            current = client;
            final int replies = client.replies.poll(onReply, FRAGMENT_LIMIT);
            work += replies + client.out.doWork();
            if (client.loggedOn && !client.out.isConnected())
            {
                lost(client); // the gateway lost the session with the connection: log on again once it is back
            }
            if (!client.logonSent)
            {
                if (replies == FRAGMENT_LIMIT || !sendOwedLogout(client, nowNs))
                {
                    // Read what arrived first, so the logon asks for exactly what is missing; an
                    // owed Logout goes first.
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
        for (final Client client : clients)
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
        for (final Client client : clients)
        {
            current = client;
            work += client.replies.poll(onReply, FRAGMENT_LIMIT) + client.out.doWork();
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
        for (final Client client : clients)
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
    private void logOut(final Client client, final long nowNs)
    {
        client.logoutOwed = true;
        sendOwedLogout(client, nowNs);
        lost(client);
    }

    /** @return whether no Logout is owed any more. */
    private boolean sendOwedLogout(final Client client, final long nowNs)
    {
        if (client.logoutOwed)
        {
            logout.wrapAndApplyHeader(scratch, 0, headerEncoder).sessionId(client.session.sessionId())
                .sendingTime(nowNs);
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

    private int logon(final Client client, final long nowNs)
    {
        final LogonEncoder logon = new LogonEncoder().wrapAndApplyHeader(scratch, 0, headerEncoder)
            .sessionId(client.session.sessionId())
            .heartbeatIntervalMs((int)(heartbeatNs / 1_000_000))
            .sendingTime(nowNs)
            .nextReplySequence(client.nextReplySequence)
            .credentials(client.session.token());
        client.askedReplySequence = client.nextReplySequence;
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

    private int sendDue(final Client client, final long nowNs)
    {
        int sent = 0;
        if (client.heldLength > 0)
        {
            final long sendNs = System.nanoTime();
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
                counters.incrementAndGet(UNSENT);
            }
        }
        while (sent < MAX_BURST && nowNs - client.nextDueNs >= 0)
        {
            final long due = client.nextDueNs;
            client.nextDueNs += intervalNs;
            final int length = client.flow.next(scratch, 0);
            final long sendNs = System.nanoTime();
            final long clientOrderId = stamp(sendNs);
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
                counters.incrementAndGet(UNSENT);
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

    /** A client keeps its session alive while it has nothing to send, stopped or not. */
    private int heartbeatIfIdle(final Client client, final long nowNs)
    {
        if (nowNs - client.lastSentNs <= heartbeatNs)
        {
            return 0;
        }
        heartbeat.wrapAndApplyHeader(scratch, 0, headerEncoder).sessionId(client.session.sessionId())
            .sendingTime(nowNs);
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
    private void sent(final Client client, final long clientOrderId, final long sendNs, final long due)
    {
        client.lastSentNs = sendNs;
        counters.lazySet(SENT, counters.get(SENT) + 1);
        if (clientOrderId != 0)
        {
            final int slot = (int)(clientOrderId & (PENDING - 1));
            client.pendingIds[slot] = clientOrderId;
            client.pendingSent[slot] = sendNs;
            client.pendingDue[slot] = due;
            // A hold that began after the checks and ended after the send: the order may have gone
            // into a session the gateway lost meanwhile (the next duty cycle logs on again).
            client.pendingAcrossHold[slot] = isHeld(sendNs, System.nanoTime());
            if (client.pendingAcrossHold[slot])
            {
                counters.incrementAndGet(UNANSWERED_ACROSS_HOLD);
            }
            counters.lazySet(NEW_ORDERS, counters.get(NEW_ORDERS) + 1);
        }
    }

    /**
     * Stamps the request in {@link #scratch} with its real sending time (the flow's own clock is a
     * replayable fiction).
     *
     * @return the client order id of a new order (which waits for its acknowledgement), else 0.
     */
    private long stamp(final long sendNs)
    {
        headerDecoder.wrap(scratch, 0);
        final int body = MessageHeaderDecoder.ENCODED_LENGTH;
        switch (headerDecoder.templateId())
        {
            case NewOrderEncoder.TEMPLATE_ID ->
            {
                newOrder.wrap(scratch, body).sendingTime(sendNs);
                return scratch.getLong(body + NewOrderEncoder.clientOrderIdEncodingOffset(), NewOrderEncoder.BYTE_ORDER);
            }
            case CancelOrderEncoder.TEMPLATE_ID -> cancel.wrap(scratch, body).sendingTime(sendNs);
            case ReplaceOrderEncoder.TEMPLATE_ID -> replace.wrap(scratch, body).sendingTime(sendNs);
            case MassCancelEncoder.TEMPLATE_ID -> massCancel.wrap(scratch, body).sendingTime(sendNs);
            default ->
            {
            }
        }
        return 0;
    }

    private void onReply(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final long receivedNs = System.nanoTime();
        current.lastHeardNs = receivedNs;
        headerDecoder.wrap(buffer, offset);
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int templateId = headerDecoder.templateId();
        if (templateId == LogonResponseDecoder.TEMPLATE_ID)
        {
            logonResponse.wrap(buffer, body, headerDecoder.blockLength(), headerDecoder.version());
            if (logonResponse.status() == LogonStatus.ACCEPTED && !current.loggedOn)
            {
                current.loggedOn = true;
                current.nextDueNs = receivedNs;
                counters.incrementAndGet(LOGGED_ON);
                onReplyStart(logonResponse.nextReplySequence());
            }
            return;
        }
        if (templateId == LogoutDecoder.TEMPLATE_ID)
        {
            lost(current);
            return;
        }
        if (templateId != ExecutionReportDecoder.TEMPLATE_ID)
        {
            return;
        }
        report.wrap(buffer, body, headerDecoder.blockLength(), headerDecoder.version());
        if (!inReplySequence(report.replySequence()))
        {
            return;
        }
        if (report.execType() == ExecType.REJECTED && report.rejectReason() == RejectReason.NOT_LOGGED_ON)
        {
            lost(current);
        }
        counters.lazySet(REPORTS, counters.get(REPORTS) + 1);
        onSequence(report.engineSequence());
        final ExecType execType = report.execType();
        if (execType == ExecType.NEW || execType == ExecType.REJECTED)
        {
            onAcknowledgement(report.clientOrderId(), receivedNs);
        }
        if (execType == ExecType.REJECTED)
        {
            current.flow.ended(report.clientOrderId());
            counters.lazySet(REJECTS, counters.get(REJECTS) + 1);
            final int reason = report.rejectReasonRaw();
            if (reason >= 0 && reason < ACK_REJECT_REASONS - REJECT_REASONS)
            {
                counters.lazySet(REJECT_REASONS + reason, counters.get(REJECT_REASONS + reason) + 1);
            }
        }
        else if (execType == ExecType.PARTIAL_FILL || execType == ExecType.FILL)
        {
            counters.lazySet(FILLS, counters.get(FILLS) + 1);
            final int side = report.side() == Side.BUY ? BOUGHT : SOLD;
            counters.lazySet(side, counters.get(side) + report.lastQuantity());
            if (execType == ExecType.FILL)
            {
                current.flow.ended(report.clientOrderId());
                ended(report.clientOrderId(), FILLED);
            }
        }
        else if (execType == ExecType.CANCELED)
        {
            counters.lazySet(CANCELS, counters.get(CANCELS) + 1);
            current.flow.ended(report.clientOrderId());
            ended(report.clientOrderId(), CANCELED);
        }
    }

    /**
     * Where a logon's replies start: past the sequence the client asked for, the ones between were
     * no longer kept; before it, the gateway is another life's, whose sequence starts anew. Reports
     * that were on their way before the answer (the lost connection's backlog, or in flight) have
     * moved the client past what it asked for already: the resend of those is dropped as seen, not
     * taken again.
     */
    private void onReplyStart(final long start)
    {
        final Client client = current;
        if (start <= 0 || start == LogonResponseDecoder.nextReplySequenceNullValue())
        {
            return; // a gateway that does not number replies
        }
        if (client.askedReplySequence > 0 && start < client.askedReplySequence)
        {
            client.nextReplySequence = start; // another gateway's life
            return;
        }
        if (client.nextReplySequence > 0 && start > client.nextReplySequence)
        {
            counters.lazySet(REPLY_GAPS, counters.get(REPLY_GAPS) + start - client.nextReplySequence);
        }
        client.nextReplySequence = Math.max(client.nextReplySequence, start);
    }

    /**
     * @return false for a report received before (a resend of one that had arrived): it is dropped.
     *         An unnumbered one (a reject before logon) passes.
     */
    private boolean inReplySequence(final long sequence)
    {
        final Client client = current;
        if (sequence <= 0 || sequence == ExecutionReportDecoder.replySequenceNullValue())
        {
            return true;
        }
        if (client.nextReplySequence > 0 && sequence < client.nextReplySequence)
        {
            counters.incrementAndGet(DUPLICATE_REPLIES);
            return false;
        }
        if (client.nextReplySequence > 0 && sequence > client.nextReplySequence)
        {
            counters.lazySet(REPLY_GAPS, counters.get(REPLY_GAPS) + sequence - client.nextReplySequence);
        }
        client.nextReplySequence = sequence + 1;
        return true;
    }

    /**
     * The gateway no longer holds the client's session (it said so, or the connection went): the
     * client logs on again, asking for the replies it missed. Requests it sent into the lost session
     * before it knew may go unanswered (the gateway answers a connection before logon only within a
     * rate); those it has not sent wait for the logon.
     */
    private void lost(final Client client)
    {
        if (client.loggedOn)
        {
            client.loggedOn = false;
            client.logonSent = false;
            counters.incrementAndGet(SESSIONS_LOST);
        }
    }

    private void onSequence(final long sequence)
    {
        if (sequence <= 0 || sequence >= SEQUENCE_BITS)
        {
            return;
        }
        final int word = (int)(sequence >>> 6);
        final long bit = 1L << (sequence & 63);
        if ((sequencesSeen[word] & bit) != 0)
        {
            counters.incrementAndGet(DUPLICATE_SEQUENCES);
            return;
        }
        sequencesSeen[word] |= bit;
        counters.lazySet(SEQUENCES, counters.get(SEQUENCES) + 1);
        if (sequence > counters.get(MAX_SEQUENCE))
        {
            counters.lazySet(MAX_SEQUENCE, sequence);
        }
    }

    /** Notes that an order was filled or canceled; both for one order is a violation. */
    private void ended(final long clientOrderId, final byte how)
    {
        final Client client = current;
        final int slot = (int)(clientOrderId & (PENDING - 1));
        if (client.endedIds[slot] != clientOrderId)
        {
            client.endedIds[slot] = clientOrderId;
            client.ended[slot] = how;
            return;
        }
        if ((client.ended[slot] | how) == (FILLED | CANCELED) && client.ended[slot] != how)
        {
            counters.incrementAndGet(FILLED_AND_CANCELED);
        }
        client.ended[slot] |= how;
    }

    private void onAcknowledgement(final long clientOrderId, final long receivedNs)
    {
        final Client client = current;
        final int slot = (int)(clientOrderId & (PENDING - 1));
        if (client.pendingIds[slot] == clientOrderId)
        {
            client.pendingIds[slot] = 0;
            client.ackedIds[slot] = clientOrderId;
            if (client.pendingAcrossHold[slot])
            {
                client.pendingAcrossHold[slot] = false;
                counters.decrementAndGet(UNANSWERED_ACROSS_HOLD);
            }
            counters.lazySet(ACKS, counters.get(ACKS) + 1);
            if (report.execType() == ExecType.REJECTED)
            {
                countRejectedAck();
            }
            ledger.recordAck(report.clientSendTime(), report.gatewayInTime(), report.gatewayOutTime(),
                report.engineInTime(), report.engineOutTime(), report.gatewayReplyTime(), receivedNs,
                client.pendingDue[slot]);
        }
        else if (client.ackedIds[slot] == clientOrderId)
        {
            counters.incrementAndGet(DUPLICATE_ACKS);
        }
    }

    /**
     * Counts a new order's reject by whom and why. The engine's reports carry its sequence; the
     * gateway's carry none, nor does the engine's reject of a request its journal refused.
     */
    private void countRejectedAck()
    {
        final int reason = report.rejectReasonRaw();
        final long sequence = report.engineSequence();
        final boolean byEngine = (sequence > 0 && sequence != ExecutionReportDecoder.engineSequenceNullValue()) ||
            reason == RejectReason.JOURNAL_REFUSED.value();
        final int by = byEngine ? ACKS_REJECTED_BY_ENGINE : ACKS_REJECTED_BY_GATEWAY;
        counters.lazySet(by, counters.get(by) + 1);
        if (reason >= 0 && reason < COUNTERS - ACK_REJECT_REASONS)
        {
            counters.lazySet(ACK_REJECT_REASONS + reason, counters.get(ACK_REJECT_REASONS + reason) + 1);
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
        for (final Client client : clients)
        {
            if (null != client)
            {
                CloseHelper.quietCloseAll(client.out.publication(), client.replies);
            }
        }
    }
}
