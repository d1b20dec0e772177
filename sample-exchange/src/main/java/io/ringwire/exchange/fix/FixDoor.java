package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.SessionConfig;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import quickfix.Application;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileStoreFactory;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.MessageStoreFactory;
import quickfix.RejectLogon;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.UnsupportedMessageType;
import quickfix.field.HeartBtInt;
import quickfix.field.MsgType;
import quickfix.field.Password;
import quickfix.field.SendingTime;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The gateway's FIX 4.4 door: a QuickFIX/J acceptor whose sessions are gateway sessions. QuickFIX/J
 * keeps the FIX session layer (logon, heartbeats, TestRequest, sequence numbers in a file store
 * across restarts, ResendRequest and gap fill, SequenceReset, session-level Reject of what does not
 * parse or misses a required tag); the door authenticates each Logon (SenderCompID and Password, the
 * password being the session's token) before QuickFIX/J's session sees it ({@link LogonGate}), maps the four requests it supports to the SBE requests the
 * SBE door's clients send ({@link FixInbound}) and hands them to the same {@link Gateway}, which
 * applies the same checks (logon, rate, account, duplicate id, pre-trade risk) and
 * cancel-on-disconnect; the gateway's replies go back as FIX ({@link FixOutbound}). A FIX session
 * is a gateway transport of its own: its logon is the gateway's logon of the configured session,
 * with the member's identity, and its end (logout, a dropped connection, a heartbeat timeout) is the
 * transport's loss, on which the gateway cancels the session's orders.
 *
 * <p>Threading: the gateway's thread does no FIX work. QuickFIX/J's threads parse, authenticate and
 * map a member's requests to SBE and write them into an inbound ring, which {@link #poll} reads on
 * the gateway's thread (a full ring holds QuickFIX/J's reader, and TCP the member, back); the
 * gateway's replies are copied into an outbound ring ({@link #toSession}), from which the door's
 * sender thread maps and sends them. Neither thread of the door spins: the sender backs off to
 * parking when idle. The gateway's side allocates nothing; the FIX side does (QuickFIX/J's messages
 * are objects).
 */
