package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.gateway.Gateway;
import org.HdrHistogram.Recorder;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import quickfix.Application;
import quickfix.FieldNotFound;
import quickfix.Message;
import quickfix.RejectLogon;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.UnsupportedMessageType;
import quickfix.field.ClOrdID;
import quickfix.field.HeartBtInt;
import quickfix.field.MsgType;
import quickfix.field.Password;
import quickfix.field.PossResend;
import quickfix.field.SendingTime;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static io.ringwire.exchange.fix.FixReplyRing.RECORD_HEADER;

/**
 * QuickFIX/J's side of the {@link FixDoor}: the door's {@link Application}, called on QuickFIX/J's
 * threads. It checks a Logon's password again (the {@link LogonGate} checks it first), maps each
 * member's requests to SBE ({@link FixInbound}) and writes them, the member's logons, signs of life
 * and losses into the inbound ring, which the gateway's thread reads ({@link FixDoor#poll}); a
 * request the door cannot take it answers itself, in FIX. A full ring holds QuickFIX/J's message
 * processor back, and the door's bound on each member's waiting messages the members: nothing is
 * lost.
 *
 * <p>Threading: QuickFIX/J's threads, one record at a time under the inbound lock (the scratch
 * buffer and encoders are shared); a reply the door sends itself goes out after the lock is let go
 * (see {@link #fromApp}). A logout never waits, for the lock or for room ({@link #onLogout}): it
 * comes on whichever thread ends the session, QuickFIX/J's timer or the door's sender among them,
 * which every member needs.
 */
final class FixDoorApplication implements Application
{
    private static final System.Logger LOG = System.getLogger(FixDoor.class.getName());
    /** Inbound records: a session logged on (its SBE Logon), a request (SBE), the session ended. */
    static final int LOGGED_ON = 1;
    static final int REQUEST = 2;
    static final int MASS_CANCEL = 3;
    static final int LOST = 4;
    /** The members' requests waiting for the gateway's thread: past it, the sessions' QuickFIX/J threads wait. */
    static final int INBOUND_RING_BYTES = 4 << 20;

    private final Map<String, FixDoor.Member> membersByCompId;
    private final FixOrders[] orders;
    private final FixExecIds execIds;
    private final AtomicIntegerArray logonsAndLogouts;
    private final Recorder clientToDoor;
    private final Recorder mapRequest;
    private final ConnectionGuard guard;
    private final Map<SessionID, Integer> heartbeatSeconds = new ConcurrentHashMap<>();
    private final ManyToOneRingBuffer inbound;
    private final ReentrantLock inboundLock = new ReentrantLock();
    /**
     * Per session index, the member's LOST records owed: its logout found the ring full or another
     * thread writing into it. Paid under the lock, after the record that thread was writing and
     * before any later record of the member ({@link #lockFor}); one for each logout, as each was
     * counted in {@code logonsAndLogouts}.
     */
    private final AtomicIntegerArray lostOwed;
    /** The sum of {@link #lostOwed}, or more while a logout is between its two increments. */
    private final AtomicInteger lostOwedCount = new AtomicInteger();
    private final AtomicLong logoutsDeferred = new AtomicLong();
    private final FixInbound mapper = new FixInbound();
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(256);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final LogonEncoder logon = new LogonEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
    private final AtomicLong logonsRefused = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong possResendsIgnored = new AtomicLong();
    /** False from the start of the door's close: a QuickFIX/J thread waiting for room in the inbound ring lets go. */
    private volatile boolean accepting = true;
    /**
     * Per session index, when ({@link System#nanoTime}) the door last told the gateway that a member
     * it answered itself is alive; 0 before the first time.
     */
    private final AtomicLongArray lifeSignedNs;
    /**
     * How often at most a member's messages the door answers itself (a refusal, an unsupported type,
     * the session layer's own) count as a sign of life for the gateway: well within the shortest
     * silence the gateway takes for a lost member (its missed heartbeats at a one-second interval).
     */
    static final long LIFE_SIGN_INTERVAL_NS = 500_000_000L;

