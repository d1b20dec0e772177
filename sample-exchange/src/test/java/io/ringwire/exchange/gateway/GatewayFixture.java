package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogoutEncoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.node.JournalRefusals;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway with two sessions and two instruments, a recording output, and encoders for what
 * clients and the engine send. Session 0 is id 7 (account 700), session 1 is id 8 (account 800).
 * Instrument 1 trades around 1000 with tick 1, instrument 2 around 500 with tick 5.
 */
final class GatewayFixture
{
    static final int SESSION_A = 0;
    static final int SESSION_B = 1;
    static final int ID_A = 7;
    static final int ID_B = 8;
    static final long ACCOUNT_A = 700;
    static final long ACCOUNT_B = 800;
    static final String TOKEN_A = "token-a";
    static final String TOKEN_B = "token-b";
    static final int TRANSPORT_A = 1001;
    static final int TRANSPORT_B = 1002;
    static final int HEARTBEAT_MS = 1000;
    static final long HEARTBEAT_NS = HEARTBEAT_MS * 1_000_000L;
    static final long START_NS = 1_700_000_000_000_000_000L;
    /** The life every report of the fixture's engine names. */
    static final long ENGINE_LIFE = 0x11FE_0000_0000_0001L;

    static final long MAX_QUANTITY = 1_000;
    static final long MAX_NOTIONAL = 500_000;
    static final long BAND_TICKS = 50;
    static final int MAX_OPEN = 3;

    final RecordingGatewayOutput output = new RecordingGatewayOutput();
    final Gateway gateway;
    final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    final MessageHeaderEncoder header = new MessageHeaderEncoder();
    final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private long engineSequence;

    GatewayFixture()
    {
        this(100, 10, 1_000);
    }

    GatewayFixture(final int maxMessagesPerSecond, final int burst, final int maxClientOrderIds)
    {
        this(maxMessagesPerSecond, burst, maxClientOrderIds, true);
    }

    /**
     * @param engineTookStartCancels false: the engine's stream refuses until a test lets it take
     *                               messages, and the start cancels are still owed.
     */
    GatewayFixture(final int maxMessagesPerSecond, final int burst, final int maxClientOrderIds,
        final boolean engineTookStartCancels)
    {
        gateway = new Gateway(config(maxMessagesPerSecond, burst, maxClientOrderIds), output);
        if (engineTookStartCancels)
        {
            sendStartCancels(gateway, output);
        }
        else
        {
            output.engineRefuses = true;
        }
        connect(TRANSPORT_A, ID_A);
        connect(TRANSPORT_B, ID_B);
    }

    /**
     * Runs a new gateway's first duty cycle, which owes the engine one mass cancel per configured
     * session (the orders a session left when the last gateway process went), and forgets them, so a
     * test sees only what it causes.
     */
    static void sendStartCancels(final Gateway gateway, final RecordingGatewayOutput output)
    {
        gateway.doWork(START_NS);
        assertEquals(2, gateway.counters().startCancels(), "a start cancel for each configured session");
        assertEquals(2, output.toEngine.size());
        output.clear();
    }

    /**
     * A connection comes up whose key proved the member identity of the session {@code sessionId},
     * as the transport tells the gateway.
     */
    void connect(final int transport, final long sessionId)
    {
        gateway.onTransportAvailable(transport, SessionConfig.memberIdentity((int)sessionId), START_NS);
    }

    static GatewayConfig config(final int maxMessagesPerSecond, final int burst, final int maxClientOrderIds)
    {
        final long[] references = new long[3];
        references[1] = 1_000;
        references[2] = 500;
        return new GatewayConfig(
            List.of(new SessionConfig(ID_A, TOKEN_A, ACCOUNT_A), new SessionConfig(ID_B, TOKEN_B, ACCOUNT_B)),
            List.of(new InstrumentSpec(1, 1, 1, 1, 100_000), new InstrumentSpec(2, 5, 1, 5, 100_000)),
            references, new RiskLimits(MAX_QUANTITY, MAX_NOTIONAL, BAND_TICKS, MAX_OPEN), maxMessagesPerSecond, burst,
            maxClientOrderIds);
    }

