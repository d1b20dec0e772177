package io.ringwire.exchange.book;

/**
 * One resting order as a snapshot keeps it: every field the rules read, and its time priority.
 */
public record RestingOrder(long orderId, long clientOrderId, long account, int instrumentId, byte side, byte ordType,
    byte timeInForce, byte selfTradePrevention, boolean postOnly, long price, long quantity, long leaves, long shown,
    long peak, long filled, long priority)
{
}