    /**
     * @param membersByCompId  the door's members by SenderCompID (not changed after this).
     * @param orders           each session index's ClOrdIDs.
     * @param execIds          the ExecIDs of the door's own refusals.
     * @param logonsAndLogouts per session index, the member's logons and logouts, counted here
     *                         before each record ({@link FixDoor}'s field says why).
     * @param clientToDoor     the first of {@link FixDoor#STAGES}.
     * @param mapRequest       the second.
     * @param guard            closes a member's connection at once when QuickFIX/J cuts the member off.
     * @param inboundRingBytes the inbound ring's size, a power of two ({@link #INBOUND_RING_BYTES}).
     */
    FixDoorApplication(final Map<String, FixDoor.Member> membersByCompId, final FixOrders[] orders,
        final FixExecIds execIds, final AtomicIntegerArray logonsAndLogouts,
        final Recorder clientToDoor, final Recorder mapRequest, final ConnectionGuard guard, final int inboundRingBytes)
    {
        this.guard = guard;
        inbound = new ManyToOneRingBuffer(
            new UnsafeBuffer(ByteBuffer.allocateDirect(inboundRingBytes + RingBufferDescriptor.TRAILER_LENGTH)));
        this.membersByCompId = membersByCompId;
        this.orders = orders;
        this.execIds = execIds;
        this.logonsAndLogouts = logonsAndLogouts;
        lostOwed = new AtomicIntegerArray(logonsAndLogouts.length());
        lifeSignedNs = new AtomicLongArray(logonsAndLogouts.length());
        this.clientToDoor = clientToDoor;
        this.mapRequest = mapRequest;
    }

    /** @return the inbound ring, which the gateway's thread reads. */
    ManyToOneRingBuffer inbound()
    {
        return inbound;
    }

    /** From the start of the door's close: a QuickFIX/J thread waiting for room in the inbound ring lets go. */
    void stopAccepting()
    {
        accepting = false;
    }

    /** @return requests marked PossResend whose ClOrdID the session had used: taken as seen, and ignored. */
    long possResendsIgnored()
    {
        return possResendsIgnored.get();
    }

    /** @return Logons refused for an unknown SenderCompID or a wrong password. */
    long logonsRefused()
    {
        return logonsRefused.get();
    }

    /** @return requests the door refused itself, before the gateway. */
    long refusals()
    {
        return refusals.get();
    }

    /** @return requests the door handed to the gateway. */
    long requests()
    {
        return requests.get();
    }

