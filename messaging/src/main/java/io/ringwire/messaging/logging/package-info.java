/**
 * SLF4J's service provider for RingWire: what libraries log through SLF4J (OpenHFT affinity) takes
 * the process's one logging path ({@code io.ringwire.rdma.logging}).
 */
package io.ringwire.messaging.logging;
