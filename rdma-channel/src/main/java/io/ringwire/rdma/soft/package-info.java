/**
 * The software transport base shared by the software providers (shm, socket, roce): the device and
 * provider skeleton ({@link io.ringwire.rdma.soft.SoftDevice}, {@link io.ringwire.rdma.soft.SoftProvider}),
 * an in-process completion queue that drives progress, memory regions and their key registry with
 * the responder's access checks, and the queue-pair state machine with its send and receive queues
 * and flush rules. Provider packages depend on this package and on the API, never on each other.
 */
package io.ringwire.rdma.soft;
