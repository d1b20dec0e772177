package io.ringwire.exchange.demo;

import io.ringwire.codecs.ListedValues;
import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.ExchangeClock;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import org.agrona.DirectBuffer;

import java.util.concurrent.atomic.AtomicLongArray;

import static io.ringwire.exchange.demo.SimulatedClients.ACKS;
import static io.ringwire.exchange.demo.SimulatedClients.ACKS_REJECTED_BY_ENGINE;
import static io.ringwire.exchange.demo.SimulatedClients.ACKS_REJECTED_BY_GATEWAY;
import static io.ringwire.exchange.demo.SimulatedClients.ACK_REJECT_REASONS;
import static io.ringwire.exchange.demo.SimulatedClients.BOUGHT;
import static io.ringwire.exchange.demo.SimulatedClients.CANCELS;
import static io.ringwire.exchange.demo.SimulatedClients.DUPLICATE_ACKS;
import static io.ringwire.exchange.demo.SimulatedClients.DUPLICATE_REPLIES;
import static io.ringwire.exchange.demo.SimulatedClients.DUPLICATE_SEQUENCES;
import static io.ringwire.exchange.demo.SimulatedClients.FILLED_AND_CANCELED;
import static io.ringwire.exchange.demo.SimulatedClients.FILLS;
import static io.ringwire.exchange.demo.SimulatedClients.LOGGED_ON;
import static io.ringwire.exchange.demo.SimulatedClients.DUE_WHILE_LOST;
import static io.ringwire.exchange.demo.SimulatedClients.MALFORMED_REPLIES;
import static io.ringwire.exchange.demo.SimulatedClients.MAX_SEQUENCE;
import static io.ringwire.exchange.demo.SimulatedClients.REJECTS;
import static io.ringwire.exchange.demo.SimulatedClients.REJECT_REASONS;
import static io.ringwire.exchange.demo.SimulatedClients.REPLY_GAPS;
import static io.ringwire.exchange.demo.SimulatedClients.REPORTS;
import static io.ringwire.exchange.demo.SimulatedClients.SEQUENCES;
import static io.ringwire.exchange.demo.SimulatedClients.SESSIONS_LOST;
import static io.ringwire.exchange.demo.SimulatedClients.SOLD;
import static io.ringwire.exchange.demo.SimulatedClients.UNANSWERED_ACROSS_HOLD;
import static io.ringwire.exchange.demo.SimulatedClients.UNANSWERED_ACROSS_LOSS;
import static io.ringwire.exchange.demo.SimulatedClients.UNCHECKED_SEQUENCES;

/**
 * The replies side of {@link SimulatedClients}: reads each client's replies, takes its logon's
 * answer, follows its orders from their reports (an order filled, canceled or rejected leaves its
 * flow's live orders), times every acknowledgement into the {@link LatencyLedger}, and keeps the
 * counts a run must conserve. The clients' one thread; counters may be read from any.
 */
final class ReplyReader
{
    private final AtomicLongArray counters;
    private final LatencyLedger ledger;
    private final long intervalNs;
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final LogonResponseDecoder logonResponse = new LogonResponseDecoder();
    /** The engine sequences received, over every client. */
    private final EngineSequences sequences = new EngineSequences();
    private final FragmentHandler onReply = this::onReply;
    private SimulatedClient current;

    /**
     * @param counters the clients' counters, indexed by {@link SimulatedClients}' constants.
     * @param ledger   where acknowledgements are timed.
     * @param intervalNs between one client's due times: what a session loss leaves unsent is
     *                   counted by it at the next logon.
     */
    ReplyReader(final AtomicLongArray counters, final LatencyLedger ledger, final long intervalNs)
    {
        this.counters = counters;
        this.ledger = ledger;
        this.intervalNs = intervalNs;
    }

    /** @return replies of the client read, up to {@code limit}. */
    int poll(final SimulatedClient client, final int limit)
    {
        current = client;
        return client.replies.poll(onReply, limit);
    }

