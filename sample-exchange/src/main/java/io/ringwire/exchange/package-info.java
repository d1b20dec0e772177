/**
 * The sample exchange: order book, matching engine, gateway, market data and the demo. Not built
 * yet: {@code ./ringwire demo} says so until it is.
 */
package io.ringwire.exchange;
