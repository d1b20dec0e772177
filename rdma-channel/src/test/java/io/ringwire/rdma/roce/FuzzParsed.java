package io.ringwire.rdma.roce;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * The bad-input test's own reading of a RoCEv2 RC packet (IBA vol. 1 ch. 9: BTH, then RETH / ImmDt /
 * AETH by opcode, payload, pad, ICRC), written from the spec rather than from {@link RocePacket} so
 * that the model predicting the device's behaviour does not share the parser under test.
 *
 * <p>Reusable: {@link #parse} overwrites every field. Not thread-safe.
 */
final class FuzzParsed
{
    static final int BTH_LENGTH = 12;
    static final int ICRC_LENGTH = 4;
    static final int ACKNOWLEDGE = 0x11;
    static final int READ_REQUEST = 0x0C;
    static final int COMPARE_SWAP = 0x13;
    static final int FETCH_ADD = 0x14;

    int length;
    int opcode;
    int padCount;
    int partitionKey;
    int destinationQp;
    boolean ackRequest;
    int psn;
    long virtualAddress;
    int rkey;
    int dmaLength;
    int immediate;
    int syndrome;
    int messageSequenceNumber;
    int payloadOffset;
    int payloadLength;

    /** @return true for RDMA READ and the atomics: well formed, but refused by the responder. */
    static boolean isRefusedOperation(final int opcode)
    {
        return opcode == READ_REQUEST || opcode == COMPARE_SWAP || opcode == FETCH_ADD;
    }

    static boolean isRequest(final int opcode)
    {
        return opcode >= 0x00 && opcode <= 0x0B;
    }

    static boolean isWrite(final int opcode)
    {
        return opcode >= 0x06 && opcode <= 0x0B;
    }

    static boolean hasReth(final int opcode)
    {
        return opcode == 0x06 || opcode == 0x0A || opcode == 0x0B;
    }

    static boolean hasImmediate(final int opcode)
    {
        return opcode == 0x03 || opcode == 0x05 || opcode == 0x09 || opcode == 0x0B;
    }

    static boolean startsMessage(final int opcode)
    {
        return opcode == 0x00 || opcode == 0x04 || opcode == 0x05 || opcode == 0x06 || opcode == 0x0A ||
            opcode == 0x0B;
    }

    static boolean endsMessage(final int opcode)
    {
        return opcode == 0x02 || opcode == 0x03 || opcode == 0x04 || opcode == 0x05 || opcode == 0x08 ||
            opcode == 0x09 || opcode == 0x0A || opcode == 0x0B;
    }

    /**
     * @return true when the bytes are a well-formed RC SEND, RDMA WRITE or ACKNOWLEDGE packet: at
     *         least a BTH and an ICRC, transport version 0, and room for the opcode's headers and pad.
     */
    boolean parse(final DirectBuffer buffer, final int length)
    {
        this.length = length;
        if (length < BTH_LENGTH + ICRC_LENGTH)
        {
            return false;
        }
        opcode = buffer.getByte(0) & 0xFF;
        final int flags = buffer.getByte(1) & 0xFF;
        padCount = (flags >>> 4) & 0x3;
        if ((flags & 0x0F) != 0)
        {
            return false;
        }
        final int extension;
        if (opcode == ACKNOWLEDGE)
        {
            extension = 4;
        }
        else if (isRequest(opcode))
        {
            extension = (hasReth(opcode) ? 16 : 0) + (hasImmediate(opcode) ? 4 : 0);
        }
        else if (opcode == READ_REQUEST)
        {
            extension = 16; // RETH
        }
        else if (opcode == COMPARE_SWAP || opcode == FETCH_ADD)
        {
            extension = 28; // AtomicETH
        }
        else
        {
            return false;
        }
        payloadLength = length - BTH_LENGTH - extension - padCount - ICRC_LENGTH;
        if (payloadLength < 0)
        {
            return false;
        }
        partitionKey = buffer.getShort(2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        destinationQp = buffer.getInt(4, ByteOrder.BIG_ENDIAN) & 0xFF_FFFF;
        final int word = buffer.getInt(8, ByteOrder.BIG_ENDIAN);
        ackRequest = word < 0;
        psn = word & 0xFF_FFFF;
        virtualAddress = 0;
        rkey = 0;
        dmaLength = 0;
        immediate = 0;
        syndrome = 0;
        messageSequenceNumber = 0;
        int position = BTH_LENGTH;
        if (hasReth(opcode) || opcode == READ_REQUEST)
        {
            virtualAddress = buffer.getLong(position, ByteOrder.BIG_ENDIAN);
            rkey = buffer.getInt(position + 8, ByteOrder.BIG_ENDIAN);
            dmaLength = buffer.getInt(position + 12, ByteOrder.BIG_ENDIAN);
            position += 16;
        }
        if (hasImmediate(opcode))
        {
            immediate = buffer.getInt(position, ByteOrder.BIG_ENDIAN);
            position += 4;
        }
        if (opcode == ACKNOWLEDGE)
        {
            final int aeth = buffer.getInt(position, ByteOrder.BIG_ENDIAN);
            syndrome = aeth >>> 24;
            messageSequenceNumber = aeth & 0xFF_FFFF;
            position += 4;
        }
        if (opcode == COMPARE_SWAP || opcode == FETCH_ADD)
        {
            position += 28;
        }
        payloadOffset = position;
        return true;
    }

    /** @return (a - b) in 24-bit PSN space, as a signed distance. */
    static int psnDistance(final int a, final int b)
    {
        return ((a - b) << 8) >> 8;
    }
}
