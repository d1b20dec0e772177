/**
 * Publications and subscriptions over remote ring buffers. Filled in by the messaging issue.
 */
package io.ringwire.messaging;
