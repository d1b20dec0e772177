package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.SessionConfig;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
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
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's FIX 4.4 door: a QuickFIX/J acceptor whose sessions are gateway sessions. QuickFIX/J
 * keeps the FIX session layer (logon, heartbeats, TestRequest, sequence numbers in a file store
 * across restarts, ResendRequest and gap fill, SequenceReset, session-level Reject of what does not
 * parse or misses a required tag); the door authenticates each Logon (SenderCompID and Password, the
 * password being the session's token), maps the four requests it supports to the SBE requests the
 * SBE door's clients send ({@link FixInbound}) and hands them to the same {@link Gateway}, which
 * applies the same checks (logon, rate, account, duplicate id, pre-trade risk) and
 * cancel-on-disconnect; the gateway's replies come back as FIX ({@link FixOutbound}). A FIX session
 * is a gateway transport of its own: its logon is the gateway's logon of the configured session,
 * with the member's identity, and its end (logout, a dropped connection, a heartbeat timeout) is the
 * transport's loss, on which the gateway cancels the session's orders.
 *
 * <p>Threading: QuickFIX/J's threads call the {@link Application} methods, which only queue; the
 * gateway's thread calls {@link #poll} (which drives the gateway) and {@link #toSession} (the
 * gateway's replies), so the gateway stays single-threaded and every FIX mapping runs on its thread.
 * The door allocates (QuickFIX/J's messages are objects); the gateway and engine behind it do not.
 */
public final class FixDoor implements Application, AutoCloseable
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

    private enum Kind
    {
        LOGGED_ON, MESSAGE, ALIVE, LOGGED_OUT
    }

    private record Event(Kind kind, SessionID sessionId, Message message)
    {
    }

    private final Map<String, Member> membersByCompId = new HashMap<>();
    private final Map<Integer, Member> membersByIndex = new HashMap<>();
    private final Map<Integer, SessionID> sessionIds = new HashMap<>();
    private final Map<Integer, FixOrders> orders = new HashMap<>();
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    private final Map<SessionID, Integer> heartbeatSeconds = new ConcurrentHashMap<>();
    private final FixInbound inbound = new FixInbound();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final LogonEncoder logon = new LogonEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final LogonResponseDecoder logonResponse = new LogonResponseDecoder();
    private final LogoutDecoder logout = new LogoutDecoder();
    private final AtomicLong logonsRefused = new AtomicLong();
    private final SocketAcceptor acceptor;
    private final String compId;
    private final long clockToEpochNs;
    private Event pending;
    private long refusals;
    private long requests;

    /**
     * Binds the acceptor (it accepts once {@link #start} is called).
     *
     * @param address  where members connect.
     * @param compId   the door's own CompID (the members' TargetCompID).
     * @param store    where sequence numbers and sent messages are kept across restarts, or null to
     *                 keep them in memory only.
     * @param members  the FIX sessions.
     * @param clockToEpochNs what to add to the exchange's clock (the gateway's {@code nowNs}, the
     *                 engine's transact times) to get epoch nanoseconds: FIX times are UTC.
     */
    public FixDoor(final InetSocketAddress address, final String compId, final Path store, final List<Member> members,
        final long clockToEpochNs)
    {
        this.clockToEpochNs = clockToEpochNs;
        if (members.size() > MAX_SESSIONS)
        {
            throw new IllegalArgumentException("a FIX door serves at most " + MAX_SESSIONS + " sessions");
        }
        this.compId = compId;
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
        settings.setString("AllowUnknownMsgFields", "N");
        settings.setString("ResetOnLogon", "N");
        settings.setString("PersistMessages", "Y");
        settings.setString("SocketTcpNoDelay", "Y");
        if (null != store)
        {
            settings.setString("FileStorePath", store.toString());
        }
        for (final Member member : members)
        {
            if (null != membersByCompId.put(member.senderCompId(), member))
            {
                throw new IllegalArgumentException("two FIX sessions have SenderCompID " + member.senderCompId());
            }
            membersByIndex.put(member.sessionIndex(), member);
            final SessionID sessionId = new SessionID("FIX.4.4", compId, member.senderCompId());
            settings.setString(sessionId, "TargetCompID", member.senderCompId());
            sessionIds.put(member.sessionIndex(), sessionId);
            orders.put(member.sessionIndex(), new FixOrders());
        }
        final MessageStoreFactory stores = null == store ? new MemoryStoreFactory() : new FileStoreFactory(settings);
        try
        {
            acceptor = new SocketAcceptor(this, stores, settings, null, new DefaultMessageFactory());
        }
        catch (final ConfigError ex)
        {
            throw new IllegalArgumentException("the FIX door's settings: " + ex.getMessage(), ex);
        }
    }

    /** Starts accepting members. */
    public void start()
    {
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
        return membersByIndex.containsKey(sessionIndex);
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
        return refusals;
    }

    /** @return requests the door handed to the gateway. */
    public long requests()
    {
        return requests;
    }

    // ---------------------------------------------------------------- the gateway's thread

    /**
     * Hands the gateway what the members sent since the last call: logons, requests, signs of
     * life, and losses. A request the gateway cannot take yet (the engine's stream is behind) waits
     * for the next call, and so does everything after it.
     *
     * @return events handled.
     */
    public int poll(final Gateway gateway, final long nowNs)
    {
        int handled = 0;
        Event event;
        while (null != (event = null != pending ? pending : events.poll()))
        {
            pending = null;
            if (!handle(gateway, event, nowNs))
            {
                pending = event;
                break;
            }
            handled++;
        }
        return handled;
    }

    private boolean handle(final Gateway gateway, final Event event, final long nowNs)
    {
        final Member member = membersByCompId.get(event.sessionId().getTargetCompID());
        if (null == member)
        {
            return true;
        }
        final int transport = FIRST_TRANSPORT + member.sessionIndex();
        switch (event.kind())
        {
            case LOGGED_ON ->
            {
                gateway.onTransportAvailable(transport, member.session().identity(), nowNs);
                final Integer seconds = heartbeatSeconds.get(event.sessionId());
                // HeartBtInt 0 (no heartbeats) keeps the gateway's longest interval.
                final int heartbeatMs = null == seconds || seconds <= 0 ? Gateway.MAX_HEARTBEAT_INTERVAL_MS :
                    Math.clamp(seconds * 1000L, 1000, Gateway.MAX_HEARTBEAT_INTERVAL_MS);
                logon.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .sessionId(member.session().sessionId())
                    .heartbeatIntervalMs(heartbeatMs)
                    .sendingTime(nowNs)
                    .credentials(member.session().token());
                gateway.onClientMessage(transport, buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + logon.encodedLength(),
                    nowNs);
                return true;
            }
            case ALIVE ->
            {
                heartbeat.wrapAndApplyHeader(buffer, 0, headerEncoder).sessionId(member.session().sessionId())
                    .sendingTime(nowNs);
                gateway.onClientMessage(transport, buffer, 0,
                    MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength(), nowNs);
                return true;
            }
            case LOGGED_OUT ->
            {
                gateway.onTransportLost(transport, nowNs);
                return true;
            }
            case MESSAGE ->
            {
                return request(gateway, member, transport, event, nowNs);
            }
            default -> throw new IllegalStateException(event.kind().name());
        }
    }

    private boolean request(final Gateway gateway, final Member member, final int transport, final Event event,
        final long nowNs)
    {
        final Message message = event.message();
        final FixOrders sessionOrders = orders.get(member.sessionIndex());
        final long account = member.session().account();
        try
        {
            final String type = message.getHeader().getString(MsgType.FIELD);
            final long sendingNs = message.getHeader().isSetField(SendingTime.FIELD) ?
                epochNs(message.getHeader().getUtcTimeStamp(SendingTime.FIELD)) - clockToEpochNs : nowNs;
            final int length = switch (type)
            {
                case MsgType.ORDER_SINGLE -> inbound.newOrder(message, sessionOrders, account, sendingNs, buffer);
                case MsgType.ORDER_CANCEL_REQUEST -> inbound.cancel(message, sessionOrders, account, sendingNs, buffer);
                case MsgType.ORDER_CANCEL_REPLACE_REQUEST ->
                    inbound.replace(message, sessionOrders, account, sendingNs, buffer);
                case MsgType.ORDER_MASS_CANCEL_REQUEST ->
                    inbound.massCancel(message, sessionOrders, account, sendingNs, buffer);
                default -> throw new IllegalStateException("fromApp let through MsgType " + type);
            };
            if (length == FixInbound.REFUSED)
            {
                refusals++;
                send(event.sessionId(), refusal(type, message));
                return true;
            }
            final int result = gateway.onClientMessage(transport, buffer, 0, length, nowNs);
            if (result == Gateway.BACK_PRESSURED)
            {
                return false;
            }
            requests++;
            if (result == Gateway.FORWARDED && MsgType.ORDER_MASS_CANCEL_REQUEST.equals(type))
            {
                send(event.sessionId(), FixOutbound.massCancelReport(message.getString(11),
                    massCancelInstrument(message), -1, null));
            }
            return true;
        }
        catch (final FieldNotFound ex)
        {
            // The data dictionary lets no request without its required tags through: a conditional one.
            refusals++;
            send(event.sessionId(), FixOutbound.businessReject(message, "required tag " + ex.field + " missing"));
            return true;
        }
    }

    private Message refusal(final String type, final Message message) throws FieldNotFound
    {
        return switch (type)
        {
            case MsgType.ORDER_SINGLE -> FixOutbound.orderRefused(message, "D" + refusals, inbound.rejectCode(),
                inbound.rejectText());
            case MsgType.ORDER_MASS_CANCEL_REQUEST -> FixOutbound.massCancelReport(message.getString(11),
                massCancelInstrument(message), inbound.rejectCode(), inbound.rejectText());
            default -> FixOutbound.cancelReject(message.getString(11), message.getString(41),
                MsgType.ORDER_CANCEL_REPLACE_REQUEST.equals(type), inbound.rejectCode(), inbound.rejectText(),
                FixOutbound.OrdStatusCodes.REJECTED);
        };
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

    /**
     * The gateway's reply to one of the door's sessions, as FIX. Called by the gateway's output on
     * the gateway's thread.
     *
     * @return false when the door has no such session; a reply to a session that is not logged on is
     *         kept for its ResendRequest.
     */
    public boolean toSession(final int sessionIndex, final DirectBuffer message, final int offset, final int length)
    {
        final SessionID sessionId = sessionIds.get(sessionIndex);
        if (null == sessionId)
        {
            return false;
        }
        headerDecoder.wrap(message, offset);
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int templateId = headerDecoder.templateId();
        if (templateId == ExecutionReportDecoder.TEMPLATE_ID)
        {
            report.wrap(message, body, headerDecoder.blockLength(), headerDecoder.version());
            return send(sessionId, FixOutbound.report(report, orders.get(sessionIndex), clockToEpochNs));
        }
        final Session session = Session.lookupSession(sessionId);
        if (templateId == LogonResponseDecoder.TEMPLATE_ID)
        {
            logonResponse.wrap(message, body, headerDecoder.blockLength(), headerDecoder.version());
            if (logonResponse.status() != LogonStatus.ACCEPTED && null != session)
            {
                session.logout("the gateway refused the logon: " + logonResponse.rejectReason());
            }
            return true;
        }
        if (templateId == LogoutDecoder.TEMPLATE_ID && null != session)
        {
            session.logout("the gateway ended the session");
        }
        return true; // heartbeats: QuickFIX/J keeps the FIX session's own
    }

    /**
     * Closes a member's FIX connection: the gateway asked for it (it keeps sending what it must not).
     */
    public void disconnect(final int transportSession)
    {
        final SessionID sessionId = sessionIds.get(transportSession - FIRST_TRANSPORT);
        final Session session = null == sessionId ? null : Session.lookupSession(sessionId);
        if (null != session)
        {
            try
            {
                session.disconnect("the gateway disconnected the session", false);
            }
            catch (final IOException ex)
            {
                // The connection is gone either way; its loss reaches the gateway through onLogout.
            }
        }
    }

    /**
     * Sends on the FIX session, or, while it is not logged on, stores the message under its sequence
     * number, so a member that logs on again asks for it with a ResendRequest and gets it once.
     *
     * @return false only when there is no such session.
     */
    private static boolean send(final SessionID sessionId, final Message message)
    {
        final Session session = Session.lookupSession(sessionId);
        if (null == session)
        {
            return false;
        }
        session.send(message);
        return true;
    }

    private static long epochNs(final java.time.LocalDateTime time)
    {
        return time.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L + time.getNano();
    }

    @Override
    public void close()
    {
        acceptor.stop(true);
    }

    // ---------------------------------------------------------------- QuickFIX/J's threads

    @Override
    public void onCreate(final SessionID sessionId)
    {
    }

    @Override
    public void onLogon(final SessionID sessionId)
    {
        events.add(new Event(Kind.LOGGED_ON, sessionId, null));
    }

    @Override
    public void onLogout(final SessionID sessionId)
    {
        events.add(new Event(Kind.LOGGED_OUT, sessionId, null));
    }

    @Override
    public void toAdmin(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void fromAdmin(final Message message, final SessionID sessionId) throws FieldNotFound, RejectLogon
    {
        final String type = message.getHeader().getString(MsgType.FIELD);
        if (MsgType.LOGON.equals(type))
        {
            final Member member = membersByCompId.get(sessionId.getTargetCompID());
            if (null == member || !message.isSetField(Password.FIELD) ||
                !member.session().token().equals(message.getString(Password.FIELD)))
            {
                logonsRefused.incrementAndGet();
                throw new RejectLogon("bad SenderCompID or password");
            }
            heartbeatSeconds.put(sessionId, message.isSetField(HeartBtInt.FIELD) ? message.getInt(HeartBtInt.FIELD) : 0);
        }
        else if (MsgType.HEARTBEAT.equals(type) || MsgType.TEST_REQUEST.equals(type))
        {
            events.add(new Event(Kind.ALIVE, sessionId, null));
        }
    }

    @Override
    public void toApp(final Message message, final SessionID sessionId)
    {
    }

    @Override
    public void fromApp(final Message message, final SessionID sessionId) throws FieldNotFound, UnsupportedMessageType
    {
        final String type = message.getHeader().getString(MsgType.FIELD);
        switch (type)
        {
            case MsgType.ORDER_SINGLE, MsgType.ORDER_CANCEL_REQUEST, MsgType.ORDER_CANCEL_REPLACE_REQUEST,
                MsgType.ORDER_MASS_CANCEL_REQUEST -> events.add(new Event(Kind.MESSAGE, sessionId, message));
            default -> throw new UnsupportedMessageType(); // QuickFIX/J answers a BusinessMessageReject (j)
        }
    }

    /** @return the door's CompID. */
    public String compId()
    {
        return compId;
    }
}
