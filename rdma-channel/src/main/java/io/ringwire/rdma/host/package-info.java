/**
 * Facts about the host that several modules size themselves by (the online CPUs and the kernel's
 * CPU list format), and what the providers' foreign calls into the host's libraries share.
 */
package io.ringwire.rdma.host;
