/**
 * Parsing of RingWire's settings ({@code ringwire.*} properties, channel parameters, command-line
 * options) and endpoint addresses, in one place, so every refusal names the setting, the value and
 * what is allowed in the same words.
 */
package io.ringwire.rdma.config;
