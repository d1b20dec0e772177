package io.ringwire.exchange.engine;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.BooleanType;
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
import io.ringwire.codecs.trading.OrderAddedEncoder;
import io.ringwire.codecs.trading.OrderCanceledEncoder;
import io.ringwire.codecs.trading.OrderExecutedEncoder;
import io.ringwire.codecs.trading.OrderReplacedEncoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.codecs.trading.TradeEncoder;
import io.ringwire.exchange.book.InstrumentSpec;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A second exchange with the rules of {@link io.ringwire.exchange.book.OrderBooks} and the output
 * of {@link MatchingEngine}, written from the rules and deliberately simple: an object per order,
 * per side of each instrument a {@link TreeMap} from price to the list of orders at that price
 * (oldest first), a {@link HashMap} from account and client order id to the resting order, and a
 * matching loop that always meets the first order of the best level. It allocates freely and is
 * slow; its one job is to be plainly right, so that a property test can hold the engine to it byte
 * for byte.
 *
 * <p>The rules, as this class applies them:
 * <ul>
 *   <li>A new order is rejected, first reason wins: the postOnly or selfTradePrevention field holds
 *       a value the schema does not define (MALFORMED_MESSAGE); unknown instrument; quantity not
 *       positive (INVALID_QUANTITY), not a lot multiple (LOT_SIZE); display quantity negative,
 *       above the quantity or not a lot multiple (INVALID_QUANTITY); side or self-trade mode
 *       unknown (MALFORMED_MESSAGE); for LIMIT: price off the tick (TICK_SIZE), outside the band
 *       (PRICE_BAND), time in force unknown (MALFORMED_MESSAGE); for MARKET: not IOC or FOK
 *       (INVALID_ORDER_TYPE); any other order type (MALFORMED_MESSAGE); post-only or iceberg on an
 *       IOC, FOK or MARKET order (INVALID_ORDER_TYPE); a DAY or GTC order whose account already
 *       has a resting order with its client order id (DUPLICATE_CLIENT_ORDER_ID); the books hold
 *       their maximum of orders, or a DAY or GTC order's account has no resting order while the
 *       maximum of accounts have (CAPACITY_EXCEEDED); a post-only order that meets the other
 *       side's best price (POST_ONLY_WOULD_TAKE).</li>
 *   <li>An accepted order takes the next order id and is reported NEW. A FOK trades only when the
 *       whole of it would trade now; otherwise it is canceled (FOK_NOT_FILLABLE) with nothing
 *       traded. The order then meets the other side, best price first, oldest first within a
 *       price, for as long as it has quantity and the best price is within its limit (a MARKET
 *       order has none). What is left of an IOC, FOK or MARKET order is canceled: NO_LIQUIDITY
 *       for a MARKET order that found the other side empty when it arrived, IOC_REMAINDER
 *       otherwise. What is left of a DAY or GTC order rests at the back of its price.</li>
 *   <li>A trade is at the resting order's price, for the smaller of what the incoming order has
 *       left and what the resting order shows. An iceberg shows at most its display quantity; when
 *       what it shows is gone and it has quantity left, it shows its display quantity (or the
 *       rest, if less) again, from the back of its price's queue.</li>
 *   <li>Meeting an order of its own account, the incoming order's self-trade prevention mode
 *       decides: CANCEL_RESTING cancels the resting order and goes on; CANCEL_AGGRESSING cancels
 *       the incoming order; CANCEL_BOTH cancels both; DECREMENT_AND_CANCEL takes the smaller open
 *       quantity off both, cancels an order left with nothing and reports a survivor RESTATED.
 *       Every such cancel and restatement carries SELF_TRADE_PREVENTION.</li>
 *   <li>A cancel names a resting order by account, client order id, instrument and side, or is
 *       rejected (UNKNOWN_ORDER).</li>
 *   <li>A replace names a resting order likewise, and is rejected: UNKNOWN_ORDER; price off the
 *       tick or outside the band; quantity not above what the order has filled (INVALID_QUANTITY)
 *       or not a lot multiple; a new client order id the account already rests under; a post-only
 *       order whose new price meets the other side's best. The order takes the new client order
 *       id, price and total quantity. At the same price and not more quantity it keeps its place;
 *       otherwise it goes to the back of its new price, and a new price that meets the other side
 *       trades first, as an incoming order, and rests what is left.</li>
 *   <li>A mass cancel cancels an account's resting orders, on one instrument or on all (0), in
 *       order id order.</li>
 *   <li>A reject names the request, byte for byte as it came: its client order id, account,
 *       instrument and side; a new order's order type, time in force, price and quantity; a
 *       replace's price and quantity, with LIMIT; a cancel names no order type or time in force.</li>
 *   <li>Order ids, match ids, execution ids, the engine's sequence and the market data sequences
 *       (per instrument and per stream) come from counters that start at 0 and count only what is
 *       sent or accepted. The time on every message is the request's receiveTime, or its
 *       sendingTime when it has none.</li>
 * </ul>
 *
 * <p>Threading: one thread.
 */
