package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonResponseEncoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.book.RejectReports;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Encodes what the gateway itself says to a client: logon responses, logouts, heartbeats and
 * reject execution reports, into one preallocated buffer that {@link #buffer()} exposes until the
 * next encode.
 *
 * <p>A gateway reject looks like the engine's (execType and ordStatus REJECTED) but carries
 * engineSequence 0 and exchangeOrderId 0, since the engine never saw the request, and the latency
 * ledger up to the gateway: the client's sendingTime, when the gateway received it and when it
 * replied.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class ClientReplies
{
    /** A reject's clientSendTime when the request's is unknown. */
    static final long NULL_TIME = ExecutionReportEncoder.clientSendTimeNullValue();

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final ExecutionReportEncoder report = new ExecutionReportEncoder();
    private final LogonResponseEncoder logonResponse = new LogonResponseEncoder();
    private final LogoutEncoder logout = new LogoutEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();

    /** @return the buffer the last message was encoded into, from offset 0. */
    DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * Encodes a reject execution report. The enum fields echo the request's raw values, so a value
     * this version does not know goes back as the client sent it instead of failing the encode.
     *
     * @return the encoded length.
     */
    int reject(
        final long clientOrderId,
        final long account,
        final int instrumentId,
        final short sideRaw,
        final short ordTypeRaw,
        final short timeInForceRaw,
        final long price,
        final long quantity,
        final long clientSendTime,
        final short reason,
        final long gatewayInTime,
        final long gatewayReplyTime)
    {
        RejectReports.begin(report, header, buffer, clientOrderId, account, instrumentId, RejectReason.get(reason),
            price, quantity, gatewayInTime)
            .engineSequence(0)
            .clientSendTime(clientSendTime)
            .gatewayInTime(gatewayInTime)
            .gatewayOutTime(ExecutionReportEncoder.gatewayOutTimeNullValue())
            .engineInTime(ExecutionReportEncoder.engineInTimeNullValue())
            .engineOutTime(ExecutionReportEncoder.engineOutTimeNullValue())
            .gatewayReplyTime(gatewayReplyTime)
            .replySequence(0); // numbered by its session's reply log, if it goes through one
        RejectReports.terms(buffer, sideRaw, ordTypeRaw, timeInForceRaw);
        return MessageHeaderEncoder.ENCODED_LENGTH + report.encodedLength();
    }

    /**
     * @param nextReplySequence the sequence the logon's reports start from; 0 when the session's
     *                          reports are not numbered here, or the logon is rejected.
     * @param replyLife         the numbering that sequence belongs to; 0 on a rejection.
     * @return the encoded length of a LogonResponse.
     */
    int logonResponse(final long sessionId, final LogonStatus status, final LogonRejectReason reason,
        final int heartbeatIntervalMs, final long nowNs, final long nextReplySequence, final long replyLife,
        final String reasonText)
    {
        logonResponse.wrapAndApplyHeader(buffer, 0, header)
            .sessionId(sessionId)
            .status(status)
            .rejectReason(reason)
            .heartbeatIntervalMs(heartbeatIntervalMs)
            .sendingTime(nowNs)
            .nextReplySequence(nextReplySequence)
            .replyLife(replyLife)
            .reasonText(reasonText);
        return MessageHeaderEncoder.ENCODED_LENGTH + logonResponse.encodedLength();
    }

    /** @return the encoded length of a Logout. */
    int logout(final long sessionId, final long nowNs)
    {
        logout.wrapAndApplyHeader(buffer, 0, header).sessionId(sessionId).sendingTime(nowNs);
        return MessageHeaderEncoder.ENCODED_LENGTH + logout.encodedLength();
    }

    /** @return the encoded length of a Heartbeat. */
    int heartbeat(final long sessionId, final long nowNs)
    {
        heartbeat.wrapAndApplyHeader(buffer, 0, header).sessionId(sessionId).sendingTime(nowNs);
        return MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength();
    }
}
