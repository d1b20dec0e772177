package io.ringwire.rdma.socket;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Layout of the frames a socket queue pair exchanges on its TCP connection. All fields
 * little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                   frame length (header + payload)             |  0
 *  +---------------+---------------+-------------------------------+
 *  |    opcode     |     flags     |            reserved           |  4
 *  +---------------+---------------+-------------------------------+
 *  |                 sequence (64 bits, per direction)             |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 remote virtual address (64 bits)              | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                            rkey                               | 24
 *  +---------------------------------------------------------------+
 *  |               immediate (or NAK completion status)            | 28
 *  +---------------------------------------------------------------+
 *  |                       payload length                          | 32
 *  +---------------------------------------------------------------+
 *  |                         reserved                              | 36
 *  +---------------------------------------------------------------+
 *  |                       payload ...                             | 40
 * </pre>
 *
 * Requests (WRITE, WRITE_WITH_IMMEDIATE, SEND) carry consecutive sequence numbers starting at 0.
 * The responder answers with a cumulative ACK (sequence = last executed request) when a request
 * asked for one, and with a NAK (sequence = refused request, immediate = completion status for the
 * requester) when it refuses one; after a NAK it closes the connection.
 *
 * <p>A connection starts with a {@link #HELLO_LENGTH}-byte hello from the connecting side:
 * magic, destination queue pair number, source queue pair number, destination start PSN, source
 * start PSN. The two start PSNs are random and travel only in the connection manager's signed
 * (not encrypted) exchange, so the listener adopts a connection only from the peer it negotiated
 * with, not from anyone who reaches its port without having seen that exchange and guesses a
 * queue pair number.
 */
final class SocketFrame
{
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    static final int FRAME_LENGTH_OFFSET = 0;
    static final int OPCODE_OFFSET = 4;
    static final int FLAGS_OFFSET = 5;
    static final int SEQUENCE_OFFSET = 8;
    static final int REMOTE_ADDRESS_OFFSET = 16;
    static final int RKEY_OFFSET = 24;
    static final int IMMEDIATE_OFFSET = 28;
    static final int PAYLOAD_LENGTH_OFFSET = 32;
    static final int HEADER_LENGTH = 40;

    static final byte OPCODE_WRITE = 1;
    static final byte OPCODE_WRITE_WITH_IMMEDIATE = 2;
    static final byte OPCODE_SEND = 3;
    static final byte OPCODE_ACK = 4;
    static final byte OPCODE_NAK = 5;
    /**
     * Never sent: what the receiver writes over the opcode of an ACK or NAK it applied ahead of a
     * request waiting for a posted receive, so it passes over the frame when it reaches it.
     */
    static final byte OPCODE_APPLIED_AHEAD = 0x7F;

    /** The requester asks for an acknowledgement of this request (like the BTH AckReq bit). */
    static final byte FLAG_ACK_REQUESTED = 1;

    static final int HELLO_MAGIC = 0x52575348; // "RWSH"
    static final int HELLO_MAGIC_OFFSET = 0;
    static final int HELLO_DESTINATION_QPN_OFFSET = 4;
    static final int HELLO_SOURCE_QPN_OFFSET = 8;
    static final int HELLO_DESTINATION_PSN_OFFSET = 12;
    static final int HELLO_SOURCE_PSN_OFFSET = 16;
    static final int HELLO_LENGTH = 20;

    private SocketFrame()
    {
    }

    /**
     * Writes a request's header; its payload follows at {@code frame + HEADER_LENGTH}. Allocation-free.
     *
     * @param buffer        where the frame goes.
     * @param frame         index of the frame's first byte.
     * @param opcode        OPCODE_WRITE, OPCODE_WRITE_WITH_IMMEDIATE or OPCODE_SEND.
     * @param ackRequested  whether the responder must acknowledge it.
     * @param sequence      the request's sequence number.
     * @param remoteAddress destination (writes).
     * @param rkey          destination key (writes).
     * @param immediate     immediate (WRITE_WITH_IMMEDIATE).
     * @param payloadLength bytes of payload.
     */
    static void writeRequest(final MutableDirectBuffer buffer, final int frame, final byte opcode,
        final boolean ackRequested, final long sequence, final long remoteAddress, final int rkey, final int immediate,
        final int payloadLength)
    {
        buffer.putInt(frame + FRAME_LENGTH_OFFSET, HEADER_LENGTH + payloadLength, ORDER);
        buffer.putByte(frame + OPCODE_OFFSET, opcode);
        buffer.putByte(frame + FLAGS_OFFSET, ackRequested ? FLAG_ACK_REQUESTED : 0);
        buffer.putShort(frame + FLAGS_OFFSET + 1, (short)0);
        buffer.putLong(frame + SEQUENCE_OFFSET, sequence, ORDER);
        buffer.putLong(frame + REMOTE_ADDRESS_OFFSET, remoteAddress, ORDER);
        buffer.putInt(frame + RKEY_OFFSET, rkey, ORDER);
        buffer.putInt(frame + IMMEDIATE_OFFSET, immediate, ORDER);
        buffer.putInt(frame + PAYLOAD_LENGTH_OFFSET, payloadLength, ORDER);
        buffer.putInt(frame + PAYLOAD_LENGTH_OFFSET + 4, 0, ORDER);
    }

    /**
     * Writes an ACK or NAK, a header without payload. Allocation-free.
     *
     * @param buffer   where the frame goes.
     * @param frame    index of the frame's first byte.
     * @param opcode   OPCODE_ACK or OPCODE_NAK.
     * @param sequence the last executed request (ACK) or the refused one (NAK).
     * @param status   the requester's completion status (NAK), else 0.
     */
    static void writeAcknowledgement(final MutableDirectBuffer buffer, final int frame, final byte opcode,
        final long sequence, final int status)
    {
        buffer.setMemory(frame, HEADER_LENGTH, (byte)0);
        buffer.putInt(frame + FRAME_LENGTH_OFFSET, HEADER_LENGTH, ORDER);
        buffer.putByte(frame + OPCODE_OFFSET, opcode);
        buffer.putLong(frame + SEQUENCE_OFFSET, sequence, ORDER);
        buffer.putInt(frame + IMMEDIATE_OFFSET, status, ORDER);
    }

    /**
     * @param buffer holding a frame.
     * @param frame  index of its first byte.
     * @return its sequence number.
     */
    static long sequence(final DirectBuffer buffer, final int frame)
    {
        return buffer.getLong(frame + SEQUENCE_OFFSET, ORDER);
    }

    /**
     * @param destinationQpn the queue pair the connection is for.
     * @param sourceQpn      the queue pair that connects.
     * @param destinationPsn the destination's start PSN, as its connection manager message gave it.
     * @param sourcePsn      the connecting queue pair's start PSN.
     * @return the hello, ready to write.
     */
    static ByteBuffer hello(final int destinationQpn, final int sourceQpn, final int destinationPsn,
        final int sourcePsn)
    {
        final ByteBuffer hello = ByteBuffer.allocate(HELLO_LENGTH).order(ORDER);
        hello.putInt(HELLO_MAGIC_OFFSET, HELLO_MAGIC)
            .putInt(HELLO_DESTINATION_QPN_OFFSET, destinationQpn)
            .putInt(HELLO_SOURCE_QPN_OFFSET, sourceQpn)
            .putInt(HELLO_DESTINATION_PSN_OFFSET, destinationPsn)
            .putInt(HELLO_SOURCE_PSN_OFFSET, sourcePsn);
        return hello;
    }
}
