package io.ringwire.rdma.roce;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

import static io.ringwire.rdma.roce.RoceWire.*;

/**
 * Flyweight that parses one RoCEv2 packet (BTH through ICRC) in place, checking that every header
 * the opcode needs, the pad and the ICRC fit in the datagram, and encoder of the same packets.
 * After a successful {@link #parse}, the accessors hold the decoded fields; nothing is allocated.
 *
 * <p>Threading: one instance per thread.
 */
final class RocePacket
{
    /** {@link #parse} result: well formed. */
    static final int VALID = 0;
    /** Shorter than a BTH plus ICRC, or shorter than the opcode's headers plus pad. */
    static final int TRUNCATED = -1;
    /**
     * Opcode is not an RC SEND, RDMA WRITE, ACKNOWLEDGE, or an RDMA READ request or atomic (which
     * parse, so that the responder can refuse them).
     */
    static final int UNSUPPORTED_OPCODE = -2;
    /** Transport header version is not 0. */
    static final int BAD_VERSION = -3;

    private static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    private int opcode;
    private int flags;
    private int partitionKey;
    private int destinationQp;
    private boolean ackRequested;
    private int psn;
    private long virtualAddress;
    private int rkey;
    private int dmaLength;
    private int immediate;
    private int syndrome;
    private int messageSequenceNumber;
    private int payloadOffset;
    private int payloadLength;
    private int packetLength;

    /**
     * Parses a packet.
     *
     * @param buffer holding it.
     * @param offset of the BTH.
     * @param length bytes from the BTH through the ICRC.
     * @return {@link #VALID} or a negative reason.
     */
    int parse(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < BTH_LENGTH + Icrc.LENGTH)
        {
            return TRUNCATED;
        }
        opcode = buffer.getByte(offset + BTH_OPCODE_OFFSET) & 0xFF;
        flags = buffer.getByte(offset + BTH_FLAGS_OFFSET) & 0xFF;
        if ((flags & BTH_TVER_MASK) != 0)
        {
            return BAD_VERSION;
        }
        final int extension = extensionHeaderLength(opcode);
        if (extension < 0)
        {
            return UNSUPPORTED_OPCODE;
        }
        final int pad = (flags & BTH_PAD_MASK) >>> BTH_PAD_SHIFT;
        final int payload = length - BTH_LENGTH - extension - pad - Icrc.LENGTH;
        if (payload < 0)
        {
            return TRUNCATED;
        }
        partitionKey = buffer.getShort(offset + BTH_PKEY_OFFSET, NETWORK) & 0xFFFF;
        destinationQp = buffer.getInt(offset + BTH_DEST_QP_OFFSET, NETWORK) & 0xFF_FFFF;
        final int ackWord = buffer.getInt(offset + BTH_PSN_OFFSET, NETWORK);
        ackRequested = (ackWord & 0x8000_0000) != 0;
        psn = ackWord & PSN_MASK;

