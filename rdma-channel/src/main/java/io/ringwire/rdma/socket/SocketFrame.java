package io.ringwire.rdma.socket;

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
 * magic, destination queue pair number, source queue pair number.
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

    /** The requester asks for an acknowledgement of this request (like the BTH AckReq bit). */
    static final byte FLAG_ACK_REQUESTED = 1;

    static final int HELLO_MAGIC = 0x52575348; // "RWSH"
    static final int HELLO_MAGIC_OFFSET = 0;
    static final int HELLO_DESTINATION_QPN_OFFSET = 4;
    static final int HELLO_SOURCE_QPN_OFFSET = 8;
    static final int HELLO_LENGTH = 12;

    private SocketFrame()
    {
    }

    static boolean isRequest(final byte opcode)
    {
        return opcode == OPCODE_WRITE || opcode == OPCODE_WRITE_WITH_IMMEDIATE || opcode == OPCODE_SEND;
    }
}