public final class FixDoor implements Application, AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(FixDoor.class.getName());
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

    /** Inbound records: a session logged on (its SBE Logon), a request (SBE), the session ended. */
    private static final int LOGGED_ON = 1;
    private static final int REQUEST = 2;
    private static final int MASS_CANCEL = 3;
    private static final int LOST = 4;
    /** Outbound records: a reply (SBE), a mass cancel the gateway forwarded (SBE), a disconnect. */
    private static final int REPLY = 1;
    private static final int MASS_CANCEL_FORWARDED = 2;
    private static final int DISCONNECT = 3;
    /** The members' requests waiting for the gateway's thread: past it, QuickFIX/J's reader waits. */
    private static final int INBOUND_RING_BYTES = 4 << 20;
    /** The outbound ring's least and most bytes (it holds the shares of every member and two more). */
    private static final int MIN_OUTBOUND_RING_BYTES = 16 << 20;
    private static final int MAX_OUTBOUND_RING_BYTES = 64 << 20;
    /** The most of the outbound ring one session's records may hold, where the ring has room for every share. */
    static final int MAX_SESSION_SHARE = 4 << 20;
    /**
     * The least: past about 60 members the shares no longer fit the largest ring, and a member
     * within its share may then meet the ring full (it waits in its queue), rather than every
     * member being cut at a few hundred replies behind.
     */
    static final int MIN_SESSION_SHARE = 1 << 20;
    /**
     * The shares one session's records may hold in all, of every connection of it: a member that
     * logs on again before its last connection's backlog (up to two shares, were it cut off) is sent
     * has its whole share for the new one, and no more however often it logs on again.
     */
    static final long SHARES_HELD_AT_MOST = 3;
    /**
     * Outbound ring bytes no share counts on: the sender frees a batch of records only after the
     * batch, a claim wants a little more than its record, and the wrap pads.
     */
    private static final int RING_HEADROOM = 64 << 10;
    /**
     * Each session's queue at the door: its records that the ring could not take yet (its share
     * held, the ring full, or its earlier records waiting), in order. A session whose queue
     * overflows is the one behind: the gateway cuts it off as a slow consumer ({@link #takeSlow}).
     * It overflows when the next record does not fit at its end and less than a quarter of it has
     * been taken from its front: compacting only then keeps a nearly full queue from being moved
     * on every record.
     */
    static final int SESSION_QUEUE_BYTES = 64 << 10;
    /** A queued record's header: its ring record type, then its length. */
    private static final int QUEUED_HEADER = 2 * BitUtil.SIZE_OF_INT;
    /** Records moved from the sessions' queues into the ring in one call at most. */
    private static final int DRAIN_LIMIT = 256;
    /** What {@link #moveQueued} did with a session's oldest queued record; EMPTY: it had none. */
    private static final int MOVED = 0;
    private static final int AT_SHARE = 1;
    private static final int RING_FULL = 2;
    private static final int EMPTY = 3;
    /**
     * Messages QuickFIX/J may queue for one member's socket (its own write queue, past the kernel's
     * buffers) before it disconnects the member as a slow consumer: a member that stops reading
     * holds that much of the door's memory at most. What was queued stays in the store, for its
     * ResendRequest.
     */
    static final int MAX_QUEUED_WRITES = 10_000;
    /**
     * ClOrdIDs a FIX session may use in the door's life at most, whatever the gateway allows: the
     * door keeps each as text in maps (a few hundred bytes), where the gateway keeps a number.
     */
    static final int MAX_CLORDIDS = 1 << 20;
    /** A record's header: the session's index, then when it was written (ns, this host's monotonic clock). */
    private static final int RECORD_HEADER = BitUtil.SIZE_OF_INT + BitUtil.SIZE_OF_LONG;
    /**
     * A reply's header: the record's, then the member's connection the gateway knew when it replied
     * ({@link #logonsAndLogoutsRead}), so that a Logout or a refused logon meant for a connection gone
     * leaves the member's next one up.
     */
    private static final int REPLY_HEADER = RECORD_HEADER + BitUtil.SIZE_OF_INT;
    /** A user-defined tag a client may stamp with its send time ({@link System#nanoTime}, same host): times the wire. */
    public static final int CLIENT_SEND_NS_TAG = 5799;
    /** The stages {@link #stages()} times, in a request's and its reply's order. */
    public static final String[] STAGES = { "client to door (TCP, parse, session)", "door: map request",
        "door to gateway (queue)", "gateway to door (queue)", "door: map and send reply" };
    private static final long HIGHEST_NS = 60_000_000_000L;
    private static final int POLL_LIMIT = 64;

    private final Map<String, Member> membersByCompId = new HashMap<>();
    private final Member[] membersByIndex;
    private final SessionID[] sessionIds;
    private final FixOrders[] orders;
    private final Map<SessionID, Integer> heartbeatSeconds = new java.util.concurrent.ConcurrentHashMap<>();
    private final ManyToOneRingBuffer inbound = ring(ManyToOneRingBuffer::new, INBOUND_RING_BYTES);
    /**
     * Every member's replies pass through the one outbound ring and its one sender thread. It holds
     * every member's share and two more (up to about 60 members): a member whose replies come
     * faster than the sender maps them waits at its share, in its own queue, and so never takes the
     * room of a member within its own, while no more than two members are being cut off at once
     * (each may take twice its share), or one logs on again over its last connection's backlog
     * (its records may take three shares, {@link #SHARES_HELD_AT_MOST}).
     */
    private final OneToOneRingBuffer outbound;
    /** The outbound ring one session's records may hold at most. */
    private final int sessionShare;
    // QuickFIX/J's side, under inboundLock.
    private final Object inboundLock = new Object();
    private final FixInbound mapper = new FixInbound();
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(256);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final LogonEncoder logon = new LogonEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
    // The gateway's side.
    private final ControlledMessageHandler onInbound = this::onInbound;
    private final MessageHandler onOutbound = this::onOutbound;
    private Gateway gateway;
    private long nowNs;
    // The sender's side.
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final LogonResponseDecoder logonResponse = new LogonResponseDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final Thread sender;

    private final Recorder[] stageRecorders = new Recorder[STAGES.length];
    private final AtomicLong logonsRefused = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong repliesRefused = new AtomicLong();
    private final AtomicLong repliesQueued = new AtomicLong();
    private final AtomicLong recordsTaken = new AtomicLong();
    private final AtomicLong senderFailures = new AtomicLong();
    private final FixExecIds execIds = new FixExecIds(System.currentTimeMillis());
    private final AtomicLong disconnectsDone = new AtomicLong();
    private final AtomicLong disconnectsStale = new AtomicLong();
    private final AtomicLong logoutsStale = new AtomicLong();
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
     * Per session index, the logons and logouts the gateway's thread has read ({@link #LOGGED_ON}
     * and {@link #LOST} records).
     */
    private final int[] logonsAndLogoutsRead;
    /** Per session index: a disconnect the full outbound ring could not take yet (the gateway's thread). */
    private final boolean[] disconnectOwed;
    /** Per session index: the connection an owed disconnect is for ({@link #logonsAndLogoutsRead} when asked). */
    private final int[] disconnectOwedFor;
    private int disconnectsOwed;
    /** Per session index, ring bytes its records took (the gateway's thread writes them). */
    private final long[] ringBytesWritten;
    /** Per session index, ring bytes of its records the sender thread has taken. */
    private final AtomicLongArray ringBytesTaken;
    /**
     * Per session index, {@link #ringBytesWritten} when its current connection logged on: what its
     * earlier connections left in the ring, which the sender takes first (the ring is in order) and
     * which its share does not count.
     */
    private final long[] ringBytesBeforeConnection;
    /** Per session index, its queue at the door (null for an index no member has); the gateway's thread. */
    private final UnsafeBuffer[] queues;
    /** Per session index, where its queue's oldest record starts and where the next goes. */
    private final int[] queueHeads;
    private final int[] queueTails;
    /** The sessions whose queue holds a record, in the order {@link #drainQueues} serves them (a circular list). */
    private final int[] queuedSessions;
    private final boolean[] inQueuedSessions;
    private int queuedSessionsHead;
    private int queuedSessionsCount;
    /**
     * Per session index: its queue overflowed, so the gateway is cutting it off; until its next
     * logon its records may take twice its share of the ring, so that what the gateway sends it as
     * it goes (the engine's cancels of its orders) reaches the store for its ResendRequest.
     */
    private final boolean[] pastShare;
    /** Per session index: its queue overflowed and the gateway has not yet asked ({@link #takeSlow}). */
    private final boolean[] slow;
    /** Where {@link #claim} put the record: the ring (its claim's index) or a session's queue. */
    private MutableDirectBuffer claimedIn;
    private int claimedRingIndex;
    private long disconnectsDeferred;
    private final SocketAcceptor acceptor;
    private final long clockToEpochNs;
    private volatile boolean running = true;
    /** False from the start of {@link #close}: a QuickFIX/J thread waiting for room in the inbound ring lets go. */
    private volatile boolean accepting = true;

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
     * @param clockToEpochNs what to add to the exchange's clock (the gateway's {@code nowNs}, the
     *                       engine's transact times) to get epoch nanoseconds: FIX times are UTC.
     */
    public FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final int maxClOrdIds, final long clockToEpochNs)
    {
        this(address, compId, store, members, maxClOrdIds, clockToEpochNs, members.size() + 2);
    }

    /**
     * A door whose outbound ring holds {@code sharesInRing} session shares: fewer than the members
     * and two more (a test's) lets members within their share fill it.
     */
    FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final int maxClOrdIds, final long clockToEpochNs, final int sharesInRing)
    {
        if (members.size() > MAX_SESSIONS)
        {
            throw new IllegalArgumentException("a FIX door serves at most " + MAX_SESSIONS + " sessions");
        }
        if (sharesInRing < 1)
        {
            throw new IllegalArgumentException("the outbound ring holds at least one share: " + sharesInRing);
        }
        final long wanted = (long)sharesInRing * MAX_SESSION_SHARE;
        final int ringBytes = wanted >= MAX_OUTBOUND_RING_BYTES ? MAX_OUTBOUND_RING_BYTES :
            Math.max(MIN_OUTBOUND_RING_BYTES, BitUtil.findNextPositivePowerOfTwo((int)wanted));
        outbound = ring(OneToOneRingBuffer::new, ringBytes);
        sessionShare = Math.clamp((ringBytes - RING_HEADROOM) / sharesInRing, MIN_SESSION_SHARE, MAX_SESSION_SHARE);
        this.clockToEpochNs = clockToEpochNs;
        final int slots = 1 + members.stream().mapToInt(Member::sessionIndex).max().orElse(0);
        membersByIndex = new Member[slots];
        sessionIds = new SessionID[slots];
        orders = new FixOrders[slots];
        disconnectOwed = new boolean[slots];
        disconnectOwedFor = new int[slots];
        logonsAndLogouts = new AtomicIntegerArray(slots);
        logonsAndLogoutsRead = new int[slots];
        ringBytesWritten = new long[slots];
        ringBytesTaken = new AtomicLongArray(slots);
        ringBytesBeforeConnection = new long[slots];
        queues = new UnsafeBuffer[slots];
        queueHeads = new int[slots];
        queueTails = new int[slots];
        queuedSessions = new int[slots];
        inQueuedSessions = new boolean[slots];
        pastShare = new boolean[slots];
        slow = new boolean[slots];
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
            queues[member.sessionIndex()] = new UnsafeBuffer(new byte[SESSION_QUEUE_BYTES]);
        }
        final MessageStoreFactory stores = null == store ? new MemoryStoreFactory() : new FileStoreFactory(settings);
        try
        {
            acceptor = new SocketAcceptor(this, stores, settings, null, new DefaultMessageFactory());
            final LogonGate gate = new LogonGate(compId, this::passwordOf, this::onLogonRefused);
            acceptor.setIoFilterChainBuilder(chain -> chain.addLast("ringwire-logon-gate", gate));
        }
        catch (final ConfigError ex)
        {
            throw new IllegalArgumentException("the FIX door's settings: " + ex.getMessage(), ex);
        }
        for (int i = 0; i < STAGES.length; i++)
        {
            stageRecorders[i] = new Recorder(HIGHEST_NS, 3);
        }
        sender = new Thread(this::sendReplies, "ringwire-fix-door-sender");
        sender.setDaemon(true);
    }

    private static <T> T ring(final java.util.function.Function<UnsafeBuffer, T> kind, final int bytes)
    {
        return kind.apply(new UnsafeBuffer(ByteBuffer.allocateDirect(bytes + RingBufferDescriptor.TRAILER_LENGTH)));
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

    /** @return Logons refused for an unknown SenderCompID or a wrong password. */
    public long logonsRefused()
    {
        return logonsRefused.get();
    }

    /** @return requests the door refused itself, before the gateway (what FIX says the exchange cannot take). */
    public long refusals()
    {
        return refusals.get();
    }

    /** @return requests the door handed to the gateway. */
    public long requests()
    {
        return requests.get();
    }

    /**
     * @return replies the door refused because neither their session's queue nor the ring had room
     *         (the gateway cuts the session off as a slow consumer): lost to the member.
     */
    public long repliesRefused()
    {
        return repliesRefused.get();
    }

    /** @return records that waited in their session's queue before the ring took them. */
    public long repliesQueued()
    {
        return repliesQueued.get();
    }

    /** @return records the sender thread took from the ring. */
    public long recordsTaken()
    {
        return recordsTaken.get();
    }

    /** @return the outbound ring one session's records may hold at most. */
    int sessionShare()
    {
        return sessionShare;
    }

    /** @return bytes of records waiting in the session's queue at the door (the gateway's thread). */
    int queuedBytesOf(final int sessionIndex)
    {
        return queueTails[sessionIndex] - queueHeads[sessionIndex];
    }

    /** @return records the sender thread failed on (each logged, skipped, and the rest sent). */
    public long senderFailures()
    {
        return senderFailures.get();
    }

    /** @return members' connections the sender thread closed because the gateway asked. */
    public long disconnectsDone()
    {
        return disconnectsDone.get();
    }

    /**
     * @return disconnects the sender did not act on because the connection the gateway asked about
     *         was gone already (the member may have logged on again since).
     */
    public long disconnectsStale()
    {
        return disconnectsStale.get();
    }

    /**
     * @return Logouts and logon refusals from the gateway the sender did not act on because the
     *         connection they were for was gone already.
     */
    public long logoutsStale()
    {
        return logoutsStale.get();
    }

    /** @return disconnects the full outbound ring could not take at once, sent later (the gateway's thread). */
    public long disconnectsDeferred()
    {
        return disconnectsDeferred;
    }

    /**
     * @return bytes in the outbound ring the sender thread has not taken yet (replies, and the
     *         door's own records for it, with their headers).
     */
    public int outboundBacklog()
    {
        return outbound.size();
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
        stageRecorders[stage].recordValue(Math.clamp(ns, 0, HIGHEST_NS));
    }

    // ---------------------------------------------------------------- the gateway's thread

    /**
     * Hands the gateway what the members sent since the last call, up to a batch: logons, requests,
     * signs of life, and losses. A request the gateway cannot take yet (the engine's stream is
     * behind) stays, with everything after it, for the next call. Allocation-free.
     *
     * @return records handled.
     */
    public int poll(final Gateway gateway, final long nowNs)
    {
        this.gateway = gateway;
        this.nowNs = nowNs;
        return sendOwed() + inbound.controlledRead(onInbound, POLL_LIMIT);
    }

    /**
     * Moves the sessions' queued records into the ring where it has room, then writes the
     * disconnects owed. The gateway's thread calls it on every cycle, also while it reads no input
     * ({@link #poll} does too). Allocation-free.
     *
     * @return records and disconnects written.
     */
    public int sendOwed()
    {
        // Disconnects first: few and small, they do not wait behind the queues for the room the sender frees.
        final int disconnects = disconnectsOwed > 0 ? sendOwedDisconnects() : 0;
        return disconnects + (queuedSessionsCount > 0 ? drainQueues() : 0);
    }

    /**
     * Whether the session's queue overflowed since the last call (its replies come faster than the
     * door sends them, or a reply of it was refused): the gateway's thread cuts it off as a slow
     * consumer. Clears the mark.
     */
    public boolean takeSlow(final int sessionIndex)
    {
        if (accounted(sessionIndex) && slow[sessionIndex])
        {
            slow[sessionIndex] = false;
            return true;
        }
        return false;
    }

    /**
     * The sessions' queued records into the ring, one record of each session in turn, so that a
     * session with a long queue does not keep the room the sender frees from one with a short one.
     * A session at its share waits for the sender; a full ring ends the call, and the session it
     * stopped at is served first next time.
     */
    private int drainQueues()
    {
        int moved = 0;
        int atShare = 0;
        while (queuedSessionsCount > 0 && moved < DRAIN_LIMIT && atShare < queuedSessionsCount)
        {
            final int session = queuedSessions[queuedSessionsHead];
            // Its queue may have gone into the ring already, past its share, as it overflowed.
            final int result = queueHeads[session] == queueTails[session] ? EMPTY : moveQueued(session);
            if (result == RING_FULL)
            {
                return moved;
            }
            popQueuedSession();
            if (queueHeads[session] == queueTails[session])
            {
                inQueuedSessions[session] = false;
            }
            else
            {
                pushQueuedSession(session);
            }
            moved += result == MOVED ? 1 : 0;
            atShare = result == AT_SHARE ? atShare + 1 : 0;
        }
        return moved;
    }

    /**
     * Moves the session's oldest queued record into the ring, where its share allows.
     *
     * @return {@link #MOVED}, {@link #AT_SHARE} or {@link #RING_FULL}.
     */
    private int moveQueued(final int session)
    {
        final UnsafeBuffer queue = queues[session];
        final int head = queueHeads[session];
        final int type = queue.getInt(head);
        final int recordLength = queue.getInt(head + BitUtil.SIZE_OF_INT);
        if (!withinShare(session, recordLength))
        {
            return AT_SHARE;
        }
        final int claimed = outbound.tryClaim(type, recordLength);
        if (claimed < 0)
        {
            return RING_FULL;
        }
        outbound.buffer().putBytes(claimed, queue, head + QUEUED_HEADER, recordLength);
        outbound.commit(claimed);
        wrote(session, recordLength);
        final int next = head + queueRoom(recordLength);
        if (next == queueTails[session])
        {
            queueHeads[session] = 0;
            queueTails[session] = 0;
        }
        else
        {
            queueHeads[session] = next;
        }
        return MOVED;
    }

    private void popQueuedSession()
    {
        queuedSessionsHead = queuedSessionsHead + 1 == queuedSessions.length ? 0 : queuedSessionsHead + 1;
        queuedSessionsCount--;
    }

    private void pushQueuedSession(final int session)
    {
        final int at = queuedSessionsHead + queuedSessionsCount;
        queuedSessions[at >= queuedSessions.length ? at - queuedSessions.length : at] = session;
        queuedSessionsCount++;
    }

    private void forgetOwedDisconnect(final int sessionIndex)
    {
        if (sessionIndex >= 0 && sessionIndex < disconnectOwed.length && disconnectOwed[sessionIndex])
        {
            disconnectOwed[sessionIndex] = false;
            disconnectsOwed--;
        }
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
            case LOGGED_ON ->
            {
                logonsAndLogoutsRead[sessionIndex]++;
                connectionBegan(sessionIndex);
                gateway.onTransportAvailable(transport, membersByIndex[sessionIndex].session().identity(), nowNs);
                gateway.onClientMessage(transport, buffer, body, bodyLength, nowNs);
            }
            case REQUEST, MASS_CANCEL ->
            {
                final long readNs = System.nanoTime();
                final int result = gateway.onClientMessage(transport, buffer, body, bodyLength, nowNs);
                if (result == Gateway.BACK_PRESSURED)
                {
                    return ControlledMessageHandler.Action.ABORT;
                }
                record(2, readNs - buffer.getLong(index + BitUtil.SIZE_OF_INT));
                if (type == MASS_CANCEL && result == Gateway.FORWARDED)
                {
                    buffer.putLong(index + BitUtil.SIZE_OF_INT, System.nanoTime());
                    final int at = claim(MASS_CANCEL_FORWARDED, sessionIndex, length);
                    if (at >= 0)
                    {
                        claimedIn.putBytes(at, buffer, index, length);
                        commitClaim(sessionIndex, length);
                    }
                }
            }
            case LOST ->
            {
                logonsAndLogoutsRead[sessionIndex]++;
                forgetOwedDisconnect(sessionIndex); // that connection is gone: a later one must not be cut
                gateway.onTransportLost(transport, nowNs);
            }
            default ->
            {
            }
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * A new connection of the session (its logon read): its share holds again, counted from here, so
     * that what its last connection left in the ring (up to twice the share, were it cut off as slow)
     * neither holds the new one's replies back until its queue overflows nor cuts it; the last one's
     * overflow does not cut it either. The sender takes that backlog first (it is sent, and stored
     * for a ResendRequest), so it is gone from the ring before long; while it is there the session's
     * records may hold up to {@link #SHARES_HELD_AT_MOST} shares in all. What its last connection
     * left in its queue goes into the ring after the logon, and counts on the new one's share.
     */
    void connectionBegan(final int sessionIndex)
    {
        pastShare[sessionIndex] = false;
        slow[sessionIndex] = false;
        ringBytesBeforeConnection[sessionIndex] = ringBytesWritten[sessionIndex];
    }

    /**
     * The gateway's reply to one of the door's sessions: copied into the outbound ring for the sender
     * thread, or, while the ring cannot take it for this session (its share held, the ring full, or
     * its earlier records waiting), into the session's queue, from which {@link #sendOwed} moves it
     * in order. A member's replies are few or many: the queues keep one member's from taking the
     * room the others' need, and none is lost while its session's queue or the ring has room. A
     * session whose queue overflows (its replies come faster than the sender takes them) is marked
     * for the gateway to cut off ({@link #takeSlow}). Allocation-free.
     *
     * @return false when neither the session's queue nor the ring could take the reply (counted):
     *         its queue overflowed, so the session is marked ({@link #takeSlow}) and the gateway
     *         cuts it off as a slow consumer.
     */
    public boolean toSession(final int sessionIndex, final DirectBuffer message, final int offset, final int length)
    {
        final int recordLength = REPLY_HEADER + length;
        final int at = claim(REPLY, sessionIndex, recordLength);
        if (at < 0)
        {
            return false;
        }
        final MutableDirectBuffer to = claimedIn;
        to.putInt(at, sessionIndex);
        to.putLong(at + BitUtil.SIZE_OF_INT, System.nanoTime());
        to.putInt(at + RECORD_HEADER, accounted(sessionIndex) ? logonsAndLogoutsRead[sessionIndex] : 0);
        to.putBytes(at + REPLY_HEADER, message, offset, length);
        commitClaim(sessionIndex, recordLength);
        return true;
    }

    /**
     * Room for one record of a session: in the ring when none of the session's records waits and
     * its share allows, else at the end of its queue ({@link #claimedIn} says which). A session whose
     * queue is full is marked slow for the gateway to cut off, and from then on its records may take
     * twice its share of the ring: its queue's first, then this one, else this one behind what is
     * left of its queue.
     *
     * @return where the record goes in {@link #claimedIn}, or -1 when neither has room (counted).
     */
    private int claim(final int type, final int sessionIndex, final int recordLength)
    {
        final boolean member = accounted(sessionIndex) && null != queues[sessionIndex];
        final UnsafeBuffer queue = member ? queues[sessionIndex] : null;
        final boolean queued = member && queueHeads[sessionIndex] != queueTails[sessionIndex];
        if (!queued && withinShare(sessionIndex, recordLength) && claimInRing(type, recordLength))
        {
            return claimedRingIndex;
        }
        if (!member)
        {
            repliesRefused.incrementAndGet();
            return -1;
        }
        final int needed = queueRoom(recordLength);
        if (hasQueueRoom(sessionIndex, needed, queue.capacity() / 4))
        {
            return claimInQueue(type, sessionIndex, recordLength);
        }
        slow[sessionIndex] = true;
        pastShare[sessionIndex] = true;
        while (queueHeads[sessionIndex] != queueTails[sessionIndex] && moveQueued(sessionIndex) == MOVED)
        {
            // Its queue into the ring, ahead of this record: its order holds.
        }
        if (queueHeads[sessionIndex] == queueTails[sessionIndex] && withinShare(sessionIndex, recordLength) &&
            claimInRing(type, recordLength))
        {
            return claimedRingIndex;
        }
        if (hasQueueRoom(sessionIndex, needed, 1)) // behind what is left of its queue, compacted whatever it takes
        {
            return claimInQueue(type, sessionIndex, recordLength);
        }
        repliesRefused.incrementAndGet();
        return -1;
    }

    private int claimInQueue(final int type, final int sessionIndex, final int recordLength)
    {
        final UnsafeBuffer queue = queues[sessionIndex];
        final int tail = queueTails[sessionIndex];
        queue.putInt(tail, type);
        queue.putInt(tail + BitUtil.SIZE_OF_INT, recordLength);
        claimedIn = queue;
        claimedRingIndex = -1;
        return tail + QUEUED_HEADER;
    }

    private boolean claimInRing(final int type, final int recordLength)
    {
        final int claimed = outbound.tryClaim(type, recordLength);
        if (claimed < 0)
        {
            return false;
        }
        claimedIn = outbound.buffer();
        claimedRingIndex = claimed;
        return true;
    }

    /**
     * Whether the session's queue has {@code needed} bytes at its end, compacting it when at least
     * {@code compactFrom} bytes lie free before its oldest record: with a quarter of the queue, one
     * that only ever moves a little is not copied for each record.
     */
    private boolean hasQueueRoom(final int sessionIndex, final int needed, final int compactFrom)
    {
        final UnsafeBuffer queue = queues[sessionIndex];
        final int tail = queueTails[sessionIndex];
        if (queue.capacity() - tail >= needed)
        {
            return true;
        }
        final int head = queueHeads[sessionIndex];
        if (head < compactFrom)
        {
            return false;
        }
        queue.putBytes(0, queue, head, tail - head);
        queueHeads[sessionIndex] = 0;
        queueTails[sessionIndex] = tail - head;
        return queue.capacity() - (tail - head) >= needed;
    }

    private void commitClaim(final int sessionIndex, final int recordLength)
    {
        if (claimedRingIndex >= 0)
        {
            outbound.commit(claimedRingIndex);
            wrote(sessionIndex, recordLength);
            return;
        }
        queueTails[sessionIndex] += queueRoom(recordLength);
        if (!inQueuedSessions[sessionIndex])
        {
            inQueuedSessions[sessionIndex] = true;
            pushQueuedSession(sessionIndex);
        }
        repliesQueued.incrementAndGet();
    }

    /** The room a record takes in a session's queue: its header with it, aligned. */
    private static int queueRoom(final int recordLength)
    {
        return BitUtil.align(QUEUED_HEADER + recordLength, BitUtil.SIZE_OF_LONG);
    }

    /**
     * Whether the ring may take the record for the session: its current connection's records hold
     * at most its share, or twice that once its queue overflowed (a session being cut off: the
     * engine's cancels of its orders), and all its records at most {@link #SHARES_HELD_AT_MOST}
     * shares, so that even then the others find their shares' room.
     */
    private boolean withinShare(final int sessionIndex, final int recordLength)
    {
        if (!accounted(sessionIndex))
        {
            return true;
        }
        final long written = ringBytesWritten[sessionIndex] + ringBytes(recordLength);
        final long taken = ringBytesTaken.getAcquire(sessionIndex);
        return written - Math.max(taken, ringBytesBeforeConnection[sessionIndex]) <=
            (pastShare[sessionIndex] ? 2L : 1L) * sessionShare && written - taken <= SHARES_HELD_AT_MOST * sessionShare;
    }

    private boolean accounted(final int sessionIndex)
    {
        return sessionIndex >= 0 && sessionIndex < ringBytesWritten.length;
    }

    /** Ring bytes the session's records hold now, of every connection of it (for tests). */
    long ringBytesHeld(final int sessionIndex)
    {
        return ringBytesWritten[sessionIndex] - ringBytesTaken.getAcquire(sessionIndex);
    }

    private void wrote(final int sessionIndex, final int recordLength)
    {
        if (accounted(sessionIndex))
        {
            ringBytesWritten[sessionIndex] += ringBytes(recordLength);
        }
    }

    /** The room a record takes in the ring: the ring's own header with it, aligned as the ring aligns. */
    private static int ringBytes(final int recordLength)
    {
        return BitUtil.align(recordLength + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
    }

    /**
     * Closes a member's FIX connection (the gateway asked for it), from the sender thread. The
     * disconnect goes into the ring at once, ahead of any replies waiting in the session's queue
     * (those then reach QuickFIX/J's store, for the member's ResendRequest); one the full ring cannot
     * take now is owed, and written by a later {@link #sendOwed}.
     */
    public void disconnect(final int transportSession)
    {
        final int sessionIndex = transportSession - FIRST_TRANSPORT;
        final int connection = logonsAndLogoutsRead[sessionIndex];
        if (!writeDisconnect(sessionIndex, connection))
        {
            disconnectOwedFor[sessionIndex] = connection;
            if (!disconnectOwed[sessionIndex])
            {
                disconnectOwed[sessionIndex] = true;
                disconnectsOwed++;
                disconnectsDeferred++;
            }
        }
    }

    private boolean writeDisconnect(final int sessionIndex, final int connection)
    {
        final int claimed = outbound.tryClaim(DISCONNECT, RECORD_HEADER + BitUtil.SIZE_OF_INT);
        if (claimed < 0)
        {
            return false;
        }
        outbound.buffer().putInt(claimed, sessionIndex);
        outbound.buffer().putLong(claimed + BitUtil.SIZE_OF_INT, System.nanoTime());
        outbound.buffer().putInt(claimed + RECORD_HEADER, connection);
        outbound.commit(claimed);
        wrote(sessionIndex, RECORD_HEADER + BitUtil.SIZE_OF_INT);
        forgetOwedDisconnect(sessionIndex);
        return true;
    }

    private int sendOwedDisconnects()
    {
        int sent = 0;
        for (int i = 0; i < disconnectOwed.length && disconnectsOwed > 0; i++)
        {
            if (disconnectOwed[i])
            {
                if (!writeDisconnect(i, disconnectOwedFor[i]))
                {
                    break;
                }
                sent++;
            }
        }
        return sent;
    }

    // ---------------------------------------------------------------- the sender thread

    private void sendReplies()
    {
        // Backs off to parking, so no CPU is taken from the spinners; a reply after a quiet spell waits
        // at most one 50 us park, small beside a FIX member's TCP round trip.
        final IdleStrategy idle = new BackoffIdleStrategy(1, 1, 10_000, 50_000);
        while (running)
        {
            idle.idle(outbound.read(onOutbound, POLL_LIMIT));
        }
    }

    /**
     * One record for a member. A record that fails (a QuickFIX/J or decoding exception) is counted,
     * logged and skipped: the thread goes on with the rest, as every member's replies depend on it.
     */
    private void onOutbound(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int sessionIndex = buffer.getInt(index);
        if (accounted(sessionIndex))
        {
            // Only this thread writes a session's taken count; the gateway's thread reads it.
            ringBytesTaken.setRelease(sessionIndex, ringBytesTaken.getPlain(sessionIndex) + ringBytes(length));
        }
        recordsTaken.setRelease(recordsTaken.getPlain() + 1);
        try
        {
            sendOne(type, buffer, index);
        }
        catch (final RuntimeException ex)
        {
            final long failures = senderFailures.incrementAndGet();
            if (Long.bitCount(failures) == 1) // the 1st, 2nd, 4th, 8th...: a stream of them cannot flood the log
            {
                LOG.log(System.Logger.Level.WARNING, "the FIX door's sender skipped a record of type " + type +
                    " (" + failures + " so far): " + ex, ex);
            }
        }
    }

    private void sendOne(final int type, final MutableDirectBuffer buffer, final int index)
    {
        final long readNs = System.nanoTime();
        final int sessionIndex = buffer.getInt(index);
        final SessionID sessionId = sessionIds[sessionIndex];
        final Session session = Session.lookupSession(sessionId);
        if (null == session)
        {
            return;
        }
        record(3, readNs - buffer.getLong(index + BitUtil.SIZE_OF_INT));
        final int body = index + (type == REPLY ? REPLY_HEADER : RECORD_HEADER);
        headerDecoder.wrap(buffer, body);
        final int fields = body + MessageHeaderDecoder.ENCODED_LENGTH;
        if (type == DISCONNECT)
        {
            if (buffer.getInt(body) != logonsAndLogouts.get(sessionIndex))
            {
                disconnectsStale.incrementAndGet();
                return;
            }
            try
            {
                session.disconnect("the gateway disconnected the session", false);
            }
            catch (final IOException ex)
            {
                // Gone either way; its loss reaches the gateway through onLogout.
            }
            disconnectsDone.incrementAndGet();
        }
        else if (type == MASS_CANCEL_FORWARDED)
        {
            massCancel.wrap(buffer, fields, headerDecoder.blockLength(), headerDecoder.version());
            session.send(FixOutbound.massCancelReport(orders[sessionIndex].clOrdId(massCancel.clientOrderId()),
                massCancel.instrumentId(), -1, null));
        }
        else if (headerDecoder.templateId() == ExecutionReportDecoder.TEMPLATE_ID)
        {
            report.wrap(buffer, fields, headerDecoder.blockLength(), headerDecoder.version());
            // Sent, or, while the member is away, stored under its sequence number for its ResendRequest.
            session.send(FixOutbound.report(report, orders[sessionIndex], execIds, clockToEpochNs));
            record(4, System.nanoTime() - readNs);
        }
        else if (headerDecoder.templateId() == LogonResponseDecoder.TEMPLATE_ID)
        {
            logonResponse.wrap(buffer, fields, headerDecoder.blockLength(), headerDecoder.version());
            if (logonResponse.status() != LogonStatus.ACCEPTED && forCurrentConnection(buffer, index, sessionIndex))
            {
                session.logout("the gateway refused the logon: " + logonResponse.rejectReason());
            }
        }
        else if (headerDecoder.templateId() == LogoutDecoder.TEMPLATE_ID && forCurrentConnection(buffer, index,
            sessionIndex))
        {
            session.logout("the gateway ended the session");
        }
        // Heartbeats: QuickFIX/J keeps the FIX session's own.
    }

    /**
     * Whether a reply that ends a session was for the member's connection now: one the gateway sent
     * for a connection gone (it had not yet read that connection's end, or the member's next logon)
     * is counted and skipped, as a stale disconnect is.
     */
    private boolean forCurrentConnection(final DirectBuffer buffer, final int index, final int sessionIndex)
    {
        if (buffer.getInt(index + RECORD_HEADER) == logonsAndLogouts.get(sessionIndex))
        {
            return true;
        }
        logoutsStale.incrementAndGet();
        return false;
    }

    @Override
    public void close()
    {
        accepting = false; // the acceptor's stop logs every member out: none of them waits in offer
        acceptor.stop(true);
        running = false;
        try
        {
            sender.join(1_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- QuickFIX/J's threads

    /** Writes a record into the inbound ring, waiting while it is full: the member is held back, nothing lost. */
    private void offer(final int type, final int sessionIndex, final DirectBuffer sbe, final int length)
    {
        while (accepting)
        {
            final int claimed = inbound.tryClaim(type, RECORD_HEADER + length);
            if (claimed >= 0)
            {
                final var ring = inbound.buffer();
                ring.putInt(claimed, sessionIndex);
                ring.putLong(claimed + BitUtil.SIZE_OF_INT, System.nanoTime());
                if (length > 0)
                {
                    ring.putBytes(claimed + RECORD_HEADER, sbe, 0, length);
                }
                inbound.commit(claimed);
                return;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    private Member member(final SessionID sessionId)
    {
        return membersByCompId.get(sessionId.getTargetCompID());
    }

    /** @return the member's password (its session's token) by SenderCompID, or null. QuickFIX/J's threads. */
    private String passwordOf(final String senderCompId)
    {
        final Member member = membersByCompId.get(senderCompId);
        return null == member ? null : member.session().token();
    }

    /** A Logon the gate refused before QuickFIX/J's session saw it. QuickFIX/J's threads. */
    private void onLogonRefused(final String senderCompId, final String why)
    {
        final long refused = logonsRefused.incrementAndGet();
        if (Long.bitCount(refused) == 1) // the 1st, 2nd, 4th, 8th...: a flood of them cannot flood the log
        {
            LOG.log(System.Logger.Level.WARNING, "the FIX door refused a Logon as SenderCompID " + senderCompId +
                ": " + why + " (" + refused + " refused so far)");
        }
    }

    @Override
    public void onCreate(final SessionID sessionId)
    {
    }

    @Override
    public void onLogon(final SessionID sessionId)
    {
        final Member member = member(sessionId);
        if (null == member)
        {
            return;
        }
        final Integer seconds = heartbeatSeconds.get(sessionId);
        // HeartBtInt 0 (no heartbeats) keeps the gateway's longest interval.
        final int heartbeatMs = null == seconds || seconds <= 0 ? Gateway.MAX_HEARTBEAT_INTERVAL_MS :
            Math.clamp(seconds * 1000L, 1000, Gateway.MAX_HEARTBEAT_INTERVAL_MS);
        synchronized (inboundLock)
        {
            logonsAndLogouts.incrementAndGet(member.sessionIndex()); // before the record: the gateway never reads ahead of it
            logon.wrapAndApplyHeader(scratch, 0, headerEncoder)
                .sessionId(member.session().sessionId())
                .heartbeatIntervalMs(heartbeatMs)
                .sendingTime(epochNs() - clockToEpochNs)
                .nextReplySequence(0) // the door keeps its members' replies and resends by FIX's own sequence
                .credentials(member.session().token());
            offer(LOGGED_ON, member.sessionIndex(), scratch, MessageHeaderEncoder.ENCODED_LENGTH + logon.encodedLength());
        }
    }

    @Override
    public void onLogout(final SessionID sessionId)
    {
        final Member member = member(sessionId);
        if (null != member)
        {
            synchronized (inboundLock)
            {
                logonsAndLogouts.incrementAndGet(member.sessionIndex());
                offer(LOST, member.sessionIndex(), scratch, 0);
            }
        }
    }

    @Override
    public void toAdmin(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void fromAdmin(final Message message, final SessionID sessionId) throws FieldNotFound, RejectLogon
    {
        final String type = message.getHeader().getString(MsgType.FIELD);
        final Member member = member(sessionId);
        if (MsgType.LOGON.equals(type))
        {
            // The gate has refused a wrong password already; checked again here in case it is not installed.
            if (null == member || !message.isSetField(Password.FIELD) || !MessageDigest.isEqual(
                member.session().token().getBytes(StandardCharsets.UTF_8),
                message.getString(Password.FIELD).getBytes(StandardCharsets.UTF_8)))
            {
                logonsRefused.incrementAndGet();
                throw new RejectLogon("bad SenderCompID or password");
            }
            heartbeatSeconds.put(sessionId, message.isSetField(HeartBtInt.FIELD) ? message.getInt(HeartBtInt.FIELD) : 0);
        }
        else if (null != member && (MsgType.HEARTBEAT.equals(type) || MsgType.TEST_REQUEST.equals(type)))
        {
            synchronized (inboundLock)
            {
                heartbeat.wrapAndApplyHeader(scratch, 0, headerEncoder).sessionId(member.session().sessionId())
                    .sendingTime(epochNs() - clockToEpochNs);
                offer(REQUEST, member.sessionIndex(), scratch,
                    MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength());
            }
        }
    }

    @Override
    public void toApp(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void fromApp(final Message message, final SessionID sessionId) throws FieldNotFound, UnsupportedMessageType
    {
        final long arrivedNs = System.nanoTime();
        if (message.isSetField(CLIENT_SEND_NS_TAG))
        {
            final long sentNs = FixInbound.parseWhole(message.getString(CLIENT_SEND_NS_TAG));
            if (sentNs != Long.MIN_VALUE)
            {
                record(0, arrivedNs - sentNs);
            }
        }
        final String type = message.getHeader().getString(MsgType.FIELD);
        final Member member = member(sessionId);
        if (null == member)
        {
            return;
        }
        final boolean supported = MsgType.ORDER_SINGLE.equals(type) || MsgType.ORDER_CANCEL_REQUEST.equals(type) ||
            MsgType.ORDER_CANCEL_REPLACE_REQUEST.equals(type) || MsgType.ORDER_MASS_CANCEL_REQUEST.equals(type);
        if (!supported)
        {
            throw new UnsupportedMessageType(); // QuickFIX/J answers a BusinessMessageReject (j)
        }
        final FixOrders sessionOrders = orders[member.sessionIndex()];
        final long account = member.session().account();
        Message refusal;
        synchronized (inboundLock)
        {
            final long sendingNs = message.getHeader().isSetField(SendingTime.FIELD) ?
                epochNs(message.getHeader().getUtcTimeStamp(SendingTime.FIELD)) - clockToEpochNs :
                epochNs() - clockToEpochNs;
            try
            {
                final int length = switch (type)
                {
                    case MsgType.ORDER_SINGLE -> mapper.newOrder(message, sessionOrders, account, sendingNs, scratch);
                    case MsgType.ORDER_CANCEL_REQUEST -> mapper.cancel(message, sessionOrders, account, sendingNs, scratch);
                    case MsgType.ORDER_CANCEL_REPLACE_REQUEST ->
                        mapper.replace(message, sessionOrders, account, sendingNs, scratch);
                    default -> mapper.massCancel(message, sessionOrders, account, sendingNs, scratch);
                };
                if (length != FixInbound.REFUSED)
                {
                    requests.incrementAndGet();
                    offer(MsgType.ORDER_MASS_CANCEL_REQUEST.equals(type) ? MASS_CANCEL : REQUEST, member.sessionIndex(),
                        scratch, length);
                    record(1, System.nanoTime() - arrivedNs);
                    return;
                }
                refusal = refusal(type, message, sessionOrders);
            }
            catch (final FieldNotFound ex)
            {
                // The data dictionary lets no request without its required tags through: a conditional one.
                refusal = FixOutbound.businessReject(message, "required tag " + ex.field + " missing");
            }
        }
        // Sent outside the lock: QuickFIX/J's send takes the session's own lock, and the sender
        // thread, holding that lock in a send that disconnects the member, waits for this one in
        // onLogout.
        refusals.incrementAndGet();
        Session.lookupSession(sessionId).send(refusal);
    }

    private Message refusal(final String type, final Message message, final FixOrders sessionOrders)
        throws FieldNotFound
    {
        return switch (type)
        {
            case MsgType.ORDER_SINGLE -> FixOutbound.orderRefused(message, execIds.next(), mapper.rejectCode(),
                mapper.rejectText());
            case MsgType.ORDER_MASS_CANCEL_REQUEST -> FixOutbound.massCancelReport(message.getString(11),
                massCancelInstrument(message), mapper.rejectCode(), mapper.rejectText());
            // OrdStatus is the named order's, from its last report.
            default -> FixOutbound.cancelReject(message.getString(11), message.getString(41),
                MsgType.ORDER_CANCEL_REPLACE_REQUEST.equals(type), mapper.rejectCode(), mapper.rejectText(),
                mapper.rejectCode() == FixRejectCodes.CXL_UNKNOWN_ORDER ? FixOutbound.OrdStatusCodes.REJECTED :
                    namedOrderStatus(sessionOrders, message.getString(41)));
        };
    }

    /**
     * @return the OrdStatus (39) of the order a refused cancel or replace names: rejected (8) for a
     *         ClOrdID the door never gave, new (0) for an order no report has named yet.
     */
    private static char namedOrderStatus(final FixOrders sessionOrders, final String origClOrdId)
    {
        final long named = sessionOrders.existingId(origClOrdId);
        return named == 0 ? FixOutbound.OrdStatusCodes.REJECTED :
            sessionOrders.status(named, FixOutbound.OrdStatusCodes.NEW);
    }

    private static int massCancelInstrument(final Message message) throws FieldNotFound
    {
        if (message.getChar(530) != FixInbound.MASS_CANCEL_SECURITY || !message.isSetField(55))
        {
            return 0;
        }
        final long number = FixInbound.parseWhole(message.getString(55));
        return number > 0 && number <= Integer.MAX_VALUE ? (int)number : 0;
    }

    private static long epochNs()
    {
        final java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static long epochNs(final LocalDateTime time)
    {
        return time.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L + time.getNano();
    }
}
