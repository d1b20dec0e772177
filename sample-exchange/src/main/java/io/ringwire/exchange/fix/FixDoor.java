package io.ringwire.exchange.fix;

import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.SessionConfig;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FileStoreFactory;
import quickfix.MessageStoreFactory;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.ThreadedSocketAcceptor;
import quickfix.mina.message.FIXProtocolCodecFactory;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static io.ringwire.exchange.fix.FixReplyRing.RECORD_HEADER;

/**
 * The gateway's FIX 4.4 door: a QuickFIX/J acceptor whose sessions are gateway sessions. QuickFIX/J
 * keeps the FIX session layer (logon, heartbeats, TestRequest, sequence numbers in a file store
 * across restarts, ResendRequest and gap fill, SequenceReset, session-level Reject of what does not
 * parse or misses a required tag); the door authenticates each Logon (SenderCompID and Password, the
 * password being the session's token) before QuickFIX/J's session sees it ({@link LogonGate}), maps
 * the four requests it supports to the SBE requests the SBE door's clients send ({@link FixInbound})
 * and hands them to the same {@link Gateway}, which
 * applies the same checks (logon, rate, account, duplicate id, pre-trade risk) and
 * cancel-on-disconnect; the gateway's replies go back as FIX ({@link FixOutbound}). A FIX session
 * is a gateway transport of its own: its logon is the gateway's logon of the configured session,
 * with the member's identity, and its end (logout, a dropped connection, a heartbeat timeout) is the
 * transport's loss, on which the gateway cancels the session's orders.
 *
 * <p>Threading: the gateway's thread does no FIX work. QuickFIX/J's threads (its I/O threads, and a
 * thread of each member's session, which handles that member's messages and ResendRequests) parse,
 * authenticate and map a member's requests to SBE and write them into an inbound ring
 * ({@link FixDoorApplication}, the door's QuickFIX/J application), which {@link #poll} reads on
 * the gateway's thread (a full ring holds the sessions' threads back; past
 * {@link #QUEUE_UPPER} of a member's messages waiting for it, the door stops reading that member,
 * whose TCP window then holds it back); the
 * gateway's replies are copied into an outbound ring ({@link #toSession}; {@link FixReplyRing}
 * keeps each member within its share of it), from which the door's sender thread
 * ({@link FixReplySender}) maps and sends them. Neither thread of the door spins: the sender backs off to
 * parking when idle. The gateway's side allocates nothing; the FIX side does (QuickFIX/J's messages
 * are objects).
 */
public final class FixDoor implements AutoCloseable
{
    /** The door's transport session ids: a block the gateway's messaging images are kept out of. */
    public static final int FIRST_TRANSPORT = Integer.MIN_VALUE;
    /** Sessions a door serves at most (one transport id each). */
    public static final int MAX_SESSIONS = 4096;

    /**
     * One FIX session of the door.
     *
     * @param sessionIndex  its configured session's index in the gateway's sessions.
     * @param session       that configured session (identity, account, token: the FIX Password).
     * @param senderCompId  the member's SenderCompID (49).
     */
    public record Member(int sessionIndex, SessionConfig session, String senderCompId)
    {
    }