final class ReferenceExchange
{
    /** The rules' branches, counted so that a test can show which of them it took. */
    enum Path
    {
        ICEBERG_REFILL,
        REPLACE_KEEPS_PRIORITY,
        REPLACE_TO_BACK,
        REPLACE_CROSSING,
        STP_CANCEL_RESTING,
        STP_CANCEL_AGGRESSING,
        STP_CANCEL_BOTH,
        STP_DECREMENT_RESTING_SMALLER,
        STP_DECREMENT_INCOMING_SMALLER,
        STP_DECREMENT_EQUAL,
        FOK_FILLED,
        FOK_NOT_FILLABLE,
        MARKET_ORDER_MET_LIQUIDITY,
        DROPPED_MESSAGE
    }

    /** What a test may read of a resting order to build requests about it. */
    record RestingOrder(int instrumentId, Side side, long price, long quantity, long filled, boolean postOnly)
    {
    }

    private record ClientKey(long account, long clientOrderId)
    {
    }

    /** A reject's enum field the request did not name. */
    private static final short NOT_NAMED = 255;

    private static final class Order
    {
        final long orderId;
        final long account;
        final InstrumentSpec instrument;
        final Side side;
        final OrdType ordType;
        final TimeInForce timeInForce;
        final SelfTradePrevention selfTradePrevention;
        final boolean postOnly;
        /** An iceberg's display quantity; 0 for an order that shows all of itself. */
        final long displayQuantity;
        long clientOrderId;
        long price;
        long quantity;
        long leaves;
        long filled;
        long shown;

        Order(final long orderId, final long clientOrderId, final long account, final InstrumentSpec instrument,
            final Side side, final OrdType ordType, final TimeInForce timeInForce, final long price,
            final long quantity, final long displayQuantity, final boolean postOnly,
            final SelfTradePrevention selfTradePrevention)
        {
            this.orderId = orderId;
            this.clientOrderId = clientOrderId;
            this.account = account;
            this.instrument = instrument;
            this.side = side;
            this.ordType = ordType;
            this.timeInForce = timeInForce;
            this.price = price;
            this.quantity = quantity;
            this.leaves = quantity;
            this.displayQuantity = displayQuantity;
            this.postOnly = postOnly;
            this.selfTradePrevention = selfTradePrevention;
        }

        /** @return what the order shows when it joins the back of its level. */
        long showable()
        {
            return displayQuantity > 0 ? Math.min(displayQuantity, leaves) : leaves;
        }

        ClientKey key()
        {
            return new ClientKey(account, clientOrderId);
        }

        @Override
        public String toString()
        {
            return "#" + orderId + " acct " + account + " cl " + clientOrderId + " " + side + " " + leaves + "/" +
                quantity + " show " + shown + (displayQuantity > 0 ? " peak " + displayQuantity : "") + " @" + price +
                " " + timeInForce + " " + selfTradePrevention + (postOnly ? " postOnly" : "");
        }
    }

    /** One instrument's book: per side, best price first, and at each price the orders oldest first. */
    private static final class Book
    {
        final TreeMap<Long, List<Order>> bids = new TreeMap<>(Comparator.reverseOrder());
        final TreeMap<Long, List<Order>> asks = new TreeMap<>();

        TreeMap<Long, List<Order>> side(final Side side)
        {
            return side == Side.BUY ? bids : asks;
        }
    }

    /** An order of the other side as a FOK's dry run sees it: its own copy, so the run changes nothing. */
    private static final class DryRunOrder
    {
        final long account;
        final long displayQuantity;
        long leaves;
        long shown;

        DryRunOrder(final Order order)
        {
            account = order.account;
            displayQuantity = order.displayQuantity;
            leaves = order.leaves;
            shown = order.shown;
        }
    }

    private final List<InstrumentSpec> instruments;
    private final Book[] books;
    private final int maxOrders;
    private final int maxAccounts;
    private final EngineOutput output;
    private final Map<ClientKey, Order> resting = new HashMap<>();
    private final Map<Long, Integer> restingPerAccount = new HashMap<>();
    private final long[] instrumentSequence;
    private final long[] paths = new long[Path.values().length];

    private long lastOrderId;
    private long lastMatchId;
    private long lastExecId;
    private long engineSequence;
    private long streamSequence;
    private long transactTime;
    /** The request's latency ledger, copied onto every report it causes (0 where absent). */
    private long ledgerClientSend;
    private long ledgerGatewayIn;
    private long ledgerGatewayOut;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final NewOrderDecoder newOrderRequest = new NewOrderDecoder();
    private final CancelOrderDecoder cancelRequest = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceRequest = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancelRequest = new MassCancelDecoder();