        int position = offset + BTH_LENGTH;
        virtualAddress = 0;
        rkey = 0;
        dmaLength = 0;
        immediate = 0;
        syndrome = 0;
        messageSequenceNumber = 0;
        if (hasReth(opcode) || opcode == READ_REQUEST)
        {
            virtualAddress = buffer.getLong(position + RETH_VA_OFFSET, NETWORK);
            rkey = buffer.getInt(position + RETH_RKEY_OFFSET, NETWORK);
            dmaLength = buffer.getInt(position + RETH_DMA_LENGTH_OFFSET, NETWORK);
            position += RETH_LENGTH;
        }
        if (hasImmediate(opcode))
        {
            immediate = buffer.getInt(position, NETWORK);
            position += IMMDT_LENGTH;
        }
        if (opcode == ACKNOWLEDGE)
        {
            final int aeth = buffer.getInt(position, NETWORK);
            syndrome = aeth >>> 24;
            messageSequenceNumber = aeth & MSN_MASK;
            position += AETH_LENGTH;
        }
        if (opcode == COMPARE_SWAP || opcode == FETCH_ADD)
        {
            position += ATOMIC_ETH_LENGTH;
        }
        payloadOffset = position;
        payloadLength = payload;
        packetLength = length;
        return VALID;
    }

    /**
     * Writes the headers of a request packet. The caller then puts the payload at
     * {@code offset + requestHeaderLength(opcode)} and calls {@link #finish}.
     *
     * @return the offset of the payload in the buffer.
     */
    static int writeRequestHeaders(
        final MutableDirectBuffer buffer,
        final int offset,
        final int opcode,
        final int partitionKey,
        final int destinationQp,
        final boolean ackRequest,
        final int psn,
        final long virtualAddress,
        final int rkey,
        final int dmaLength,
        final int immediate,
        final int payloadLength)
    {
        final int pad = (4 - (payloadLength & 3)) & 3;
        writeBth(buffer, offset, opcode, pad, partitionKey, destinationQp, ackRequest, psn);
        int position = offset + BTH_LENGTH;
        if (hasReth(opcode))
        {
            buffer.putLong(position + RETH_VA_OFFSET, virtualAddress, NETWORK);
            buffer.putInt(position + RETH_RKEY_OFFSET, rkey, NETWORK);
            buffer.putInt(position + RETH_DMA_LENGTH_OFFSET, dmaLength, NETWORK);
            position += RETH_LENGTH;
        }
        if (hasImmediate(opcode))
        {
            buffer.putInt(position, immediate, NETWORK);
            position += IMMDT_LENGTH;
        }
        return position;
    }

    /**
     * Writes an ACKNOWLEDGE packet without its ICRC.
     *
     * @return the offset after the AETH (where the ICRC goes).
     */
    static int writeAcknowledge(
        final MutableDirectBuffer buffer,
        final int offset,
        final int partitionKey,
        final int destinationQp,
        final int psn,
        final int syndrome,
        final int messageSequenceNumber)
    {
        writeBth(buffer, offset, ACKNOWLEDGE, 0, partitionKey, destinationQp, false, psn);
        buffer.putInt(offset + BTH_LENGTH, (syndrome << 24) | (messageSequenceNumber & MSN_MASK), NETWORK);
        return offset + BTH_LENGTH + AETH_LENGTH;
    }

    /**
     * Zeroes the pad after a payload.
     *
     * @return the packet length through the ICRC.
     */
    static int finish(final MutableDirectBuffer buffer, final int offset, final int payloadEnd)
    {
        final int pad = (4 - ((payloadEnd - offset) & 3)) & 3;
        for (int i = 0; i < pad; i++)
        {
            buffer.putByte(payloadEnd + i, (byte)0);
        }
        return payloadEnd + pad - offset + Icrc.LENGTH;
    }

    private static void writeBth(
        final MutableDirectBuffer buffer,
        final int offset,
        final int opcode,
        final int pad,
        final int partitionKey,
        final int destinationQp,
        final boolean ackRequest,
        final int psn)
    {
        buffer.putByte(offset + BTH_OPCODE_OFFSET, (byte)opcode);
        buffer.putByte(offset + BTH_FLAGS_OFFSET, (byte)(pad << BTH_PAD_SHIFT));
        buffer.putShort(offset + BTH_PKEY_OFFSET, (short)partitionKey, NETWORK);
        buffer.putInt(offset + BTH_DEST_QP_OFFSET, destinationQp & 0xFF_FFFF, NETWORK);
        buffer.putInt(offset + BTH_PSN_OFFSET, (ackRequest ? 0x8000_0000 : 0) | (psn & PSN_MASK), NETWORK);
    }

    int opcode()
    {
        return opcode;
    }

    boolean solicited()
    {
        return (flags & BTH_SOLICITED) != 0;
    }

    int padCount()
    {
        return (flags & BTH_PAD_MASK) >>> BTH_PAD_SHIFT;
    }

    int partitionKey()
    {
        return partitionKey;
    }

    int destinationQp()
    {
        return destinationQp;
    }

    boolean ackRequested()
    {
        return ackRequested;
    }

    int psn()
    {
        return psn;
    }

    long virtualAddress()
    {
        return virtualAddress;
    }

    int rkey()
    {
        return rkey;
    }

    int dmaLength()
    {
        return dmaLength;
    }

    int immediate()
    {
        return immediate;
    }

    int syndrome()
    {
        return syndrome;
    }

    int messageSequenceNumber()
    {
        return messageSequenceNumber;
    }

    int payloadOffset()
    {
        return payloadOffset;
    }

    int payloadLength()
    {
        return payloadLength;
    }

    int packetLength()
    {
        return packetLength;
    }
}