    /**
     * Messages QuickFIX/J may queue for one member's socket (its own write queue, past the kernel's
     * buffers) before it disconnects the member as a slow consumer: a member that stops reading
     * holds that much of the door's memory at most. What was queued stays in the store, for its
     * ResendRequest.
     */
    static final int MAX_QUEUED_WRITES = 10_000;
    /**
     * A session's last messages a ResendRequest is answered from (those before are gap-filled), and
     * a bound on what one ResendRequest costs the door (see {@link ResendWindowStore}): fewer than
     * {@link #MAX_QUEUED_WRITES}, since QuickFIX/J writes a resend in one loop and a larger one could
     * fill the member's write queue on its own, cutting it off as a slow consumer at every logon. In
     * memory, a session's window holds at most this many messages.
     */
    static final int RESEND_WINDOW = 1 << 13;
    /**
     * A member's messages its session's thread may have waiting (parsed, in the session's queue)
     * before the door stops reading that member's connection; it reads again once they are
     * down to {@link #QUEUE_LOWER}. Past the bound the member's TCP window closes and holds it back,
     * nothing lost, while the I/O threads go on reading and writing every other member's connection.
     * (With a bounded queue instead, as QuickFIX/J has by default, a member that sends faster than
     * the door takes requests fills it and blocks an I/O thread, and with it every member whose
     * connection that thread serves, replies included.) A member may have this many,
     * plus what one read of its connection holds, waiting at most.
     */
    static final int QUEUE_UPPER = 128;
    /** See {@link #QUEUE_UPPER}. */
    static final int QUEUE_LOWER = 32;
    /**
     * ClOrdIDs a FIX session may use in the door's life at most, whatever the gateway allows: the
     * door keeps each as text in maps (up to {@value FixOrders#MAX_CLORDID_LENGTH} characters, a few
     * hundred bytes with its entries), where the gateway keeps a number.
     */
    static final int MAX_CLORDIDS = 1 << 20;
    /** A user-defined tag a client may stamp with its send time ({@link System#nanoTime}, same host): times the wire. */
    public static final int CLIENT_SEND_NS_TAG = 5799;
    /** The stages {@link #stages()} times, in a request's and its reply's order. */
    public static final String[] STAGES = { "client to door (TCP, parse, session)", "door: map request",
        "door to gateway (queue)", "gateway to door (queue)", "door: map and send reply" };
    private static final long HIGHEST_NS = 60_000_000_000L;
    private static final int POLL_LIMIT = 64;

    private final Member[] membersByIndex;
    /** Per session index, the QuickFIX/J session of the member that has it (null for none). */
    private final SessionID[] sessionIds;
    /** Every member's replies, to the sender thread, each member within its share. */
    private final FixReplyRing replies;
    // QuickFIX/J's side: it writes the members' records into the inbound ring.
    private final FixDoorApplication application;
    private final ManyToOneRingBuffer inbound;
    // The gateway's side.
    private final ControlledMessageHandler onInbound = this::onInbound;
    private Gateway gateway;
    private long nowNs;
    // The sender's side.
    private final FixReplySender sender;

    private final Recorder[] stageRecorders = new Recorder[STAGES.length];
    /**
     * Per session index, the member's logons and logouts in the door's life (QuickFIX/J's threads
     * count them, each before its record; the sender reads them). A disconnect carries the count the
     * gateway had read when it asked, so one that reaches the sender once the connection it was about
     * is gone (logged out, whether or not the member is back) leaves the member's next connection up.
     * The logout of the connection asked about comes before any new connection is attached, and the
     * new one's logon is counted only after QuickFIX/J has answered it: counting logouts closes that
     * window.
     */
    private final AtomicIntegerArray logonsAndLogouts;
    /**
     * Per session index, the logons and logouts the gateway's thread has read
     * ({@link FixDoorApplication#LOGGED_ON} and {@link FixDoorApplication#LOST} records).
     */
    private final int[] logonsAndLogoutsRead;
    private final ThreadedSocketAcceptor acceptor;
    private final ConnectionGuard guard = new ConnectionGuard(MAX_QUEUED_WRITES);
    private final BodyLengthBound bodyLengthBound = new BodyLengthBound();