    private final UnsafeBuffer out = new UnsafeBuffer(new byte[256]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final ExecutionReportEncoder executionReport = new ExecutionReportEncoder();
    private final OrderAddedEncoder orderAdded = new OrderAddedEncoder();
    private final OrderExecutedEncoder orderExecuted = new OrderExecutedEncoder();
    private final OrderCanceledEncoder orderCanceled = new OrderCanceledEncoder();
    private final OrderReplacedEncoder orderReplaced = new OrderReplacedEncoder();
    private final TradeEncoder trade = new TradeEncoder();

    /**
     * @param config the instruments and capacities, as the engine under test has them.
     * @param output where the messages go.
     */
    ReferenceExchange(final EngineConfig config, final EngineOutput output)
    {
        this.instruments = config.instruments();
        this.maxOrders = config.maxOrders();
        this.maxAccounts = config.maxAccounts();
        this.output = output;
        this.books = new Book[instruments.size()];
        for (int i = 0; i < books.length; i++)
        {
            books[i] = new Book();
        }
        this.instrumentSequence = new long[instruments.size() + 1];
    }

    // ---------------------------------------------------------------- what a test reads

    /** @return orders resting now. */
    int restingCount()
    {
        return resting.size();
    }

    /** @return the resting order of this account and client order id, or null. */
    RestingOrder find(final long account, final long clientOrderId)
    {
        final Order order = resting.get(new ClientKey(account, clientOrderId));
        return order == null ? null : new RestingOrder(order.instrument.id(), order.side, order.price, order.quantity,
            order.filled, order.postOnly);
    }

    /** @return the best price on a side of an instrument, or null when that side is empty. */
    Long bestPrice(final int instrumentId, final Side side)
    {
        final TreeMap<Long, List<Order>> levels = books[instrumentId - 1].side(side);
        return levels.isEmpty() ? null : levels.firstKey();
    }

    /** @return the most orders resting at one price of one side. */
    int deepestLevel()
    {
        int deepest = 0;
        for (final Book book : books)
        {
            for (final List<Order> level : book.bids.values())
            {
                deepest = Math.max(deepest, level.size());
            }
            for (final List<Order> level : book.asks.values())
            {
                deepest = Math.max(deepest, level.size());
            }
        }
        return deepest;
    }

    /** @return how often a branch of the rules was taken. */
    long count(final Path path)
    {
        return paths[path.ordinal()];
    }

    /** @return an instrument's book, best prices first, for a failure message. */
    String describeBook(final int instrumentId)
    {
        if (instrumentId < 1 || instrumentId > books.length)
        {
            return "(no instrument " + instrumentId + ")";
        }
        final StringBuilder text = new StringBuilder();
        final Book book = books[instrumentId - 1];
        for (final Side side : new Side[] { Side.SELL, Side.BUY })
        {
            text.append(side).append(side == Side.SELL ? " (best last)" : " (best first)").append('\n');
            final List<Map.Entry<Long, List<Order>>> levels = new ArrayList<>(book.side(side).entrySet());
            if (side == Side.SELL)
            {
                levels.sort(Map.Entry.<Long, List<Order>>comparingByKey().reversed());
            }
            for (final Map.Entry<Long, List<Order>> level : levels)
            {
                text.append("  ").append(level.getKey()).append(": ").append(level.getValue()).append('\n');
            }
        }
        return text.toString();
    }

    // ---------------------------------------------------------------- requests

    /**
     * Applies one message, as the engine does: one it cannot validate, or of a template it does not
     * take, sends nothing; so does an engine command.
     */
    void apply(final DirectBuffer buffer, final int offset, final int length)
    {
        if (MessageValidator.validate(buffer, offset, length) < 0)
        {
            paths[Path.DROPPED_MESSAGE.ordinal()]++;
            return;
        }
        header.wrap(buffer, offset);
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int blockLength = header.blockLength();
        final int version = header.version();
        switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID -> onNewOrder(newOrderRequest.wrap(buffer, body, blockLength, version));
            case CancelOrderDecoder.TEMPLATE_ID -> onCancel(cancelRequest.wrap(buffer, body, blockLength, version));
            case ReplaceOrderDecoder.TEMPLATE_ID -> onReplace(replaceRequest.wrap(buffer, body, blockLength, version));
            case MassCancelDecoder.TEMPLATE_ID -> onMassCancel(massCancelRequest.wrap(buffer, body, blockLength, version));
            case EngineCommandDecoder.TEMPLATE_ID ->
            {
                // An operator's command changes no order, so it sends nothing.
            }
            default -> paths[Path.DROPPED_MESSAGE.ordinal()]++;
        }
    }

    private void setLedger(final long clientSend, final long gatewayIn, final long gatewayOut)
    {
        ledgerClientSend = clientSend == NewOrderDecoder.sendingTimeNullValue() ? 0 : clientSend;
        ledgerGatewayIn = gatewayIn == NewOrderDecoder.receiveTimeNullValue() ? 0 : gatewayIn;
        ledgerGatewayOut = gatewayOut == NewOrderDecoder.gatewaySendTimeNullValue() ? 0 : gatewayOut;
    }

    private static long clock(final long receiveTime, final long sendingTime)
    {
        return receiveTime == NewOrderDecoder.receiveTimeNullValue() ? sendingTime : receiveTime;
    }

    private void onNewOrder(final NewOrderDecoder request)
    {
        transactTime = clock(request.receiveTime(), request.sendingTime());
        setLedger(request.sendingTime(), request.receiveTime(), request.gatewaySendTime());
        final RejectReason reason = newOrderProblem(request);
        if (reason != null)
        {
            reject(request.clientOrderId(), request.account(), request.instrumentId(), request.sideRaw(),
                request.ordTypeRaw(), request.timeInForceRaw(), request.price(), request.quantity(), reason);
            return;
        }
        final InstrumentSpec instrument = instruments.get(request.instrumentId() - 1);
        final OrdType ordType = OrdType.get(request.ordTypeRaw());
        final long display = displayQuantity(request);
        final Order order = new Order(++lastOrderId, request.clientOrderId(), request.account(), instrument,
            Side.get(request.sideRaw()), ordType, TimeInForce.get(request.timeInForceRaw()),
            ordType == OrdType.MARKET ? 0 : request.price(), request.quantity(), display,
            request.postOnlyRaw() == BooleanType.TRUE.value(), selfTradePrevention(request));
        report(order, ExecType.NEW, 0, 0, RejectReason.NONE);

        if (order.timeInForce == TimeInForce.FOK)
        {
            if (!wouldFillCompletely(order))
            {
                paths[Path.FOK_NOT_FILLABLE.ordinal()]++;
                cancelIncoming(order, RejectReason.FOK_NOT_FILLABLE);
                return;
            }
            paths[Path.FOK_FILLED.ordinal()]++;
        }
        final boolean otherSideWasEmpty = book(order).side(opposite(order.side)).isEmpty();
        if (order.ordType == OrdType.MARKET && !otherSideWasEmpty)
        {
            paths[Path.MARKET_ORDER_MET_LIQUIDITY.ordinal()]++;
        }
        if (!trade(order))
        {
            return;
        }
        if (order.leaves == 0)
        {
            return;
        }
        if (order.ordType == OrdType.MARKET || order.timeInForce == TimeInForce.IOC ||
            order.timeInForce == TimeInForce.FOK)
        {
            cancelIncoming(order, order.ordType == OrdType.MARKET && otherSideWasEmpty ?
                RejectReason.NO_LIQUIDITY : RejectReason.IOC_REMAINDER);
            return;
        }
        rest(order);
        addResting(order);
    }

