/**
 * Where the benchmarks' threads run and how they behave: CPU plans that keep to the spinning threads
 * the machine has, pinning, the busy-polling task every ping and pong side extends, and the
 * per-thread allocation and JIT checks that prove a measured loop steady.
 */
package io.ringwire.perf.host;
