package io.ringwire.rdma.cm;

/**
 * One frame as read from the management connection, with its header already checked (see
 * {@link WireFormat}). Whether its signature verifies is for the reader to check.
 *
 * @param type    the message type.
 * @param version the protocol version in the header.
 * @param signed    header and body: the bytes the signature covers.
 * @param body      the body alone.
 * @param signature what followed the body: the sender's Ed25519 signature (an old version's tag).
 */
record Frame(MessageType type, int version, byte[] signed, byte[] body, byte[] signature)
{
}
