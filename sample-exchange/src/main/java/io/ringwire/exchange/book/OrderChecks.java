package io.ringwire.exchange.book;

import static io.ringwire.exchange.book.OrderStore.NONE;
import static io.ringwire.exchange.book.OrderTerms.*;

/**
 * The checks a request passes before it changes a book, in the order they are made; each failure
 * is the reason the request is rejected with. Pure: they read the books, never change them.
 */
final class OrderChecks
{
    private OrderChecks()
    {
    }

    /**
     * A new order's checks: instrument, quantity and lot, display quantity, side and self-trade
     * prevention mode, price (tick, band), order type and time in force, duplicate client order id
     * (for an order that may rest), capacity.
     *
     * @return 0, or the reason.
     */
    static int check(final InstrumentRules[] instruments, final OrderStore orders, final long clientOrderId,
        final long account, final int instrumentId, final byte side, final byte ordType, final byte timeInForce, final long price, final long quantity, final long displayQuantity,
        final boolean postOnly, final byte selfTradePrevention)
    {
        if (instrumentId < 1 || instrumentId > instruments.length)
        {
            return UNKNOWN_INSTRUMENT;
        }
        final InstrumentRules rules = instruments[instrumentId - 1];
        if (quantity <= 0)
        {
            return INVALID_QUANTITY;
        }
        if (!rules.lot.divides(quantity))
        {
            return LOT_SIZE;
        }
        if (displayQuantity < 0 || displayQuantity > quantity || !rules.lot.divides(displayQuantity))
        {
            return INVALID_QUANTITY;
        }
        if (side != BUY && side != SELL || selfTradePrevention < STP_CANCEL_RESTING ||
            selfTradePrevention > STP_DECREMENT_AND_CANCEL)
        {
            return MALFORMED_MESSAGE;
        }
        final boolean immediate = timeInForce == IOC || timeInForce == FOK;
        if (ordType == LIMIT)
        {
            final int priceReason = checkPrice(rules, price);
            if (priceReason != 0)
            {
                return priceReason;
            }
            if (!immediate && timeInForce != DAY && timeInForce != GTC)
            {
                return MALFORMED_MESSAGE;
            }
        }
        else if (ordType != MARKET)
        {
            return MALFORMED_MESSAGE;
        }
        else if (!immediate)
        {
            return INVALID_ORDER_TYPE;
        }
        if ((postOnly || displayQuantity > 0) && (immediate || ordType == MARKET))
        {
            return INVALID_ORDER_TYPE;
        }
        if (!immediate && orders.find(account, clientOrderId) != NONE)
        {
            return DUPLICATE_CLIENT_ORDER_ID;
        }
        if (!orders.hasRoom() || (!immediate && !orders.accountHasRoom(account)))
        {
            return CAPACITY_EXCEEDED;
        }
        return 0;
    }

    static int checkPrice(final InstrumentRules rules, final long price)
    {
        if (!rules.tick.divides(price))
        {
            return TICK_SIZE;
        }
        if (price < rules.minPrice || price > rules.maxPrice)
        {
            return PRICE_BAND;
        }
        return 0;
    }

}
