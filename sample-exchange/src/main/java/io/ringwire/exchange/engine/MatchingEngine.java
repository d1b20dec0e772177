package io.ringwire.exchange.engine;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.EngineCommandDecoder;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.book.BookListener;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderBooks;
import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.book.OrderTerms;
import io.ringwire.exchange.book.RejectReports;
import io.ringwire.exchange.book.RestingOrder;
import io.ringwire.exchange.marketdata.SnapshotSource;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The matching engine: decodes each request (NewOrder, CancelOrder, ReplaceOrder, MassCancel,
 * EngineCommand), applies it to the {@link OrderBooks}, and encodes what happened as SBE
 * execution reports (one for every state change of an order) and ITCH-style order-level market
 * data, each stamped with its sequence: the engine's for execution reports, the stream's and the
 * instrument's for market data. Every message it sends also goes to its {@link DigestFeed}: into
 * its {@link OutputDigest} on this thread, or through a {@link DigestRing} to the
 * {@link DigestAgent}, which keeps the same digest on a thread of its own.
 *
 * <p>Deterministic: its only clock is the time the gateway stamped on the request
 * ({@code receiveTime}, or {@code sendingTime} from a version-1 sender), and every id and sequence
 * comes from a counter, so the same requests give the same bytes.
 *
 * <p>Threading: one thread. {@link #apply} allocates nothing, takes no locks and throws nothing on
 * bad input: a message it cannot decode is counted and dropped.
 */
public final class MatchingEngine implements BookListener
{
    /** {@link #check}: a well-formed message of a template the engine does not take. */
    public static final int UNKNOWN_TEMPLATE = -100;
    /** The null value of a one-byte enum field a version-1 sender does not send. */
    private static final short ENUM_NULL = 255;

    private final OrderBooks books;
    private final OrderStore orders;
    private final DigestedOutput output;
    private final OutputDigest digest;
    private final EngineCounters counters = new EngineCounters();
    private final MarketDataEncoder marketData;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final EngineCommandDecoder engineCommand = new EngineCommandDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final ExecutionReportEncoder report = new ExecutionReportEncoder();
    private final UnsafeBuffer reportBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));

    private long transactTime;
    private long ledgerClientSend;
    private long ledgerGatewayIn;
    private long ledgerGatewayOut;
    private long lastExecId;
    private long engineSequence;

    /**
     * An engine that digests its output on its own thread.
     *
     * @param config the instruments and capacities.
     * @param output where execution reports and market data go.
     */
    public MatchingEngine(final EngineConfig config, final EngineOutput output)
    {
        this(config, output, new OutputDigest(), null);
    }

    /**
     * @param config the instruments and capacities.
     * @param output where execution reports and market data go.
     * @param digest the digest of its output (restored with the engine, handed to whoever feeds it).
     * @param feed   where its output goes to be digested; null for {@code digest} itself, on this
     *               thread (see {@link #feedDigest}).
     */
    public MatchingEngine(final EngineConfig config, final EngineOutput output, final OutputDigest digest,
        final DigestFeed feed)
    {
        this.books = new OrderBooks(config.instruments().toArray(new InstrumentSpec[0]), config.maxOrders(),
            config.maxAccounts(), this);
        this.orders = books.orders();
        this.digest = digest;
        this.output = new DigestedOutput(output, null == feed ? digest : feed);
        this.marketData = new MarketDataEncoder(config.instruments().size(), this.output, counters);
    }

    /**
     * Sends the output to be digested through {@code feed} from now on: the live engine recovers with
     * its digest on its own thread, then hands it to the {@link DigestAgent} and feeds it through a
     * {@link DigestRing}. Control path, between requests.
     *
     * @param feed where the output goes to be digested.
     * @return the feed it replaces.
     */
    public DigestFeed feedDigest(final DigestFeed feed)
    {
        final DigestFeed before = output.feed;
        output.feed = feed;
        return before;
    }

    /** @return where the output goes to be digested. */
    public DigestFeed digestFeed()
    {
        return output.feed;
    }

    /** @return the books, for reading. */
    public OrderBooks books()
    {
        return books;
    }

    /**
     * @return the digest of everything sent: read it on the thread that feeds it, or once that has
     *         stopped (see {@link #feedDigest}).
     */
    public OutputDigest digest()
    {
        return digest;
    }

    /** @return the counters. */
    public EngineCounters counters()
    {
        return counters;
    }

    /**
     * Checks that a message is one the engine takes and can decode, before it is journaled.
     *
     * @return 0, or a negative {@link MessageValidator} code or {@link #UNKNOWN_TEMPLATE}.
     */
    public static int check(final DirectBuffer buffer, final int offset, final int length)
    {
        final int valid = MessageValidator.validate(buffer, offset, length);
        if (valid < 0)
        {
            return valid;
        }
        final int templateId = buffer.getShort(offset + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        return templateId == NewOrderDecoder.TEMPLATE_ID || templateId == CancelOrderDecoder.TEMPLATE_ID ||
            templateId == ReplaceOrderDecoder.TEMPLATE_ID || templateId == MassCancelDecoder.TEMPLATE_ID ||
            templateId == EngineCommandDecoder.TEMPLATE_ID ? 0 : UNKNOWN_TEMPLATE;
    }

    /**
     * Applies one request that has not been checked: {@link #check} first, then
     * {@link #applyChecked}. A message that fails the check is counted and dropped.
     *
     * @return the template id applied, or a negative code when the message was dropped (counted).
     */
    public int apply(final DirectBuffer buffer, final int offset, final int length)
    {
        final int valid = check(buffer, offset, length);
        if (valid < 0)
        {
            if (valid == UNKNOWN_TEMPLATE)
            {
                counters.unknownTemplates++;
            }
            else
            {
                counters.malformed++;
            }
            return valid;
        }
        return applyChecked(buffer, offset, length);
    }

    /**
     * Applies one request that {@link #check} accepted (every journaled request was): it is
     * validated once, before it is journaled, and not again here.
     *
     * @return the template id applied.
     */
    public int applyChecked(final DirectBuffer buffer, final int offset, final int length)
    {
        header.wrap(buffer, offset);
        final int templateId = header.templateId();
        final int blockLength = header.blockLength();
        final int version = header.version();
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        counters.applied++;
        switch (templateId)
        {
            case NewOrderDecoder.TEMPLATE_ID -> onNewOrder(newOrder.wrap(buffer, body, blockLength, version));
            case CancelOrderDecoder.TEMPLATE_ID -> onCancel(cancelOrder.wrap(buffer, body, blockLength, version));
            case ReplaceOrderDecoder.TEMPLATE_ID -> onReplace(replaceOrder.wrap(buffer, body, blockLength, version));
            case MassCancelDecoder.TEMPLATE_ID -> onMassCancel(massCancel.wrap(buffer, body, blockLength, version));
            default -> engineCommand.wrap(buffer, body, blockLength, version);
        }
        return templateId;
    }

    private void onNewOrder(final NewOrderDecoder request)
    {
        counters.newOrders++;
        transactTime = clock(request.receiveTime(), request.sendingTime());
        ledger(request.sendingTime(), request.receiveTime(), request.gatewaySendTime());
        final short postOnly = request.postOnlyRaw();
        final short stp = request.selfTradePreventionRaw();
        final long display = request.displayQuantity();
        if ((postOnly > 1 && postOnly != ENUM_NULL) || (stp > OrderTerms.STP_DECREMENT_AND_CANCEL && stp != ENUM_NULL))
        {
            reject(request.clientOrderId(), request.account(), request.instrumentId(), request.sideRaw(),
                request.ordTypeRaw(), request.timeInForceRaw(), request.price(), request.quantity(),
                OrderTerms.MALFORMED_MESSAGE);
            return;
        }
        final long result = books.newOrder(request.clientOrderId(), request.account(), request.instrumentId(),
            (byte)request.sideRaw(), (byte)request.ordTypeRaw(), (byte)request.timeInForceRaw(), request.price(),
            request.quantity(), display == NewOrderDecoder.displayQuantityNullValue() ? 0 : display, postOnly == 1,
            stp == ENUM_NULL ? OrderTerms.STP_CANCEL_RESTING : (byte)stp);
        if (result < 0)
        {
            reject(request.clientOrderId(), request.account(), request.instrumentId(), request.sideRaw(),
                request.ordTypeRaw(), request.timeInForceRaw(), request.price(), request.quantity(), (int)-result);
        }
    }

    private void onCancel(final CancelOrderDecoder request)
    {
        counters.cancels++;
        transactTime = clock(request.receiveTime(), request.sendingTime());
        ledger(request.sendingTime(), request.receiveTime(), request.gatewaySendTime());
        final int result = books.cancel(request.account(), request.origClientOrderId(), request.instrumentId(),
            (byte)request.sideRaw());
        if (result < 0)
        {
            reject(request.clientOrderId(), request.account(), request.instrumentId(), request.sideRaw(),
                RejectReports.NULL_ENUM, RejectReports.NULL_ENUM, 0, 0, -result);
        }
    }

    private void onReplace(final ReplaceOrderDecoder request)
    {
        counters.replaces++;
        transactTime = clock(request.receiveTime(), request.sendingTime());
        ledger(request.sendingTime(), request.receiveTime(), request.gatewaySendTime());
        final int result = books.replace(request.account(), request.origClientOrderId(), request.clientOrderId(),
            request.instrumentId(), (byte)request.sideRaw(), request.price(), request.quantity());
        if (result < 0)
        {
            reject(request.clientOrderId(), request.account(), request.instrumentId(), request.sideRaw(),
                OrdType.LIMIT.value(), RejectReports.NULL_ENUM, request.price(), request.quantity(), -result);
        }
    }

    private void onMassCancel(final MassCancelDecoder request)
    {
        counters.massCancels++;
        transactTime = clock(request.receiveTime(), request.sendingTime());
        ledger(request.sendingTime(), request.receiveTime(), NewOrderDecoder.gatewaySendTimeNullValue());
        books.massCancel(request.account(), request.instrumentId());
    }

    /**
     * @return the command of the last message applied when it was an EngineCommand (the caller
     *         acts on SNAPSHOT and DIGEST), else 0.
     */
    public int lastCommand(final int templateId)
    {
        return templateId == EngineCommandDecoder.TEMPLATE_ID ? engineCommand.commandRaw() : 0;
    }

    /**
     * Takes the latency ledger of the request being applied: every report it causes carries the
     * client's, and the gateway's, times for it (0 where a sender left a time out). Deterministic:
     * it comes from the journaled request. The engine's own times are left 0 here and stamped by
     * whoever sends the report on, after the digest.
     */
    private void ledger(final long clientSend, final long gatewayIn, final long gatewayOut)
    {
        ledgerClientSend = clientSend == NewOrderDecoder.sendingTimeNullValue() ? 0 : clientSend;
        ledgerGatewayIn = gatewayIn == NewOrderDecoder.receiveTimeNullValue() ? 0 : gatewayIn;
        ledgerGatewayOut = gatewayOut == NewOrderDecoder.gatewaySendTimeNullValue() ? 0 : gatewayOut;
    }

    private static long clock(final long receiveTime, final long sendingTime)
    {
        return receiveTime == NewOrderDecoder.receiveTimeNullValue() ? sendingTime : receiveTime;
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * The engine's whole state, as a snapshot keeps it: the books, every counter an output depends
     * on, and the digest's chain. Take it right after {@link OutputDigest#link()}. Control path.
     *
     * @param journalSequence the journal records applied so far (where a restart replays from).
     * @return the state.
     */
    public EngineState state(final long journalSequence)
    {
        return new EngineState(journalSequence, lastExecId, engineSequence, marketData.streamSequence(),
            marketData.instrumentSequences(), digest.chain(), digest.bytes(), books.lastOrderId(), books.lastMatchId(),
            books.lastPriority(), books.resting());
    }

    /**
     * Restores a state into this engine, which must be new.
     *
     * @param state as {@link #state} took it.
     * @throws IllegalStateException when this engine has applied anything or the state does not fit it.
     */
    public void restore(final EngineState state)
    {
        if (counters.applied != 0 || orders.live() != 0)
        {
            throw new IllegalStateException("restore needs a new engine");
        }
        if (state.instrumentSequences().length != books.instrumentCount() + 1)
        {
            throw new IllegalStateException("the snapshot has " + (state.instrumentSequences().length - 1) +
                " instruments, the engine " + books.instrumentCount());
        }
        books.restore(state.orders(), state.lastOrderId(), state.lastMatchId(), state.lastPriority());
        lastExecId = state.lastExecId();
        engineSequence = state.engineSequence();
        marketData.restore(state.streamSequence(), state.instrumentSequences());
        digest.restore(state.digestChain(), state.digestBytes());
    }

    /**
     * @return a SHA-256 of every resting order's fields (in the books' order), in hex: two engines
     *         with equal books give equal values. Control path: allocates.
     */
    public String booksDigest()
    {
        try
        {
            final MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (final RestingOrder order : books.resting())
            {
                sha.update(order.toString().getBytes(StandardCharsets.US_ASCII));
            }
            return HexFormat.of().formatHex(sha.digest());
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("this JDK has no SHA-256", ex);
        }
    }

    /**
     * @return the engine's books as a {@link SnapshotSource} of no engine life: every book live, at
     *         the market-data sequences last sent, which a BookSnapshot taken between two requests
     *         carries.
     */
    public SnapshotSource feedSnapshotSource()
    {
        return feedSnapshotSource(0);
    }

    /**
     * @param engineLife the life the snapshots name ({@link JournaledEngine#life()}).
     * @return the engine's books as a {@link SnapshotSource}, as {@link #feedSnapshotSource()}.
     */
    public SnapshotSource feedSnapshotSource(final long engineLife)
    {
        return new SnapshotSource()
        {
            @Override
            public long engineLife()
            {
                return engineLife;
            }

            @Override
            public int books()
            {
                return books.instrumentCount();
            }

            @Override
            public boolean isLive(final int slot)
            {
                return true;
            }

            @Override
            public long sequence(final int slot)
            {
                return marketData.instrumentSequence(slot + 1);
            }

            @Override
            public long streamSequence()
            {
                return marketData.streamSequence();
            }
        };
    }

    /** @return the last engine sequence sent (on execution reports). */
    public long engineSequence()
    {
        return engineSequence;
    }

    // ---------------------------------------------------------------- the book's events

    @Override
    public void accepted(final int order)
    {
        sendReport(order, ExecType.NEW, 0, 0, OrderTerms.NONE_REASON);
    }

    @Override
    public void traded(final int aggressor, final int resting, final long price, final long quantity, final long matchId)
    {
        counters.trades++;
        sendReport(resting, orders.leaves(resting) == 0 ? ExecType.FILL : ExecType.PARTIAL_FILL, price, quantity,
            OrderTerms.NONE_REASON);
        sendReport(aggressor, orders.leaves(aggressor) == 0 ? ExecType.FILL : ExecType.PARTIAL_FILL, price, quantity,
            OrderTerms.NONE_REASON);
        marketData.executed(orders, resting, quantity, price, matchId, transactTime);
        marketData.trade(orders, aggressor, resting, price, quantity, matchId, transactTime);
    }

    @Override
    public void rested(final int order)
    {
        marketData.added(orders, order, transactTime);
    }

    @Override
    public void canceled(final int order, final long canceled, final long shownRemoved, final int reason)
    {
        counters.canceledBy[reason]++;
        sendReport(order, ExecType.CANCELED, 0, 0, reason);
        if (shownRemoved > 0)
        {
            marketData.canceled(orders, order, shownRemoved, 0, transactTime);
        }
    }

    @Override
    public void restated(final int order, final long decrement, final long shownRemoved)
    {
        sendReport(order, ExecType.RESTATED, 0, 0, OrderTerms.SELF_TRADE_PREVENTION);
        if (shownRemoved > 0)
        {
            marketData.canceled(orders, order, shownRemoved, orders.shown(order), transactTime);
        }
    }

    @Override
    public void replaced(final int order, final boolean keepsPriority, final long shownBefore, final boolean crossing)
    {
        sendReport(order, ExecType.REPLACED, 0, 0, OrderTerms.NONE_REASON);
        if (crossing)
        {
            marketData.canceled(orders, order, shownBefore, 0, transactTime);
        }
        else
        {
            marketData.replaced(orders, order, keepsPriority, transactTime);
        }
    }

    // ---------------------------------------------------------------- execution reports

    private void sendReport(final int order, final ExecType execType, final long lastPrice, final long lastQuantity,
        final int reason)
    {
        final long leaves = orders.leaves(order);
        final long filled = orders.filled(order);
        report.wrapAndApplyHeader(reportBuffer, 0, headerEncoder)
            .exchangeOrderId(orders.orderId(order))
            .clientOrderId(orders.clientOrderId(order))
            .execId(++lastExecId)
            .account(orders.account(order))
            .instrumentId(orders.instrument(order))
            .execType(execType)
            .ordStatus(status(execType, leaves, filled))
            .side(Side.get(orders.side(order)))
            .rejectReason(RejectReason.get((short)reason))
            .lastPrice(lastPrice)
            .lastQuantity(lastQuantity)
            .leavesQuantity(leaves)
            .cumulativeQuantity(filled)
            .transactTime(transactTime)
            .price(orders.price(order))
            .orderQuantity(orders.quantity(order))
            .ordType(OrdType.get(orders.ordType(order)))
            .timeInForce(TimeInForce.get(orders.timeInForce(order)))
            .engineSequence(++engineSequence);
        send(MessageHeaderEncoder.ENCODED_LENGTH + report.encodedLength());
    }

    /** The reject of a request: it names the request's terms as sent ({@link RejectReports#terms}). */
    private void reject(final long clientOrderId, final long account, final int instrumentId, final short side,
        final short ordType, final short timeInForce, final long price, final long quantity, final int reason)
    {
        counters.rejects[reason]++;
        RejectReports.begin(report, headerEncoder, reportBuffer, clientOrderId, account, instrumentId,
            RejectReason.get((short)reason), price, quantity, transactTime)
            .execId(++lastExecId)
            .engineSequence(++engineSequence);
        RejectReports.terms(reportBuffer, side, ordType, timeInForce);
        send(MessageHeaderEncoder.ENCODED_LENGTH + report.encodedLength());
    }

    private void send(final int length)
    {
        report.clientSendTime(ledgerClientSend)
            .gatewayInTime(ledgerGatewayIn)
            .gatewayOutTime(ledgerGatewayOut)
            .engineInTime(0)
            .engineOutTime(0)
            .gatewayReplyTime(0)
            .replySequence(0); // the gateway numbers each session's reports
        counters.executionReports++;
        output.executionReport(reportBuffer, 0, length);
    }

    private static OrdStatus status(final ExecType execType, final long leaves, final long filled)
    {
        if (execType == ExecType.CANCELED)
        {
            return OrdStatus.CANCELED;
        }
        if (leaves == 0)
        {
            return OrdStatus.FILLED;
        }
        return filled > 0 ? OrdStatus.PARTIALLY_FILLED : OrdStatus.NEW;
    }

    /** The application's output, with each message digested first. */
    private static final class DigestedOutput implements EngineOutput
    {
        private final EngineOutput next;
        /** Changed between requests only, on the engine's thread. */
        private DigestFeed feed;

        DigestedOutput(final EngineOutput next, final DigestFeed feed)
        {
            this.next = next;
            this.feed = feed;
        }

        @Override
        public void executionReport(final DirectBuffer buffer, final int offset, final int length)
        {
            feed.update(buffer, offset, length);
            next.executionReport(buffer, offset, length);
        }

        @Override
        public void marketData(final DirectBuffer buffer, final int offset, final int length)
        {
            feed.update(buffer, offset, length);
            next.marketData(buffer, offset, length);
        }
    }
}
