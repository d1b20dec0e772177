package io.ringwire.rdma.cm;

/**
 * The decoded body of a REJ.
 *
 * @param reason why, or MALFORMED when the peer sent a code this version does not know.
 * @param text   the peer's explanation, sanitised for logs and exception messages.
 */
record RejectMessage(RejectReason reason, String text)
{
}
