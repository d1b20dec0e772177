/**
 * Market data from the engine's order-level feed: {@link io.ringwire.exchange.marketdata.MarketDataBooks}
 * rebuilds every instrument's book from the incrementals and recovers a book from a snapshot after
 * a gap, {@link io.ringwire.exchange.marketdata.SnapshotEncoder} answers snapshot requests from a
 * replica's books, and {@link io.ringwire.exchange.marketdata.PublicBookDigest} compares a replica
 * with the engine's books.
 */
package io.ringwire.exchange.marketdata;
