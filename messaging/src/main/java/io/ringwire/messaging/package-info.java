/**
 * Publications and subscriptions over remote ring buffers, with Aeron's semantics: a
 * {@link io.ringwire.messaging.Publication} encodes frames in place into registered staging
 * memory and writes each into its subscribers' rings with one RDMA WRITE WITH IMMEDIATE; a
 * {@link io.ringwire.messaging.Subscription} busy-polls one completion queue for all its
 * publishers and hands each frame to a handler where it lies in the ring. Flow control is by
 * credits the subscriber writes back with one-sided RDMA WRITEs; nothing is ever overwritten unread.
 */
package io.ringwire.messaging;