    // ---------------------------------------------------------------- client messages

    int logon(final int transport, final long sessionId, final String token, final long nowNs)
    {
        return logon(transport, sessionId, token, nowNs, 0);
    }

    /**
     * A Logon asking for the session's replies from {@code nextReplySequence} (0: none resent),
     * naming no reply life.
     */
    int logon(final int transport, final long sessionId, final String token, final long nowNs,
        final long nextReplySequence)
    {
        return logon(transport, sessionId, token, nowNs, nextReplySequence, 0);
    }

    /** A Logon asking for the session's replies from {@code nextReplySequence}, counted in {@code replyLife}. */
    int logon(final int transport, final long sessionId, final String token, final long nowNs,
        final long nextReplySequence, final long replyLife)
    {
        final LogonEncoder logon = new LogonEncoder().wrapAndApplyHeader(buffer, 0, header)
            .sessionId(sessionId).heartbeatIntervalMs(HEARTBEAT_MS).sendingTime(nowNs)
            .nextReplySequence(nextReplySequence).replyLife(replyLife).credentials(token);
        return gateway.onClientMessage(transport, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + logon.encodedLength(), nowNs);
    }

    void logOnBoth()
    {
        assertEquals(Gateway.LOGGED_ON, logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS));
        assertEquals(Gateway.LOGGED_ON, logon(TRANSPORT_B, ID_B, TOKEN_B, START_NS));
        output.clear();
    }

    int logout(final int transport, final long sessionId, final long nowNs)
    {
        final LogoutEncoder logout = new LogoutEncoder().wrapAndApplyHeader(buffer, 0, header)
            .sessionId(sessionId).sendingTime(nowNs);
        return gateway.onClientMessage(transport, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + logout.encodedLength(), nowNs);
    }

    int heartbeat(final int transport, final long sessionId, final long nowNs)
    {
        final HeartbeatEncoder heartbeat = new HeartbeatEncoder().wrapAndApplyHeader(buffer, 0, header)
            .sessionId(sessionId).sendingTime(nowNs);
        return gateway.onClientMessage(transport, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength(), nowNs);
    }

    static int encodeNewOrder(final UnsafeBuffer buffer, final MessageHeaderEncoder header, final long clientOrderId,
        final long account, final int instrumentId, final OrdType ordType, final long price, final long quantity,
        final long sendingTime)
    {
        return encodeNewOrder(new NewOrderEncoder(), buffer, header, clientOrderId, account, instrumentId, ordType,
            price, quantity, sendingTime);
    }

    /** Encodes a buy with the caller's encoder: allocates nothing. */
    static int encodeNewOrder(final NewOrderEncoder encoder, final UnsafeBuffer buffer,
        final MessageHeaderEncoder header, final long clientOrderId, final long account, final int instrumentId,
        final OrdType ordType, final long price, final long quantity, final long sendingTime)
    {
        return encodeNewOrder(encoder, buffer, header, clientOrderId, account, instrumentId, Side.BUY, ordType, price,
            quantity, sendingTime);
    }

    /** Encodes with the caller's encoder: allocates nothing. */
    static int encodeNewOrder(final NewOrderEncoder encoder, final UnsafeBuffer buffer,
        final MessageHeaderEncoder header, final long clientOrderId, final long account, final int instrumentId,
        final Side side, final OrdType ordType, final long price, final long quantity, final long sendingTime)
    {
        final NewOrderEncoder order = encoder.wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId).account(account).instrumentId(instrumentId).side(side).ordType(ordType)
            .timeInForce(TimeInForce.DAY).price(price).quantity(quantity).sendingTime(sendingTime);
        return MessageHeaderEncoder.ENCODED_LENGTH + order.encodedLength();
    }

    int newOrder(final int transport, final long clientOrderId, final long account, final int instrumentId,
        final OrdType ordType, final long price, final long quantity, final long nowNs)
    {
        final int length = encodeNewOrder(buffer, header, clientOrderId, account, instrumentId, ordType, price,
            quantity, nowNs - 100);
        return gateway.onClientMessage(transport, buffer, 0, length, nowNs);
    }

    int sell(final int transport, final long clientOrderId, final long account, final int instrumentId,
        final long price, final long quantity, final long nowNs)
    {
        final int length = encodeNewOrder(new NewOrderEncoder(), buffer, header, clientOrderId, account, instrumentId,
            Side.SELL, OrdType.LIMIT, price, quantity, nowNs - 100);
        return gateway.onClientMessage(transport, buffer, 0, length, nowNs);
    }

    int limitA(final long clientOrderId, final long price, final long quantity, final long nowNs)
    {
        return newOrder(TRANSPORT_A, clientOrderId, ACCOUNT_A, 1, OrdType.LIMIT, price, quantity, nowNs);
    }

    int cancel(final int transport, final long clientOrderId, final long origClientOrderId, final long account,
        final long nowNs)
    {
        final CancelOrderEncoder cancel = new CancelOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId).origClientOrderId(origClientOrderId).account(account).instrumentId(1)
            .side(Side.BUY).sendingTime(nowNs - 100);
        return gateway.onClientMessage(transport, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + cancel.encodedLength(), nowNs);
    }

    int replace(final int transport, final long clientOrderId, final long origClientOrderId, final long account,
        final long price, final long quantity, final long nowNs)
    {
        final ReplaceOrderEncoder replace = new ReplaceOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(clientOrderId).origClientOrderId(origClientOrderId).account(account).instrumentId(1)
            .side(Side.BUY).price(price).quantity(quantity).sendingTime(nowNs - 100);
        return gateway.onClientMessage(transport, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + replace.encodedLength(), nowNs);
    }

    // ---------------------------------------------------------------- engine messages

    static int encodeReport(final UnsafeBuffer buffer, final MessageHeaderEncoder header, final long engineSequence,
        final long account, final long clientOrderId, final long exchangeOrderId, final ExecType execType,
        final OrdStatus ordStatus, final int instrumentId, final long lastPrice, final long lastQuantity)
    {
        return encodeReport(new ExecutionReportEncoder(), buffer, header, engineSequence, account, clientOrderId,
            exchangeOrderId, execType, ordStatus, instrumentId, lastPrice, lastQuantity);
    }

    /** Encodes with the caller's encoder: allocates nothing. */
    static int encodeReport(final ExecutionReportEncoder encoder, final UnsafeBuffer buffer,
        final MessageHeaderEncoder header, final long engineSequence, final long account, final long clientOrderId,
        final long exchangeOrderId, final ExecType execType, final OrdStatus ordStatus, final int instrumentId,
        final long lastPrice, final long lastQuantity)
    {
        final ExecutionReportEncoder report = encoder.wrapAndApplyHeader(buffer, 0, header);
        report.exchangeOrderId(exchangeOrderId).clientOrderId(clientOrderId).execId(engineSequence).account(account)
            .instrumentId(instrumentId).execType(execType).ordStatus(ordStatus).side(Side.BUY)
            .rejectReason(RejectReason.NONE).lastPrice(lastPrice).lastQuantity(lastQuantity).leavesQuantity(0)
            .cumulativeQuantity(lastQuantity).transactTime(1).price(lastPrice).orderQuantity(lastQuantity)
            .ordType(OrdType.LIMIT).timeInForce(TimeInForce.DAY).engineSequence(engineSequence).clientSendTime(2)
            .gatewayInTime(3).gatewayOutTime(4).engineInTime(5).engineOutTime(6)
            .gatewayReplyTime(ExecutionReportEncoder.gatewayReplyTimeNullValue()).replySequence(0)
            .engineLife(ENGINE_LIFE);
        return MessageHeaderEncoder.ENCODED_LENGTH + report.encodedLength();
    }

    /** Sends an execution report with the next engine sequence. */
    void engineReport(final long account, final long clientOrderId, final long exchangeOrderId, final ExecType execType,
        final OrdStatus ordStatus, final int instrumentId, final long lastPrice, final long lastQuantity,
        final long nowNs)
    {
        engineReportWithSequence(++engineSequence, account, clientOrderId, exchangeOrderId, execType, ordStatus,
            instrumentId, lastPrice, lastQuantity, nowNs);
    }

    void engineReportWithSequence(final long sequence, final long account, final long clientOrderId,
        final long exchangeOrderId, final ExecType execType, final OrdStatus ordStatus, final int instrumentId,
        final long lastPrice, final long lastQuantity, final long nowNs)
    {
        engineSequence = Math.max(engineSequence, sequence);
        final int length = encodeReport(buffer, header, sequence, account, clientOrderId, exchangeOrderId, execType,
            ordStatus, instrumentId, lastPrice, lastQuantity);
        gateway.onEngineMessage(buffer, 0, length, nowNs);
    }

    /**
     * Sends a report, with the next engine sequence, caused by a request that carried these times
     * (a report echoes its request's client sending and gateway receive times).
     */
    void engineReportCausedBy(final long clientSendNs, final long gatewayInNs, final long account,
        final long clientOrderId, final long exchangeOrderId, final ExecType execType, final OrdStatus ordStatus,
        final long nowNs)
    {
        final int length = encodeReport(buffer, header, ++engineSequence, account, clientOrderId, exchangeOrderId,
            execType, ordStatus, 1, 0, 0);
        new ExecutionReportEncoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH).clientSendTime(clientSendNs)
            .gatewayInTime(gatewayInNs);
        gateway.onEngineMessage(buffer, 0, length, nowNs);
    }

    /**
     * Sends the reject the engine makes for a request its journal refused, made by the engine's own
     * {@link JournalRefusals}: it has no engine sequence, and echoes the request's ids, terms and
     * its sending and receive times.
     *
     * @param request a request the gateway sent to the engine.
     */
    void journalRefusal(final DirectBuffer request, final long nowNs)
    {
        final int length = new JournalRefusals().reject(request, 0, buffer, nowNs, 0, RejectReason.JOURNAL_REFUSED);
        assertTrue(length > 0, "a request a client waits on");
        gateway.onEngineMessage(buffer, 0, length, nowNs);
    }

    /** Sends a client's mass cancel of its account's orders on every instrument. */
    int massCancelAll(final int transport, final long clientOrderId, final long account, final long nowNs)
    {
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + new MassCancelEncoder()
            .wrapAndApplyHeader(buffer, 0, header).clientOrderId(clientOrderId).account(account).instrumentId(0)
            .sendingTime(nowNs - 100).receiveTime(0).encodedLength();
        return gateway.onClientMessage(transport, buffer, 0, length, nowNs);
    }

    // ---------------------------------------------------------------- reading what was sent

    static int templateId(final DirectBuffer message)
    {
        return new MessageHeaderDecoder().wrap(message, 0).templateId();
    }

    ExecutionReportDecoder report(final DirectBuffer message)
    {
        final MessageHeaderDecoder decoded = new MessageHeaderDecoder().wrap(message, 0);
        assertEquals(ExecutionReportDecoder.TEMPLATE_ID, decoded.templateId(), "an execution report");
        return report.wrap(message, MessageHeaderDecoder.ENCODED_LENGTH, decoded.blockLength(), decoded.version());
    }

    /** Asserts the last message to a session is a gateway reject with the reason, and returns it. */
    ExecutionReportDecoder assertLastRejected(final int sessionIndex, final RejectReason reason)
    {
        final RecordingGatewayOutput.SessionMessage last = output.lastToSession();
        assertEquals(sessionIndex, last.sessionIndex(), "the reject goes to the session");
        final ExecutionReportDecoder rejected = report(last.buffer());
        assertEquals(ExecType.REJECTED, rejected.execType());
        assertEquals(OrdStatus.REJECTED, rejected.ordStatus());
        assertEquals(reason, rejected.rejectReason());
        assertEquals(0, rejected.engineSequence());
        assertEquals(0, rejected.exchangeOrderId());
        return rejected;
    }
}
