/**
 * The messaging wire protocol: how frames lie in a subscriber's ring
 * ({@link io.ringwire.messaging.protocol.FrameDescriptor}), the credit region a subscriber writes
 * back ({@link io.ringwire.messaging.protocol.CreditLayout}), the JOIN message
 * ({@link io.ringwire.messaging.protocol.JoinLayout}) and the setup exchanged on connection
 * ({@link io.ringwire.messaging.protocol.SessionSetup}). Nothing here touches a queue pair: these
 * are layouts and pure functions over buffers, shared by publications and subscriptions.
 */
package io.ringwire.messaging.protocol;
