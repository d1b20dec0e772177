/**
 * RingWire's one logging path: every {@link java.lang.System.Logger} in the process (RingWire's own,
 * and SLF4J's through the bridge in {@code messaging}) writes one line per event to stderr in one
 * format, {@code LEVEL component: message (cause chain)}, and nothing below WARNING unless
 * {@code ringwire.log.level} asks for it. A command's output is its own.
 */
package io.ringwire.rdma.logging;