    /**
     * Binds the acceptor (it accepts once {@link #start} is called).
     *
     * @param address        where members connect.
     * @param compId         the door's own CompID (the members' TargetCompID).
     * @param store          where sequence numbers and sent messages are kept across restarts, or
     *                       null to keep them in memory only.
     * @param members        the FIX sessions.
     * @param maxClOrdIds    ClOrdIDs a session may use in the door's life: the gateway's client
     *                       order ids per session ({@code GatewayConfig.maxClientOrderIdsPerSession}),
     *                       at most {@link #MAX_CLORDIDS}.
     */
    public FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final int maxClOrdIds)
    {
        this(address, compId, store, members, maxClOrdIds, members.size() + 2,
            FixDoorApplication.INBOUND_RING_BYTES);
    }

    /**
     * A door whose outbound ring holds {@code sharesInRing} session shares: fewer than the members
     * and two more (a test's) lets members within their share fill it.
     */
    FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final int maxClOrdIds, final int sharesInRing)
    {
        this(address, compId, store, members, maxClOrdIds, sharesInRing,
            FixDoorApplication.INBOUND_RING_BYTES);
    }

    /**
     * A door whose inbound ring holds {@code inboundRingBytes} (a power of two): a test's small one
     * fills with few requests.
     */
    FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final int maxClOrdIds, final int sharesInRing, final int inboundRingBytes)
    {
        this(address, compId, store, members, maxClOrdIds, sharesInRing, inboundRingBytes, RESEND_WINDOW, null);
    }

    /**
     * A door that answers a ResendRequest from the last {@code resendWindow} messages of a session
     * (a test's small window shows the gap fill), over {@code keepingStores}, stores that keep the
     * messages themselves (a test's may hold one session's thread), or, when null, a file store at
     * {@code store} or memory.
     */
    FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final int maxClOrdIds, final int sharesInRing, final int inboundRingBytes, final int resendWindow,
        final MessageStoreFactory keepingStores)
    {
        if (members.size() > MAX_SESSIONS)
        {
            throw new IllegalArgumentException("a FIX door serves at most " + MAX_SESSIONS + " sessions");
        }
        if (sharesInRing < 1)
        {
            throw new IllegalArgumentException("the outbound ring holds at least one share: " + sharesInRing);
        }
        final int slots = 1 + members.stream().mapToInt(Member::sessionIndex).max().orElse(0);
        final Map<String, Member> membersByCompId = new HashMap<>();
        membersByIndex = new Member[slots];
        sessionIds = new SessionID[slots];
        final FixOrders[] orders = new FixOrders[slots];
        logonsAndLogouts = new AtomicIntegerArray(slots);
        logonsAndLogoutsRead = new int[slots];
        final long firstOrderId = FixOrders.firstIdAt(System.currentTimeMillis());
        final SessionSettings settings = new SessionSettings();
        settings.setString("ConnectionType", "acceptor");
        settings.setString("BeginString", "FIX.4.4");
        settings.setString("SenderCompID", compId);
        settings.setString("SocketAcceptAddress", address.getHostString());
        settings.setLong("SocketAcceptPort", address.getPort());
        settings.setString("StartTime", "00:00:00");
        settings.setString("EndTime", "00:00:00");
        settings.setString("UseDataDictionary", "Y");
        settings.setString("ValidateUserDefinedFields", "N");
        settings.setString("ResetOnLogon", "N");
        settings.setString("PersistMessages", "Y");
        settings.setString("SocketTcpNoDelay", "Y");
        settings.setLong("MaxScheduledWriteRequests", MAX_QUEUED_WRITES);
        if (null != store)
        {
            settings.setString("FileStorePath", store.toString());
        }
        for (final Member member : members)
        {
            if (null != membersByCompId.put(member.senderCompId(), member) ||
                member.sessionIndex() < 0 || null != membersByIndex[member.sessionIndex()])
            {
                throw new IllegalArgumentException("two FIX sessions have SenderCompID " + member.senderCompId() +
                    " or session index " + member.sessionIndex());
            }
            membersByIndex[member.sessionIndex()] = member;
            final SessionID sessionId = new SessionID("FIX.4.4", compId, member.senderCompId());
            settings.setString(sessionId, "TargetCompID", member.senderCompId());
            sessionIds[member.sessionIndex()] = sessionId;
            orders[member.sessionIndex()] = new FixOrders(firstOrderId, Math.min(maxClOrdIds, MAX_CLORDIDS));
        }
        replies = new FixReplyRing(slots, members.stream().mapToInt(Member::sessionIndex).toArray(), sharesInRing);
        for (int i = 0; i < STAGES.length; i++)
        {
            stageRecorders[i] = new Recorder(HIGHEST_NS, 3);
        }
        final FixExecIds execIds = new FixExecIds(System.currentTimeMillis());
        application = new FixDoorApplication(membersByCompId, orders, execIds, logonsAndLogouts,
            stageRecorders[0], stageRecorders[1], guard, inboundRingBytes);
        inbound = application.inbound();
        final MessageStoreFactory stores = ResendWindowStore.factory(null != keepingStores ? keepingStores :
            null == store ? null : new FileStoreFactory(settings), resendWindow);
        try
        {
            // A thread per session: QuickFIX/J answers a session's ResendRequest, and parses and
            // handles each of its messages, on it, so no member's work holds another's back.
            acceptor = ThreadedSocketAcceptor.newBuilder().withApplication(application).withMessageStoreFactory(stores)
                .withSettings(settings).withMessageFactory(new DefaultMessageFactory())
                // No message log: a session given no log keeps QuickFIX/J's silent one.
                .withLogFactory(sessionId -> null)
                .withQueueWatermarks(QUEUE_LOWER, QUEUE_UPPER).build();
            final LogonGate gate = new LogonGate(compId, application::passwordOf, application::onLogonRefused);
            acceptor.setIoFilterChainBuilder(chain ->
            {
                // QuickFIX/J's own filters (its decoder among them) are in the chain already.
                chain.addBefore(FIXProtocolCodecFactory.FILTER_NAME, "ringwire-body-length-bound", bodyLengthBound);
                chain.addLast("ringwire-connection-guard", guard);
                chain.addLast("ringwire-logon-gate", gate);
            });
        }
        catch (final ConfigError ex)
        {
            throw new IllegalArgumentException("the FIX door's settings: " + ex.getMessage(), ex);
        }
        sender = new FixReplySender(replies, sessionIds, orders, execIds, logonsAndLogouts,
            stageRecorders[3], stageRecorders[4], guard);
    }

    /** Starts accepting members, and the sender thread. */
    public void start()
    {
        sender.start();
        try
        {
            acceptor.start();
        }
        catch (final ConfigError ex)
        {
            throw new IllegalStateException("the FIX door did not start: " + ex.getMessage(), ex);
        }
    }

    /** @return whether the configured session is one of this door's. */
    public boolean serves(final int sessionIndex)
    {
        return sessionIndex >= 0 && sessionIndex < membersByIndex.length && null != membersByIndex[sessionIndex];
    }

    /** @return whether a gateway transport session id is one of this door's. */
    public static boolean isDoorTransport(final int transportSession)
    {
        return transportSession >= FIRST_TRANSPORT && transportSession < FIRST_TRANSPORT + MAX_SESSIONS;
    }

    /** @return requests marked PossResend (97) under a ClOrdID their session had used: ignored as seen. */
    public long possResendsIgnored()
    {
        return application.possResendsIgnored();
    }

    /** @return Logons refused for an unknown SenderCompID or a wrong password. */
    public long logonsRefused()
    {
        return application.logonsRefused();
    }

    /** @return requests the door refused itself, before the gateway (what FIX says the exchange cannot take). */
    public long refusals()
    {
        return application.refusals();
    }

    /** @return requests the door handed to the gateway. */
    public long requests()
    {
        return application.requests();
    }

    /**
     * @return replies the door refused because neither their session's queue nor the ring had room
     *         (the gateway cuts the session off as a slow consumer): lost to the member.
     */
    public long repliesRefused()
    {
        return replies.repliesRefused();
    }

    /** @return records that waited in their session's queue before the ring took them. */
    public long repliesQueued()
    {
        return replies.repliesQueued();
    }

    /** @return messages dropped because they came on a connection their FIX session had let go. */
    public long staleMessagesDropped()
    {
        return guard.messagesDropped();
    }

    /**
     * @return logouts whose record for the gateway waited (the inbound ring full, or another thread
     *         writing into it) instead of the thread that ended the session.
     */
    public long logoutsDeferred()
    {
        return application.logoutsDeferred();
    }

    /** @return members' connections QuickFIX/J resumed reading whose I/O thread the door woke for it. */
    public long readsWoken()
    {
        return guard.readsWoken();
    }

    /**
     * @return connections closed because a message on them announced a body over
     *         {@link BodyLengthBound#MAX_BODY_LENGTH} bytes, before the FIX decoder buffered it.
     */
    public long connectionsClosedOverBodyLength()
    {
        return bodyLengthBound.connectionsClosed();
    }

    /**
     * @return members' connections closed because a message's MsgSeqNum ran more than
     *         {@link ConnectionGuard#MAX_SEQUENCE_AHEAD} past what their session expects and past
     *         their Logon's.
     */
    public long connectionsClosedSequenceAhead()
    {
        return guard.closedSequenceAhead();
    }

    /** @return members' connections closed at once, without waiting for their writes, because the member was cut off. */
    public long connectionsClosedAtCut()
    {
        return guard.connectionsClosed();
    }

    /**
     * @return the member's connections as the network layer sees them, and its session as
     *         QuickFIX/J does: for the diagnosis of a member the door stopped taking from.
     */
    String describe(final int sessionIndex)
    {
        if (!serves(sessionIndex))
        {
            return "not a member of this door";
        }
        final Session session = Session.lookupSession(sessionIds[sessionIndex]);
        final String fix = null == session ? "no QuickFIX/J session" : "QuickFIX/J session " +
            (session.isLoggedOn() ? "logged on" : "not logged on") + ", expecting MsgSeqNum " +
            session.getExpectedTargetNum();
        return fix + "; connections: " + guard.describe(membersByIndex[sessionIndex].senderCompId()) +
            "; messages the door dropped as stale (all members) " + guard.messagesDropped();
    }

    /**
     * @return the FIX messages queued for the member's connection now, which its socket has not
     *         taken (QuickFIX/J cuts the member off at {@link #MAX_QUEUED_WRITES}); 0 while it has none.
     */
    public int queuedWrites(final int sessionIndex)
    {
        return serves(sessionIndex) ? guard.queuedWrites(membersByIndex[sessionIndex].senderCompId()) : 0;
    }

    /** @return records the sender thread took from the ring. */
    public long recordsTaken()
    {
        return sender.recordsTaken();
    }

    /** @return the door's QuickFIX/J application (for tests that call it as QuickFIX/J would). */
    FixDoorApplication application()
    {
        return application;
    }

    /** @return the outbound ring, with each member's share and queue (for tests). */
    FixReplyRing replies()
    {
        return replies;
    }

    /** @return records the sender thread failed on (each logged, skipped, and the rest sent). */
    public long senderFailures()
    {
        return sender.failures();
    }

    /** @return members' connections the sender thread closed because the gateway asked. */
    public long disconnectsDone()
    {
        return sender.disconnectsDone();
    }

    /**
     * @return disconnects the sender did not act on because the connection the gateway asked about
     *         was gone already (the member may have logged on again since).
     */
    public long disconnectsStale()
    {
        return sender.disconnectsStale();
    }

    /**
     * @return Logouts and logon refusals from the gateway the sender did not act on because the
     *         connection they were for was gone already.
     */
    public long logoutsStale()
    {
        return sender.logoutsStale();
    }

    /**
     * @return records the sender skipped because QuickFIX/J no longer knew their member's session
     *         (the acceptor stopped first, as the door closed): lost to the member.
     */
    public long recordsWithoutSession()
    {
        return sender.recordsWithoutSession();
    }

    /** @return disconnects the full outbound ring could not take at once, sent later (the gateway's thread). */
    public long disconnectsDeferred()
    {
        return replies.disconnectsDeferred();
    }

    /** @return bytes free in the inbound ring: none to speak of while the gateway is behind. */
    public int inboundRoom()
    {
        return inbound.capacity() - inbound.size();
    }

    /**
     * @return bytes in the outbound ring the sender thread has not taken yet (replies, and the
     *         door's own records for it, with their headers).
     */
    public int outboundBacklog()
    {
        return replies.backlog();
    }

    /**
     * @return each of {@link #STAGES}' latencies since the last call, ns (the first only for requests
     *         that carry {@link #CLIENT_SEND_NS_TAG}).
     */
    public Histogram[] stages()
    {
        final Histogram[] intervals = new Histogram[STAGES.length];
        for (int i = 0; i < STAGES.length; i++)
        {
            intervals[i] = stageRecorders[i].getIntervalHistogram();
        }
        return intervals;
    }

    private void record(final int stage, final long ns)
    {
        record(stageRecorders[stage], ns);
    }

    /** Records a stage's time, within the histograms' range. */
    static void record(final Recorder stage, final long ns)
    {
        stage.recordValue(Math.clamp(ns, 0, HIGHEST_NS));
    }

    // ---------------------------------------------------------------- the gateway's thread

    /**
     * Hands the gateway what the members sent since the last call, up to a batch: logons, requests,
     * signs of life, and losses. A request the gateway cannot take yet (the engine's stream is
     * behind) stays, with everything after it, for the next call. Then writes the logouts owed into
     * the room the read made, where no QuickFIX/J thread holds the ring ({@link
     * FixDoorApplication#payOwedLogouts}). Allocation-free.
     *
     * @return records handled and written.
     */
    public int poll(final Gateway gateway, final long nowNs)
    {
        this.gateway = gateway;
        this.nowNs = nowNs;
        return sendOwed() + inbound.controlledRead(onInbound, POLL_LIMIT) + application.payOwedLogouts();
    }

    /**
     * Writes the disconnects owed, then moves the sessions' queued replies into the outbound ring
     * where it has room ({@link FixReplyRing#sendOwed}). The gateway's thread calls it on every cycle,
     * also while it reads no input ({@link #poll} does too). Allocation-free.
     *
     * @return records and disconnects written.
     */
    public int sendOwed()
    {
        return replies.sendOwed();
    }

    /**
     * Whether the session's queue at the door overflowed since the last call (its replies come
     * faster than the door sends them, or a reply of it was refused): the gateway's thread cuts it
     * off as a slow consumer. Clears the mark.
     */
    public boolean takeSlow(final int sessionIndex)
    {
        return replies.takeSlow(sessionIndex);
    }

    private ControlledMessageHandler.Action onInbound(final int type, final MutableDirectBuffer buffer, final int index,
        final int length)
    {
        final int sessionIndex = buffer.getInt(index);
        final int transport = FIRST_TRANSPORT + sessionIndex;
        final int body = index + RECORD_HEADER;
        final int bodyLength = length - RECORD_HEADER;
        switch (type)
        {
            case FixDoorApplication.LOGGED_ON ->
            {
                logonsAndLogoutsRead[sessionIndex]++;
                replies.connectionBegan(sessionIndex);
                gateway.onTransportAvailable(transport, membersByIndex[sessionIndex].session().identity(), nowNs);
                gateway.onClientMessage(transport, buffer, body, bodyLength, nowNs);
            }
            case FixDoorApplication.REQUEST, FixDoorApplication.MASS_CANCEL ->
            {
                final long readNs = System.nanoTime();
                final int result = gateway.onClientMessage(transport, buffer, body, bodyLength, nowNs);
                if (result == Gateway.BACK_PRESSURED)
                {
                    return ControlledMessageHandler.Action.ABORT;
                }
                record(2, readNs - buffer.getLong(index + BitUtil.SIZE_OF_INT));
                if (type == FixDoorApplication.MASS_CANCEL && result == Gateway.FORWARDED)
                {
                    buffer.putLong(index + BitUtil.SIZE_OF_INT, System.nanoTime());
                    replies.forwarded(sessionIndex, buffer, index, length);
                }
            }
            case FixDoorApplication.LOST ->
            {
                logonsAndLogoutsRead[sessionIndex]++;
                replies.forgetOwedDisconnect(sessionIndex); // that connection is gone: a later one must not be cut
                gateway.onTransportLost(transport, nowNs);
            }
            default ->
            {
            }
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * The gateway's reply to one of the door's sessions, for the sender thread to map and send
     * ({@link FixReplyRing#reply}: into the outbound ring, or the session's queue while the ring
     * cannot take it for this session). Allocation-free.
     *
     * @return false when neither the session's queue nor the ring could take the reply (counted):
     *         its queue overflowed, so the session is marked ({@link #takeSlow}) and the gateway
     *         cuts it off as a slow consumer.
     */
    public boolean toSession(final int sessionIndex, final DirectBuffer message, final int offset, final int length)
    {
        final int connection = sessionIndex >= 0 && sessionIndex < logonsAndLogoutsRead.length ?
            logonsAndLogoutsRead[sessionIndex] : 0;
        return replies.reply(sessionIndex, connection, message, offset, length);
    }

    /**
     * Closes a member's FIX connection (the gateway asked for it), from the sender thread: the
     * disconnect goes into the outbound ring at once, ahead of the session's queued replies, or is
     * owed and written by a later {@link #sendOwed} ({@link FixReplyRing#disconnect}).
     */
    public void disconnect(final int transportSession)
    {
        final int sessionIndex = transportSession - FIRST_TRANSPORT;
        replies.disconnect(sessionIndex, logonsAndLogoutsRead[sessionIndex]);
    }

    @Override
    public void close()
    {
        application.stopAccepting(); // the acceptor's stop logs every member out: none of them waits for room
        acceptor.stop(true);
        sender.stop();
    }
}