    private static long displayQuantity(final NewOrderDecoder request)
    {
        final long display = request.displayQuantity();
        return display == NewOrderDecoder.displayQuantityNullValue() ? 0 : display;
    }

    private static SelfTradePrevention selfTradePrevention(final NewOrderDecoder request)
    {
        final short raw = request.selfTradePreventionRaw();
        return raw == SelfTradePrevention.NULL_VAL.value() ? SelfTradePrevention.CANCEL_RESTING :
            SelfTradePrevention.get(raw);
    }

    /** @return why a new order is rejected, or null when it is accepted. */
    private RejectReason newOrderProblem(final NewOrderDecoder request)
    {
        final RejectReason termsProblem = termsProblem(request);
        return termsProblem != null ? termsProblem : bookProblem(request);
    }

    /** @return what is wrong with the order's own terms, or null. */
    private RejectReason termsProblem(final NewOrderDecoder request)
    {
        final short postOnlyRaw = request.postOnlyRaw();
        final short stpRaw = request.selfTradePreventionRaw();
        final boolean postOnlyKnown = postOnlyRaw == BooleanType.FALSE.value() ||
            postOnlyRaw == BooleanType.TRUE.value() || postOnlyRaw == BooleanType.NULL_VAL.value();
        final boolean stpKnown = stpRaw <= SelfTradePrevention.DECREMENT_AND_CANCEL.value() ||
            stpRaw == SelfTradePrevention.NULL_VAL.value();
        if (!postOnlyKnown || !stpKnown)
        {
            return RejectReason.MALFORMED_MESSAGE;
        }
        final int instrumentId = request.instrumentId();
        if (instrumentId < 1 || instrumentId > instruments.size())
        {
            return RejectReason.UNKNOWN_INSTRUMENT;
        }
        final InstrumentSpec spec = instruments.get(instrumentId - 1);
        final long quantity = request.quantity();
        if (quantity <= 0)
        {
            return RejectReason.INVALID_QUANTITY;
        }
        if (quantity % spec.lotSize() != 0)
        {
            return RejectReason.LOT_SIZE;
        }
        final long display = displayQuantity(request);
        if (display < 0 || display > quantity || display % spec.lotSize() != 0)
        {
            return RejectReason.INVALID_QUANTITY;
        }
        final short side = request.sideRaw();
        if (side != Side.BUY.value() && side != Side.SELL.value())
        {
            return RejectReason.MALFORMED_MESSAGE;
        }
        final short ordType = request.ordTypeRaw();
        final boolean immediate = isImmediate(request);
        if (ordType == OrdType.LIMIT.value())
        {
            final RejectReason priceProblem = priceProblem(spec, request.price());
            if (priceProblem != null)
            {
                return priceProblem;
            }
            final short timeInForce = request.timeInForceRaw();
            if (!immediate && timeInForce != TimeInForce.DAY.value() && timeInForce != TimeInForce.GTC.value())
            {
                return RejectReason.MALFORMED_MESSAGE;
            }
        }
        else if (ordType != OrdType.MARKET.value())
        {
            return RejectReason.MALFORMED_MESSAGE;
        }
        else if (!immediate)
        {
            return RejectReason.INVALID_ORDER_TYPE;
        }
        if ((postOnlyRaw == BooleanType.TRUE.value() || display > 0) && immediate)
        {
            return RejectReason.INVALID_ORDER_TYPE;
        }
        return null;
    }

    /** @return why the books refuse an order whose terms are good, or null. */
    private RejectReason bookProblem(final NewOrderDecoder request)
    {
        final boolean immediate = isImmediate(request);
        final long account = request.account();
        if (!immediate && resting.containsKey(new ClientKey(account, request.clientOrderId())))
        {
            return RejectReason.DUPLICATE_CLIENT_ORDER_ID;
        }
        if (resting.size() >= maxOrders)
        {
            return RejectReason.CAPACITY_EXCEEDED;
        }
        if (!immediate && !restingPerAccount.containsKey(account) && restingPerAccount.size() >= maxAccounts)
        {
            return RejectReason.CAPACITY_EXCEEDED;
        }
        if (request.postOnlyRaw() == BooleanType.TRUE.value() &&
            meetsOtherSide(request.instrumentId(), Side.get(request.sideRaw()), request.price()))
        {
            return RejectReason.POST_ONLY_WOULD_TAKE;
        }
        return null;
    }

