/**
 * The exchange's roles as deployable units: a config file per role (engine, gateway, market data,
 * the demo's clients) in a form a person edits, parsed with refusals that name the file, the line
 * and what is allowed; and the demo's writer of such files.
 */
package io.ringwire.exchange.config;
