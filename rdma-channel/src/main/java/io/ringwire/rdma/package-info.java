/**
 * The verbs-shaped RDMA API (provider, device, protection domain, memory region, completion
 * queue, queue pair, connection manager) and its providers. Filled in by the rdma-channel issue.
 */
package io.ringwire.rdma;
