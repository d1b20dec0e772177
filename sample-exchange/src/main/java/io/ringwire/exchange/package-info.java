/**
 * The sample exchange: order book, matching engine, journal, gateway, market data, the FIX door and
 * the demo, and the one clock they stamp with ({@link io.ringwire.exchange.ExchangeClock}).
 */
package io.ringwire.exchange;