    private static boolean isImmediate(final NewOrderDecoder request)
    {
        final short timeInForce = request.timeInForceRaw();
        return timeInForce == TimeInForce.IOC.value() || timeInForce == TimeInForce.FOK.value();
    }

    private static RejectReason priceProblem(final InstrumentSpec spec, final long price)
    {
        if (price % spec.tickSize() != 0)
        {
            return RejectReason.TICK_SIZE;
        }
        if (price < spec.minPrice() || price > spec.maxPrice())
        {
            return RejectReason.PRICE_BAND;
        }
        return null;
    }

    /** @return whether an order on {@code side} at {@code price} meets the other side's best price. */
    private boolean meetsOtherSide(final int instrumentId, final Side side, final long price)
    {
        final Long best = bestPrice(instrumentId, opposite(side));
        return best != null && accepts(side, price, best);
    }

    /** @return whether a buyer (or seller) with this limit accepts this price. */
    private static boolean accepts(final Side side, final long limit, final long price)
    {
        return side == Side.BUY ? price <= limit : price >= limit;
    }

    private void onCancel(final CancelOrderDecoder request)
    {
        transactTime = clock(request.receiveTime(), request.sendingTime());
        setLedger(request.sendingTime(), request.receiveTime(), request.gatewaySendTime());
        final Order order = resting.get(new ClientKey(request.account(), request.origClientOrderId()));
        if (order == null || order.instrument.id() != request.instrumentId() || order.side.value() != request.sideRaw())
        {
            reject(request.clientOrderId(), request.account(), request.instrumentId(), request.sideRaw(), NOT_NAMED,
                NOT_NAMED, 0, 0, RejectReason.UNKNOWN_ORDER);
            return;
        }
        cancelResting(order, RejectReason.CLIENT_CANCEL);
    }

    private void onReplace(final ReplaceOrderDecoder request)
    {
        transactTime = clock(request.receiveTime(), request.sendingTime());
        setLedger(request.sendingTime(), request.receiveTime(), request.gatewaySendTime());
        final long account = request.account();
        final long newClientOrderId = request.clientOrderId();
        final long price = request.price();
        final long quantity = request.quantity();
        final Order order = resting.get(new ClientKey(account, request.origClientOrderId()));
        final RejectReason reason = replaceProblem(order, request);
        if (reason != null)
        {
            reject(newClientOrderId, account, request.instrumentId(), request.sideRaw(), OrdType.LIMIT.value(),
                NOT_NAMED, price, quantity, reason);
            return;
        }
        final boolean keepsPriority = price == order.price && quantity <= order.quantity;
        final boolean crossing = meetsOtherSide(order.instrument.id(), order.side, price);
        final long shownBefore = order.shown;
        removeResting(order);
        order.clientOrderId = newClientOrderId;
        order.quantity = quantity;
        order.leaves = quantity - order.filled;
        addResting(order);
        if (keepsPriority)
        {
            paths[Path.REPLACE_KEEPS_PRIORITY.ordinal()]++;
            order.shown = Math.min(shownBefore, order.leaves);
            report(order, ExecType.REPLACED, 0, 0, RejectReason.NONE);
            sendOrderReplaced(order, true);
            return;
        }
        leaveLevel(order);
        order.price = price;
        if (!crossing)
        {
            paths[Path.REPLACE_TO_BACK.ordinal()]++;
            order.shown = order.showable();
            joinLevel(order);
            report(order, ExecType.REPLACED, 0, 0, RejectReason.NONE);
            sendOrderReplaced(order, false);
            return;
        }
        paths[Path.REPLACE_CROSSING.ordinal()]++;
        order.shown = 0;
        report(order, ExecType.REPLACED, 0, 0, RejectReason.NONE);
        sendOrderCanceled(order, shownBefore, 0);
        // It trades as an incoming order, and stays findable by its client order id until it is done.
        if (trade(order) && order.leaves > 0)
        {
            rest(order);
        }
        else
        {
            removeResting(order);
        }
    }

    /** @return why a replace is rejected, or null when it applies. */
    private RejectReason replaceProblem(final Order order, final ReplaceOrderDecoder request)
    {
        if (order == null || order.instrument.id() != request.instrumentId() || order.side.value() != request.sideRaw())
        {
            return RejectReason.UNKNOWN_ORDER;
        }
        final RejectReason priceProblem = priceProblem(order.instrument, request.price());
        if (priceProblem != null)
        {
            return priceProblem;
        }
        final long quantity = request.quantity();
        if (quantity <= 0 || quantity <= order.filled)
        {
            return RejectReason.INVALID_QUANTITY;
        }
        if (quantity % order.instrument.lotSize() != 0)
        {
            return RejectReason.LOT_SIZE;
        }
        final long newClientOrderId = request.clientOrderId();
        if (newClientOrderId != order.clientOrderId && resting.containsKey(new ClientKey(order.account, newClientOrderId)))
        {
            return RejectReason.DUPLICATE_CLIENT_ORDER_ID;
        }
        if (order.postOnly && meetsOtherSide(order.instrument.id(), order.side, request.price()))
        {
            return RejectReason.POST_ONLY_WOULD_TAKE;
        }
        return null;
    }

