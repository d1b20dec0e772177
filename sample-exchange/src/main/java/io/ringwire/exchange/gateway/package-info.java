/**
 * The exchange gateway's logic as pure classes, with no transport and no threads, so the agents
 * that carry it over RingWire messaging stay thin and the rules can be tested byte for byte.
 * {@link io.ringwire.exchange.gateway.Gateway} takes client messages and engine messages and says
 * what to send through {@link io.ringwire.exchange.gateway.GatewayOutput}: sessions with logon,
 * heartbeats and cancel-on-disconnect (CME iLink 3), pre-trade risk and a per-session rate limit,
 * duplicate client order ids refused so a client may resend safely (Nasdaq OUCH), requests stamped
 * with the gateway's times for the engine, and execution reports routed back by account.
 */
package io.ringwire.exchange.gateway;
