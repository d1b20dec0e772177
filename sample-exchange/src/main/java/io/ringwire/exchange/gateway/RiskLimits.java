package io.ringwire.exchange.gateway;

/**
 * The gateway's pre-trade risk limits, the same for every account.
 *
 * @param maxOrderQuantity        largest quantity one order may have.
 * @param maxNotional             largest |price| x quantity one order may have, in price units x quantity.
 * @param priceBandTicks          how many of the instrument's ticks a LIMIT price may lie from the
 *                                instrument's last trade.
 * @param maxOpenOrdersPerAccount orders an account may have open (forwarded and not yet terminal).
 */
public record RiskLimits(long maxOrderQuantity, long maxNotional, long priceBandTicks, int maxOpenOrdersPerAccount)
{
    /**
     * Validates the values.
     */
    public RiskLimits
    {
        if (maxOrderQuantity < 1 || maxNotional < 1 || priceBandTicks < 0 || maxOpenOrdersPerAccount < 1)
        {
            throw new IllegalArgumentException("risk limits: maxOrderQuantity, maxNotional and " +
                "maxOpenOrdersPerAccount must be at least 1 and priceBandTicks at least 0: " + maxOrderQuantity + ", " +
                maxNotional + ", " + maxOpenOrdersPerAccount + ", " + priceBandTicks);
        }
    }
}
