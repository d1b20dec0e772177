/**
 * The {@code socket} provider, the VMA-style fallback: reliable-connected queue pair semantics over
 * one TCP connection per queue pair, using only plain non-blocking BSD socket calls (connect,
 * accept, read, write, TCP_NODELAY) that libvma or rsocket intercept under LD_PRELOAD to move them
 * onto kernel bypass. Each work request becomes a frame (see {@link io.ringwire.rdma.socket.SocketFrame});
 * the receiving side applies it to its registered region with the same responder checks as a NIC
 * and produces the completion. Progress happens inside post and poll of the owning thread.
 */
package io.ringwire.rdma.socket;