    /** The client's session is gone (see {@link SimulatedClient#loseSession()}); counted once. */
    void lost(final SimulatedClient client)
    {
        if (client.loseSession())
        {
            counters.incrementAndGet(SESSIONS_LOST);
            add(UNANSWERED_ACROSS_LOSS, client.orders.sessionLost());
        }
    }

    private void onReply(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        read(current, buffer, offset, length);
    }

    /** Takes one reply of the client's, whole. */
    void read(final SimulatedClient client, final DirectBuffer buffer, final int offset, final int length)
    {
        final long receivedNs = System.nanoTime();
        client.lastHeardNs = receivedNs;
        if (MessageValidator.validate(buffer, offset, length) < 0)
        {
            counters.incrementAndGet(MALFORMED_REPLIES);
            return;
        }
        headerDecoder.wrap(buffer, offset);
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int templateId = headerDecoder.templateId();
        if (templateId == LogonResponseDecoder.TEMPLATE_ID)
        {
            logonResponse.wrap(buffer, body, headerDecoder.blockLength(), headerDecoder.version());
            final short status = logonResponse.statusRaw();
            if (status != LogonStatus.ACCEPTED.value() && status != LogonStatus.REJECTED.value())
            {
                counters.incrementAndGet(MALFORMED_REPLIES);
                return;
            }
            if (status == LogonStatus.ACCEPTED.value() && !client.loggedOn)
            {
                client.loggedOn = true;
                add(DUE_WHILE_LOST, client.resume(receivedNs, intervalNs));
                counters.incrementAndGet(LOGGED_ON);
                add(REPLY_GAPS, client.replySequence.onStart(logonResponse.nextReplySequence(),
                    logonResponse.replyLife()));
            }
            return;
        }
        if (templateId == LogoutDecoder.TEMPLATE_ID)
        {
            lost(client);
            return;
        }
        if (templateId != ExecutionReportDecoder.TEMPLATE_ID)
        {
            return;
        }
        report.wrap(buffer, body, headerDecoder.blockLength(), headerDecoder.version());
        final long skipped = client.replySequence.onReply(report.replySequence());
        if (skipped == ReplySequence.DUPLICATE)
        {
            counters.incrementAndGet(DUPLICATE_REPLIES); // a resend of one that had arrived: dropped
            return;
        }
        add(REPLY_GAPS, skipped);
        // Taken in the reply sequence above, so that dropping it shows as no gap. A reject of a
        // mass cancel, or of a malformed request, names no side: only a fill needs one.
        final ExecType execType = ListedValues.execType(report.execTypeRaw());
        final boolean fill = execType == ExecType.PARTIAL_FILL || execType == ExecType.FILL;
        if (execType == ExecType.NULL_VAL ||
            fill && report.sideRaw() != Side.BUY.value() && report.sideRaw() != Side.SELL.value())
        {
            counters.incrementAndGet(MALFORMED_REPLIES);
            return;
        }
        onReport(client, execType, receivedNs);
    }