    /** Writes a record into the inbound ring, waiting while it is full: the member is held back, nothing lost. */
    private void offer(final int type, final int sessionIndex, final DirectBuffer sbe, final int length)
    {
        while (accepting)
        {
            if (tryWrite(type, sessionIndex, sbe, length))
            {
                if (lostOwedCount.get() > 0)
                {
                    payOwed(); // after this record, which may be of a member whose logout is owed
                }
                return;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    /**
     * Writes one record into the inbound ring if it has room. Under the inbound lock.
     *
     * @param sbe the record's SBE message, or null when {@code length} is 0.
     * @return whether the record was written.
     */
    private boolean tryWrite(final int type, final int sessionIndex, final DirectBuffer sbe, final int length)
    {
        final int claimed = inbound.tryClaim(type, RECORD_HEADER + length);
        if (claimed < 0)
        {
            return false;
        }
        final var ring = inbound.buffer();
        ring.putInt(claimed, sessionIndex);
        ring.putLong(claimed + BitUtil.SIZE_OF_INT, System.nanoTime());
        if (length > 0)
        {
            ring.putBytes(claimed + RECORD_HEADER, sbe, 0, length);
        }
        inbound.commit(claimed);
        return true;
    }

    /**
     * Takes the inbound lock for a record of the member at {@code sessionIndex}, once the member's
     * owed LOST, if any, is written: a later record of a member comes after its logout.
     */
    private void lockFor(final int sessionIndex)
    {
        inboundLock.lock();
        if (lostOwedCount.get() > 0)
        {
            payOwed();
            while (accepting && lostOwed.get(sessionIndex) != 0)
            {
                LockSupport.parkNanos(50_000);
                payOwed();
            }
        }
    }

    /**
     * Writes the owed LOST records the ring has room for. Under the inbound lock.
     *
     * @return records written.
     */
    private int payOwed()
    {
        int paid = 0;
        for (int i = 0, n = lostOwed.length(); i < n && lostOwedCount.get() > 0; i++)
        {
            while (lostOwed.get(i) > 0)
            {
                if (!tryWrite(LOST, i, null, 0))
                {
                    return paid;
                }
                lostOwed.decrementAndGet(i);
                lostOwedCount.decrementAndGet();
                paid++;
            }
        }
        return paid;
    }

    /**
     * Writes the owed LOST records where the ring has room and no QuickFIX/J thread holds the lock:
     * the gateway's thread, after it read the ring. Never waits; allocation-free.
     *
     * @return records written.
     */
    int payOwedLogouts()
    {
        if (lostOwedCount.get() == 0 || !inboundLock.tryLock())
        {
            return 0;
        }
        try
        {
            return payOwed();
        }
        finally
        {
            inboundLock.unlock();
        }
    }

    /** @return logouts whose LOST record waited for room, or for another thread's record. */
    long logoutsDeferred()
    {
        return logoutsDeferred.get();
    }

    private FixDoor.Member member(final SessionID sessionId)
    {
        return membersByCompId.get(sessionId.getTargetCompID());
    }

    /** @return the member's password (its session's token) by SenderCompID, or null. QuickFIX/J's threads. */
    String passwordOf(final String senderCompId)
    {
        final FixDoor.Member member = membersByCompId.get(senderCompId);
        return null == member ? null : member.session().token();
    }

    /** A Logon the gate refused before QuickFIX/J's session saw it. QuickFIX/J's threads. */
    void onLogonRefused(final String senderCompId, final String why)
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
        final FixDoor.Member member = member(sessionId);
        if (null == member)
        {
            return;
        }
        final Integer seconds = heartbeatSeconds.get(sessionId);
        // HeartBtInt 0 (no heartbeats) keeps the gateway's longest interval.
        final int heartbeatMs = null == seconds || seconds <= 0 ? Gateway.MAX_HEARTBEAT_INTERVAL_MS :
            Math.clamp(seconds * 1000L, 1000, Gateway.MAX_HEARTBEAT_INTERVAL_MS);
        lockFor(member.sessionIndex());
        try
        {
            logonsAndLogouts.incrementAndGet(member.sessionIndex()); // before the record: the gateway never reads ahead of it
            logon.wrapAndApplyHeader(scratch, 0, headerEncoder)
                .sessionId(member.session().sessionId())
                .heartbeatIntervalMs(heartbeatMs)
                .sendingTime(ExchangeClock.nowNs())
                .nextReplySequence(0) // the door keeps its members' replies and resends by FIX's own sequence
                .replyLife(0)
                .credentials(member.session().token());
            offer(LOGGED_ON, member.sessionIndex(), scratch, MessageHeaderEncoder.ENCODED_LENGTH + logon.encodedLength());
        }
        finally
        {
            inboundLock.unlock();
        }
    }

    @Override
    public void onLogout(final SessionID sessionId)
    {
        // Before the record: a member cut off as a slow consumer loses its connection now, not once
        // the writes it will never read are flushed.
        guard.closeCut(sessionId);
        final FixDoor.Member member = member(sessionId);
        if (null == member)
        {
            return;
        }
        final int index = member.sessionIndex();
        // Counted at once, as the record were written now: a disconnect the gateway asked about the
        // gone connection is stale from here on, and cannot cut the member's next one.
        logonsAndLogouts.incrementAndGet(index);
        // Owed, then paid where it can be without waiting: by this thread when the lock is free and
        // the ring has room, else by the thread that holds the lock once its own record is written,
        // by the member's next record, or by the gateway's thread once it has read the ring.
        lostOwedCount.incrementAndGet();
        lostOwed.incrementAndGet(index);
        if (inboundLock.tryLock())
        {
            try
            {
                payOwed();
            }
            finally
            {
                inboundLock.unlock();
            }
        }
        if (lostOwed.get(index) != 0)
        {
            logoutsDeferred.incrementAndGet();
        }
    }

    @Override
    public void toAdmin(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void fromAdmin(final Message message, final SessionID sessionId) throws FieldNotFound, RejectLogon
    {
        guard.wakeIfResumed(sessionId);
        final String type = message.getHeader().getString(MsgType.FIELD);
        final FixDoor.Member member = member(sessionId);
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
            forwardHeartbeat(member);
        }
        else if (null != member && !MsgType.LOGOUT.equals(type))
        {
            // A ResendRequest, SequenceReset or Reject: QuickFIX/J answers it, the gateway sees nothing.
            signLife(member);
        }
    }

    /**
     * Tells the gateway the member is alive, at most every {@link #LIFE_SIGN_INTERVAL_NS}: for a
     * message the door answers itself, which the gateway never sees. A member that sends such
     * messages more often than its heartbeat interval sends no Heartbeat (FIX asks for one only
     * after a silent interval), and the gateway, hearing nothing, would take it for lost.
     */
    private void signLife(final FixDoor.Member member)
    {
        final long nowNs = System.nanoTime();
        final long lastNs = lifeSignedNs.get(member.sessionIndex());
        if (lastNs == 0 || nowNs - lastNs >= LIFE_SIGN_INTERVAL_NS)
        {
            lifeSignedNs.set(member.sessionIndex(), nowNs);
            forwardHeartbeat(member);
        }
    }

    /** Hands the gateway a Heartbeat of the member's session: a sign of life, which it does not answer. */
    private void forwardHeartbeat(final FixDoor.Member member)
    {
        lockFor(member.sessionIndex());
        try
        {
            heartbeat.wrapAndApplyHeader(scratch, 0, headerEncoder).sessionId(member.session().sessionId())
                .sendingTime(ExchangeClock.nowNs());
            offer(REQUEST, member.sessionIndex(), scratch,
                MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength());
        }
        finally
        {
            inboundLock.unlock();
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
        guard.wakeIfResumed(sessionId);
        if (message.isSetField(FixDoor.CLIENT_SEND_NS_TAG))
        {
            final long sentNs = FixInbound.parseWhole(message.getString(FixDoor.CLIENT_SEND_NS_TAG));
            if (sentNs != Long.MIN_VALUE)
            {
                FixDoor.record(clientToDoor, arrivedNs - sentNs);
            }
        }
        final String type = message.getHeader().getString(MsgType.FIELD);
        final FixDoor.Member member = member(sessionId);
        if (null == member)
        {
            return;
        }
        final boolean supported = MsgType.ORDER_SINGLE.equals(type) || MsgType.ORDER_CANCEL_REQUEST.equals(type) ||
            MsgType.ORDER_CANCEL_REPLACE_REQUEST.equals(type) || MsgType.ORDER_MASS_CANCEL_REQUEST.equals(type);
        if (!supported)
        {
            refusals.incrementAndGet(); // refused by the door as any other it cannot take
            signLife(member);
            throw new UnsupportedMessageType(); // QuickFIX/J answers a BusinessMessageReject (j)
        }
        final FixOrders sessionOrders = orders[member.sessionIndex()];
        if (message.getHeader().isSetField(PossResend.FIELD) && message.getHeader().getBoolean(PossResend.FIELD) &&
            message.isSetField(ClOrdID.FIELD) && sessionOrders.existingId(message.getString(ClOrdID.FIELD)) != 0)
        {
            // A request the member sent again in case it was lost (FIX's PossResend), under a ClOrdID
            // this session used: it was taken the first time. Answered as a duplicate, its reject would
            // carry the live order's ClOrdID, which the member's system could apply to that order.
            possResendsIgnored.incrementAndGet();
            signLife(member);
            return;
        }
        final long account = member.session().account();
        Message refusal;
        lockFor(member.sessionIndex());
        try
        {
            final long sendingNs = message.getHeader().isSetField(SendingTime.FIELD) ?
                epochNs(message.getHeader().getUtcTimeStamp(SendingTime.FIELD)) : ExchangeClock.nowNs();
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
                    FixDoor.record(mapRequest, System.nanoTime() - arrivedNs);
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
        finally
        {
            inboundLock.unlock();
        }
        // Sent outside the lock: QuickFIX/J's send takes the session's own lock, which a thread
        // ending the session holds while it logs the member out.
        refusals.incrementAndGet();
        Session.lookupSession(sessionId).send(refusal);
        signLife(member);
    }

    private Message refusal(final String type, final Message message, final FixOrders sessionOrders)
        throws FieldNotFound
    {
        return switch (type)
        {
            case MsgType.ORDER_SINGLE -> FixOutbound.orderRefused(message, execIds.next(), mapper.rejectCode(),
                mapper.rejectText());
            case MsgType.ORDER_MASS_CANCEL_REQUEST -> FixOutbound.massCancelReport(message.getString(11),
                message.getChar(530), message.isSetField(55) ? message.getString(55) : null, mapper.rejectCode(),
                mapper.rejectText());
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

    private static long epochNs(final LocalDateTime time)
    {
        return time.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L + time.getNano();
    }
}
