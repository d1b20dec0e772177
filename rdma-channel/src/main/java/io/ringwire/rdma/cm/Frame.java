package io.ringwire.rdma.cm;

/**
 * One frame as read from the management connection, with its header already checked (see
 * {@link WireFormat}). Whether its tag verifies is for the reader to check.
 *
 * @param type    the message type.
 * @param version the protocol version in the header.
 * @param signed  header and body: the bytes the tag covers.
 * @param body    the body alone.
 * @param tag     the HMAC-SHA256 tag that followed the body.
 */
record Frame(MessageType type, int version, byte[] signed, byte[] body, byte[] tag)
{
}