    private void onMassCancel(final MassCancelDecoder request)
    {
        transactTime = clock(request.receiveTime(), request.sendingTime());
        setLedger(request.sendingTime(), request.receiveTime(), NewOrderDecoder.gatewaySendTimeNullValue());
        final long account = request.account();
        final int instrumentId = request.instrumentId();
        final List<Order> doomed = new ArrayList<>();
        for (final Order order : resting.values())
        {
            if (order.account == account && (instrumentId == 0 || order.instrument.id() == instrumentId))
            {
                doomed.add(order);
            }
        }
        doomed.sort(Comparator.comparingLong(order -> order.orderId));
        for (final Order order : doomed)
        {
            cancelResting(order, RejectReason.MASS_CANCEL);
        }
    }

    // ---------------------------------------------------------------- matching

    /**
     * Trades an incoming order against the other side until it has nothing left, the other side
     * has nothing within its limit, or self-trade prevention cancels it.
     *
     * @return false when self-trade prevention canceled the incoming order.
     */
    private boolean trade(final Order incoming)
    {
        final TreeMap<Long, List<Order>> other = book(incoming).side(opposite(incoming.side));
        while (incoming.leaves > 0 && !other.isEmpty())
        {
            final long bestPrice = other.firstKey();
            if (incoming.ordType == OrdType.LIMIT && !accepts(incoming.side, incoming.price, bestPrice))
            {
                return true;
            }
            final Order first = other.get(bestPrice).get(0);
            if (first.account == incoming.account)
            {
                if (!preventSelfTrade(incoming, first))
                {
                    return false;
                }
            }
            else
            {
                fill(incoming, first);
            }
        }
        return true;
    }

    private void fill(final Order incoming, final Order resting)
    {
        final long quantity = Math.min(incoming.leaves, resting.shown);
        final long price = resting.price;
        incoming.leaves -= quantity;
        incoming.filled += quantity;
        resting.leaves -= quantity;
        resting.filled += quantity;
        resting.shown -= quantity;
        final long matchId = ++lastMatchId;
        report(resting, resting.leaves == 0 ? ExecType.FILL : ExecType.PARTIAL_FILL, price, quantity, RejectReason.NONE);
        report(incoming, incoming.leaves == 0 ? ExecType.FILL : ExecType.PARTIAL_FILL, price, quantity,
            RejectReason.NONE);
        sendOrderExecuted(resting, quantity, price, matchId);
        sendTrade(incoming, resting, price, quantity, matchId);
        if (resting.leaves == 0)
        {
            leaveLevel(resting);
            removeResting(resting);
        }
        else if (resting.shown == 0)
        {
            paths[Path.ICEBERG_REFILL.ordinal()]++;
            leaveLevel(resting);
            rest(resting);
        }
    }

    /**
     * The incoming order meets a resting order of its own account.
     *
     * @return false when the incoming order is canceled.
     */
    private boolean preventSelfTrade(final Order incoming, final Order own)
    {
        switch (incoming.selfTradePrevention)
        {
            case CANCEL_AGGRESSING ->
            {
                paths[Path.STP_CANCEL_AGGRESSING.ordinal()]++;
                cancelIncoming(incoming, RejectReason.SELF_TRADE_PREVENTION);
                return false;
            }
            case CANCEL_BOTH ->
            {
                paths[Path.STP_CANCEL_BOTH.ordinal()]++;
                cancelResting(own, RejectReason.SELF_TRADE_PREVENTION);
                cancelIncoming(incoming, RejectReason.SELF_TRADE_PREVENTION);
                return false;
            }
            case DECREMENT_AND_CANCEL ->
            {
                return decrementBoth(incoming, own);
            }
            default ->
            {
                paths[Path.STP_CANCEL_RESTING.ordinal()]++;
                cancelResting(own, RejectReason.SELF_TRADE_PREVENTION);
                return true;
            }
        }
    }

    /** DECREMENT_AND_CANCEL: both lose the smaller open quantity; an order left with none is canceled. */
    private boolean decrementBoth(final Order incoming, final Order own)
    {
        final long decrement = Math.min(incoming.leaves, own.leaves);
        if (incoming.leaves == own.leaves)
        {
            paths[Path.STP_DECREMENT_EQUAL.ordinal()]++;
        }
        else
        {
            paths[(incoming.leaves < own.leaves ? Path.STP_DECREMENT_INCOMING_SMALLER :
                Path.STP_DECREMENT_RESTING_SMALLER).ordinal()]++;
        }
        if (own.leaves == decrement)
        {
            cancelResting(own, RejectReason.SELF_TRADE_PREVENTION);
        }
        else
        {
            final long shownBefore = own.shown;
            own.quantity -= decrement;
            own.leaves -= decrement;
            own.shown = Math.min(own.shown, own.leaves);
            report(own, ExecType.RESTATED, 0, 0, RejectReason.SELF_TRADE_PREVENTION);
            if (own.shown < shownBefore)
            {
                sendOrderCanceled(own, shownBefore - own.shown, own.shown);
            }
        }
        if (incoming.leaves == decrement)
        {
            cancelIncoming(incoming, RejectReason.SELF_TRADE_PREVENTION);
            return false;
        }
        incoming.quantity -= decrement;
        incoming.leaves -= decrement;
        report(incoming, ExecType.RESTATED, 0, 0, RejectReason.SELF_TRADE_PREVENTION);
        return true;
    }

