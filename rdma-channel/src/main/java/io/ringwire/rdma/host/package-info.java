/**
 * Facts about the host that several modules size themselves by: the online CPUs and the kernel's
 * CPU list format.
 */
package io.ringwire.rdma.host;