    private void onReport(final SimulatedClient client, final ExecType execType, final long receivedNs)
    {
        if (execType == ExecType.REJECTED && report.rejectReasonRaw() == RejectReason.NOT_LOGGED_ON.value())
        {
            lost(client);
        }
        add(REPORTS, 1);
        onSequence(report.engineSequence());
        if (execType == ExecType.NEW || execType == ExecType.REJECTED)
        {
            onAcknowledgement(client, receivedNs);
        }
        if (execType == ExecType.REJECTED)
        {
            client.flow.ended(report.clientOrderId());
            add(REJECTS, 1);
            final int byReason = reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, report.rejectReasonRaw());
            if (byReason >= 0)
            {
                add(byReason, 1);
            }
        }
        else if (execType == ExecType.PARTIAL_FILL || execType == ExecType.FILL)
        {
            add(FILLS, 1);
            add(report.sideRaw() == Side.BUY.value() ? BOUGHT : SOLD, report.lastQuantity());
            if (execType == ExecType.FILL)
            {
                ended(client, ClientOrders.FILLED);
            }
        }
        else if (execType == ExecType.CANCELED)
        {
            add(CANCELS, 1);
            ended(client, ClientOrders.CANCELED);
        }
    }

    /** The report's order was filled or canceled: it leaves the flow; both for one order is a violation. */
    private void ended(final SimulatedClient client, final byte how)
    {
        client.flow.ended(report.clientOrderId());
        if (client.orders.ended(report.clientOrderId(), how))
        {
            counters.incrementAndGet(FILLED_AND_CANCELED);
        }
    }

    private void onSequence(final long sequence)
    {
        final int outcome = sequences.onSequence(sequence);
        if (outcome == EngineSequences.NONE)
        {
            return;
        }
        if (outcome == EngineSequences.DUPLICATE)
        {
            counters.incrementAndGet(DUPLICATE_SEQUENCES);
            return;
        }
        if (outcome == EngineSequences.UNCHECKED)
        {
            add(UNCHECKED_SEQUENCES, 1);
        }
        add(SEQUENCES, 1);
        if (sequence > counters.get(MAX_SEQUENCE))
        {
            counters.lazySet(MAX_SEQUENCE, sequence);
        }
    }

    private void onAcknowledgement(final SimulatedClient client, final long receivedNs)
    {
        final int slot = client.orders.acknowledge(report.clientOrderId());
        if (slot == ClientOrders.DUPLICATE)
        {
            counters.incrementAndGet(DUPLICATE_ACKS);
            return;
        }
        if (slot == ClientOrders.NOT_WAITING)
        {
            return;
        }
        if (client.orders.takeAcrossHold(slot))
        {
            counters.decrementAndGet(UNANSWERED_ACROSS_HOLD);
        }
        if (client.orders.takeWaitedAtSessionLoss(slot))
        {
            counters.decrementAndGet(UNANSWERED_ACROSS_LOSS);
        }
        add(ACKS, 1);
        if (report.execTypeRaw() == ExecType.REJECTED.value())
        {
            countRejectedAck();
        }
        ledger.recordAck(report.clientSendTime(), report.gatewayInTime(), report.gatewayOutTime(),
            report.engineInTime(), report.engineOutTime(), report.gatewayReplyTime(),
            ExchangeClock.fromMonotonic(receivedNs), ExchangeClock.fromMonotonic(client.orders.dueNs(slot)));
    }

    /**
     * Counts a new order's reject by whom and why. The engine's reports carry its sequence; the
     * gateway's carry none, nor does the engine's reject of a request its journal refused.
     */
    private void countRejectedAck()
    {
        final int reason = report.rejectReasonRaw();
        final long sequence = report.engineSequence();
        final boolean byEngine = sequence > 0 || reason == RejectReason.JOURNAL_REFUSED.value();
        add(byEngine ? ACKS_REJECTED_BY_ENGINE : ACKS_REJECTED_BY_GATEWAY, 1);
        final int byReason = reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, reason);
        if (byReason >= 0)
        {
            add(byReason, 1);
        }
    }

    /**
     * @return the counter of {@code reason} in the block of counters by reason from {@code first} to
     *         {@code end} (exclusive), or -1 for a reason past the block (a newer schema's): counted
     *         in the totals only, never in a neighbouring block.
     */
    static int reasonCounter(final int first, final int end, final int reason)
    {
        return reason >= 0 && reason < end - first ? first + reason : -1;
    }

    /** Adds to a counter only this thread writes (others read it). */
    private void add(final int counter, final long amount)
    {
        if (amount != 0)
        {
            counters.lazySet(counter, counters.get(counter) + amount);
        }
    }
}