    /**
     * A FOK's test before anything trades: a dry run of the match on copies of the other side's
     * orders (so an iceberg's refill goes to the back exactly as it would), which must fill the
     * whole order with no self-trade prevention but the cancel of resting orders.
     */
    private boolean wouldFillCompletely(final Order incoming)
    {
        long remaining = incoming.leaves;
        for (final Map.Entry<Long, List<Order>> level : book(incoming).side(opposite(incoming.side)).entrySet())
        {
            if (incoming.ordType == OrdType.LIMIT && !accepts(incoming.side, incoming.price, level.getKey()))
            {
                return false;
            }
            final ArrayDeque<DryRunOrder> queue = new ArrayDeque<>();
            for (final Order order : level.getValue())
            {
                queue.add(new DryRunOrder(order));
            }
            while (!queue.isEmpty())
            {
                final DryRunOrder first = queue.poll();
                if (first.account == incoming.account)
                {
                    if (incoming.selfTradePrevention != SelfTradePrevention.CANCEL_RESTING)
                    {
                        return false;
                    }
                    continue;
                }
                final long quantity = Math.min(remaining, first.shown);
                remaining -= quantity;
                if (remaining == 0)
                {
                    return true;
                }
                first.leaves -= quantity;
                first.shown -= quantity;
                if (first.leaves > 0)
                {
                    first.shown = first.displayQuantity > 0 ? Math.min(first.displayQuantity, first.leaves) :
                        first.leaves;
                    queue.add(first);
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- the book's bookkeeping

    private Book book(final Order order)
    {
        return books[order.instrument.id() - 1];
    }

    private static Side opposite(final Side side)
    {
        return side == Side.BUY ? Side.SELL : Side.BUY;
    }

    /** Puts an order at the back of its price level, showing what it may, and tells the feed. */
    private void rest(final Order order)
    {
        order.shown = order.showable();
        joinLevel(order);
        sendOrderAdded(order);
    }

    private void joinLevel(final Order order)
    {
        book(order).side(order.side).computeIfAbsent(order.price, price -> new ArrayList<>()).add(order);
    }

    private void leaveLevel(final Order order)
    {
        final TreeMap<Long, List<Order>> levels = book(order).side(order.side);
        final List<Order> level = levels.get(order.price);
        level.remove(order);
        if (level.isEmpty())
        {
            levels.remove(order.price);
        }
    }

    private void addResting(final Order order)
    {
        resting.put(order.key(), order);
        restingPerAccount.merge(order.account, 1, Integer::sum);
    }

    private void removeResting(final Order order)
    {
        resting.remove(order.key());
        if (restingPerAccount.merge(order.account, -1, Integer::sum) == 0)
        {
            restingPerAccount.remove(order.account);
        }
    }

    /** Cancels all that is left of a resting order. */
    private void cancelResting(final Order order, final RejectReason reason)
    {
        final long shownBefore = order.shown;
        leaveLevel(order);
        removeResting(order);
        order.leaves = 0;
        order.shown = 0;
        report(order, ExecType.CANCELED, 0, 0, reason);
        sendOrderCanceled(order, shownBefore, 0);
    }

    /** Cancels what is left of an order that is not on the book (the book never showed it). */
    private void cancelIncoming(final Order order, final RejectReason reason)
    {
        order.leaves = 0;
        report(order, ExecType.CANCELED, 0, 0, reason);
    }

    // ---------------------------------------------------------------- execution reports

    private void report(final Order order, final ExecType execType, final long lastPrice, final long lastQuantity,
        final RejectReason reason)
    {
        final OrdStatus status;
        if (execType == ExecType.CANCELED)
        {
            status = OrdStatus.CANCELED;
        }
        else if (order.leaves == 0)
        {
            status = OrdStatus.FILLED;
        }
        else if (order.filled > 0)
        {
            status = OrdStatus.PARTIALLY_FILLED;
        }
        else
        {
            status = OrdStatus.NEW;
        }
        executionReport.wrapAndApplyHeader(out, 0, headerEncoder);
        executionReport.exchangeOrderId(order.orderId);
        executionReport.clientOrderId(order.clientOrderId);
        executionReport.execId(++lastExecId);
        executionReport.account(order.account);
        executionReport.instrumentId(order.instrument.id());
        executionReport.execType(execType);
        executionReport.ordStatus(status);
        executionReport.side(order.side);
        executionReport.rejectReason(reason);
        executionReport.lastPrice(lastPrice);
        executionReport.lastQuantity(lastQuantity);
        executionReport.leavesQuantity(order.leaves);
        executionReport.cumulativeQuantity(order.filled);
        executionReport.transactTime(transactTime);
        executionReport.price(order.price);
        executionReport.orderQuantity(order.quantity);
        executionReport.ordType(order.ordType);
        executionReport.timeInForce(order.timeInForce);
        executionReport.engineSequence(++engineSequence);
        executionReport.clientSendTime(ledgerClientSend);
        executionReport.gatewayInTime(ledgerGatewayIn);
        executionReport.gatewayOutTime(ledgerGatewayOut);
        executionReport.engineInTime(0);
        executionReport.engineOutTime(0);
        executionReport.gatewayReplyTime(0);
        output.executionReport(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + executionReport.encodedLength());
    }

    /**
     * A rejected request's report: it names the request, as no order exists, with the side, order
     * type and time in force the request carried, byte for byte (a cancel names no order type or
     * time in force, a replace names LIMIT and no time in force).
     */
    private void reject(final long clientOrderId, final long account, final int instrumentId, final short side,
        final short ordType, final short timeInForce, final long price, final long quantity, final RejectReason reason)
    {
        executionReport.wrapAndApplyHeader(out, 0, headerEncoder);
        executionReport.exchangeOrderId(0);
        executionReport.clientOrderId(clientOrderId);
        executionReport.execId(++lastExecId);
        executionReport.account(account);
        executionReport.instrumentId(instrumentId);
        executionReport.execType(ExecType.REJECTED);
        executionReport.ordStatus(OrdStatus.REJECTED);
        executionReport.rejectReason(reason);
        executionReport.lastPrice(0);
        executionReport.lastQuantity(0);
        executionReport.leavesQuantity(0);
        executionReport.cumulativeQuantity(0);
        executionReport.transactTime(transactTime);
        executionReport.price(price);
        executionReport.orderQuantity(quantity);
        executionReport.engineSequence(++engineSequence);
        executionReport.clientSendTime(ledgerClientSend);
        executionReport.gatewayInTime(ledgerGatewayIn);
        executionReport.gatewayOutTime(ledgerGatewayOut);
        executionReport.engineInTime(0);
        executionReport.engineOutTime(0);
        executionReport.gatewayReplyTime(0);
        // Raw bytes: the request's values may be ones no enum constant has.
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;
        out.putByte(body + ExecutionReportEncoder.sideEncodingOffset(), (byte)side);
        out.putByte(body + ExecutionReportEncoder.ordTypeEncodingOffset(), (byte)ordType);
        out.putByte(body + ExecutionReportEncoder.timeInForceEncodingOffset(), (byte)timeInForce);
        output.executionReport(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + executionReport.encodedLength());
    }

    // ---------------------------------------------------------------- market data

    private long nextInstrumentSequence(final Order order)
    {
        return ++instrumentSequence[order.instrument.id()];
    }

    private void sendOrderAdded(final Order order)
    {
        orderAdded.wrapAndApplyHeader(out, 0, headerEncoder);
        orderAdded.instrumentId(order.instrument.id());
        orderAdded.sequenceNumber(nextInstrumentSequence(order));
        orderAdded.streamSequence(++streamSequence);
        orderAdded.orderId(order.orderId);
        orderAdded.side(order.side);
        orderAdded.price(order.price);
        orderAdded.quantity(order.shown);
        orderAdded.transactTime(transactTime);
        output.marketData(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderAdded.encodedLength());
    }

    private void sendOrderExecuted(final Order order, final long quantity, final long price, final long matchId)
    {
        orderExecuted.wrapAndApplyHeader(out, 0, headerEncoder);
        orderExecuted.instrumentId(order.instrument.id());
        orderExecuted.sequenceNumber(nextInstrumentSequence(order));
        orderExecuted.streamSequence(++streamSequence);
        orderExecuted.orderId(order.orderId);
        orderExecuted.executedQuantity(quantity);
        orderExecuted.price(price);
        orderExecuted.matchId(matchId);
        orderExecuted.transactTime(transactTime);
        output.marketData(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderExecuted.encodedLength());
    }

    private void sendOrderCanceled(final Order order, final long canceledQuantity, final long remainingQuantity)
    {
        orderCanceled.wrapAndApplyHeader(out, 0, headerEncoder);
        orderCanceled.instrumentId(order.instrument.id());
        orderCanceled.sequenceNumber(nextInstrumentSequence(order));
        orderCanceled.streamSequence(++streamSequence);
        orderCanceled.orderId(order.orderId);
        orderCanceled.canceledQuantity(canceledQuantity);
        orderCanceled.remainingQuantity(remainingQuantity);
        orderCanceled.transactTime(transactTime);
        output.marketData(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderCanceled.encodedLength());
    }

    private void sendOrderReplaced(final Order order, final boolean keepsPriority)
    {
        orderReplaced.wrapAndApplyHeader(out, 0, headerEncoder);
        orderReplaced.instrumentId(order.instrument.id());
        orderReplaced.sequenceNumber(nextInstrumentSequence(order));
        orderReplaced.streamSequence(++streamSequence);
        orderReplaced.orderId(order.orderId);
        orderReplaced.price(order.price);
        orderReplaced.quantity(order.shown);
        orderReplaced.keepsPriority(keepsPriority ? BooleanType.TRUE : BooleanType.FALSE);
        orderReplaced.transactTime(transactTime);
        output.marketData(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderReplaced.encodedLength());
    }

    private void sendTrade(final Order incoming, final Order resting, final long price, final long quantity,
        final long matchId)
    {
        final Order buyer = incoming.side == Side.BUY ? incoming : resting;
        final Order seller = incoming.side == Side.BUY ? resting : incoming;
        trade.wrapAndApplyHeader(out, 0, headerEncoder);
        trade.instrumentId(incoming.instrument.id());
        trade.sequenceNumber(nextInstrumentSequence(incoming));
        trade.tradeId(matchId);
        trade.price(price);
        trade.quantity(quantity);
        trade.aggressorSide(incoming.side);
        trade.transactTime(transactTime);
        trade.streamSequence(++streamSequence);
        trade.buyOrderId(buyer.orderId);
        trade.sellOrderId(seller.orderId);
        output.marketData(out, 0, MessageHeaderEncoder.ENCODED_LENGTH + trade.encodedLength());
    }
}
