package io.ringwire.rdma.roce;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static io.ringwire.rdma.roce.RoceWire.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wire vectors: packets captured from the Linux kernel's rxe ({@code ib_write_lat}, and 4 KiB
 * SENDs at a 1024-byte MTU) parse into the right fields, and our encoder re-creates every one of
 * them byte for byte, ICRC included; packets of every kind we emit parse back to what was encoded.
 */
class RoceWireVectorTest
{
    private final RocePacket packet = new RocePacket();
    private final Icrc icrc = new Icrc();

    private RocePacket parse(final Pcap.Packet p)
    {
        assertEquals(RocePacket.VALID, packet.parse(new UnsafeBuffer(p.udpPayload()), 0, p.length()));
        assertEquals(DEFAULT_UDP_PORT, p.destinationPort());
        return packet;
    }

    @Test
    void everyWriteLatencyPacketParsesIntoTheCapturedFields() throws Exception
    {
        final List<Pcap.Packet> packets = Pcap.read(Pcap.testData("rxe-write-lat.pcap"));
        assertEquals(200, packets.size());
        int psnTo15 = 0x292E08;
        int psnTo11 = 0xD75473;
        int msnFrom11 = 0;
        int msnFrom15 = 0;
        for (int i = 0; i < packets.size(); i += 2)
        {
            final boolean towards15 = (i / 2) % 2 == 0;
            final RocePacket write = parse(packets.get(i));
            assertEquals(WRITE_ONLY, write.opcode(), "packet " + i);
            assertEquals(towards15 ? 0x15 : 0x11, write.destinationQp());
            assertEquals(towards15 ? psnTo15 : psnTo11, write.psn());
            assertTrue(write.ackRequested(), "the only packet of a message asks for an ACK");
            assertEquals(0xFFFF, write.partitionKey());
            assertEquals(towards15 ? 0x55F661C28000L : 0x55CCCC98D000L, write.virtualAddress());
            assertEquals(towards15 ? 0x67B : 0x2DF, write.rkey());
            assertEquals(2, write.dmaLength());
            assertEquals(2, write.payloadLength());
            assertEquals(2, write.padCount());
            assertEquals(BTH_LENGTH + RETH_LENGTH, write.payloadOffset());

            final RocePacket ack = parse(packets.get(i + 1));
            assertEquals(ACKNOWLEDGE, ack.opcode(), "packet " + (i + 1));
            assertEquals(towards15 ? 0x11 : 0x15, ack.destinationQp(), "the ACK goes back to the requester");
            assertEquals(towards15 ? psnTo15 : psnTo11, ack.psn(), "it acknowledges the write's PSN");
            assertEquals(AETH_ACK | AETH_CREDITS_UNLIMITED, ack.syndrome());
            assertEquals(towards15 ? ++msnFrom15 : ++msnFrom11, ack.messageSequenceNumber());
            assertFalse(ack.ackRequested());
            assertEquals(0, ack.payloadLength());
            if (towards15)
            {
                psnTo15++;
            }
            else
            {
                psnTo11++;
            }
        }
    }

    @Test
    void everySendPacketParsesAsFirstMiddleMiddleLastOfOneKibibyteEach() throws Exception
    {
        final List<Pcap.Packet> packets = Pcap.read(Pcap.testData("rxe-send-4k.pcap"));
        assertEquals(120, packets.size());
        final int[] opcodes = { SEND_FIRST, SEND_MIDDLE, SEND_MIDDLE, SEND_LAST };
        for (int i = 0; i < packets.size(); i++)
        {
            final RocePacket send = parse(packets.get(i));
            final int position = i % 4;
            assertEquals(opcodes[position], send.opcode(), "packet " + i);
            assertEquals(0x100, send.destinationQp());
            // The capture is a requester retransmitting the same message (go-back-N from its first PSN).
            assertEquals(0x716250 + position, send.psn());
            assertEquals(position == 3, send.ackRequested(), "AckReq on the LAST packet only");
            assertEquals(1024, send.payloadLength());
            assertEquals(0, send.padCount());
            assertEquals(BTH_LENGTH, send.payloadOffset(), "SEND packets carry no RETH");
        }
    }

    @Test
    void ourEncoderRecreatesEveryCapturedPacketByteForByteIcrcIncluded() throws Exception
    {
        int compared = 0;
        for (final String file : new String[]{ "rxe-write-lat.pcap", "rxe-send-4k.pcap" })
        {
            for (final Pcap.Packet captured : Pcap.read(Pcap.testData(file)))
            {
                final RocePacket fields = parse(captured);
                final ByteBuffer memory = ByteBuffer.allocateDirect(captured.length());
                final UnsafeBuffer ours = new UnsafeBuffer(memory);
                final int end;
                if (fields.opcode() == ACKNOWLEDGE)
                {
                    end = RocePacket.writeAcknowledge(ours, 0, fields.partitionKey(), fields.destinationQp(), fields.psn(),
                        fields.syndrome(), fields.messageSequenceNumber()) + Icrc.LENGTH;
                }
                else
                {
                    final int payloadIndex = RocePacket.writeRequestHeaders(ours, 0, fields.opcode(), fields.partitionKey(),
                        fields.destinationQp(), fields.ackRequested(), fields.psn(), fields.virtualAddress(), fields.rkey(),
                        fields.dmaLength(), fields.immediate(), fields.payloadLength());
                    ours.putBytes(payloadIndex, new UnsafeBuffer(captured.udpPayload()), fields.payloadOffset(),
                        fields.payloadLength());
                    end = RocePacket.finish(ours, 0, payloadIndex + fields.payloadLength());
                }
                assertEquals(captured.length(), end, "length of packet " + compared);
                final int crc = IcrcReference.compute(icrc, captured.sourceAddress(), captured.destinationAddress(),
                    captured.ipIdentification(), captured.sourcePort(), captured.destinationPort(), memory, 0, end);
                ours.putInt(end - Icrc.LENGTH, crc, ByteOrder.LITTLE_ENDIAN);
                assertArrayEquals(bytes(captured.udpPayload()), bytes(memory), "packet " + compared + " of " + file);
                compared++;
            }
        }
        assertEquals(320, compared);
    }

    @Test
    void packetsOfEveryKindWeEmitParseBackAndPassTheIcrcCheck()
    {
        final int source = 0x0A000001;
        final int destination = 0x0A000002;
        final int[][] requests = {
            { WRITE_ONLY, 64 }, { WRITE_FIRST, 1024 }, { WRITE_MIDDLE, 1024 }, { WRITE_LAST, 37 },
            { WRITE_LAST_WITH_IMMEDIATE, 1 }, { WRITE_ONLY_WITH_IMMEDIATE, 0 }, { SEND_ONLY, 5 }, { SEND_FIRST, 1024 } };
        for (final int[] request : requests)
        {
            final int opcode = request[0];
            final int payloadLength = request[1];
            final ByteBuffer memory = ByteBuffer.allocateDirect(2048);
            final UnsafeBuffer buffer = new UnsafeBuffer(memory);
            final int payloadIndex = RocePacket.writeRequestHeaders(buffer, 0, opcode, 0xFFFF, 0x123456, true, 0xFFFFFE,
                0x7F00_1234_5678L, 0xABCD, 4096, 0xCAFEF00D, payloadLength);
            for (int i = 0; i < payloadLength; i++)
            {
                buffer.putByte(payloadIndex + i, (byte)(i * 7));
            }
            final int length = RocePacket.finish(buffer, 0, payloadIndex + payloadLength);
            assertEquals(0, length % 4, "padded to 4 bytes");
            buffer.putInt(length - Icrc.LENGTH, IcrcReference.compute(icrc, source, destination, 0, 0xC123, DEFAULT_UDP_PORT, memory, 0,
                length), ByteOrder.LITTLE_ENDIAN);

            assertEquals(RocePacket.VALID, packet.parse(buffer, 0, length), opcodeName(opcode));
            assertEquals(opcode, packet.opcode());
            assertEquals(0x123456, packet.destinationQp());
            assertEquals(0xFFFFFE, packet.psn());
            assertTrue(packet.ackRequested());
            assertEquals(payloadLength, packet.payloadLength(), opcodeName(opcode));
            assertEquals(hasReth(opcode) ? 0x7F00_1234_5678L : 0, packet.virtualAddress());
            assertEquals(hasReth(opcode) ? 0xABCD : 0, packet.rkey());
            assertEquals(hasReth(opcode) ? 4096 : 0, packet.dmaLength());
            assertEquals(hasImmediate(opcode) ? 0xCAFEF00D : 0, packet.immediate());
            for (int i = 0; i < payloadLength; i++)
            {
                assertEquals((byte)(i * 7), buffer.getByte(packet.payloadOffset() + i));
            }
            assertEquals(buffer.getInt(length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN),
                IcrcReference.compute(icrc, source, destination, 0, 0xC123, DEFAULT_UDP_PORT, memory, 0, length), "ICRC verifies");
        }

        final ByteBuffer memory = ByteBuffer.allocateDirect(64);
        final UnsafeBuffer buffer = new UnsafeBuffer(memory);
        final int length = RocePacket.writeAcknowledge(buffer, 0, 0xFFFF, 0x11, 0x000001, AETH_NAK_PSN_SEQUENCE_ERROR, 77) +
            Icrc.LENGTH;
        assertEquals(RocePacket.VALID, packet.parse(buffer, 0, length));
        assertEquals(ACKNOWLEDGE, packet.opcode());
        assertEquals(AETH_NAK_PSN_SEQUENCE_ERROR, packet.syndrome());
        assertEquals(77, packet.messageSequenceNumber());
        assertEquals(1, packet.psn());
    }

    @Test
    void malformedPacketsAreRefusedWithAReason()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(RocePacket.TRUNCATED, packet.parse(buffer, 0, BTH_LENGTH + Icrc.LENGTH - 1));
        buffer.putByte(0, (byte)0x0D); // RDMA READ RESPONSE FIRST: this stack never reads, so never expects one
        assertEquals(RocePacket.UNSUPPORTED_OPCODE, packet.parse(buffer, 0, 64));
        buffer.putByte(0, (byte)0x64); // UC SEND FIRST: RC only
        assertEquals(RocePacket.UNSUPPORTED_OPCODE, packet.parse(buffer, 0, 64));
        buffer.putByte(0, (byte)READ_REQUEST); // parses (BTH + RETH), so that the responder can refuse it
        assertEquals(RocePacket.VALID, packet.parse(buffer, 0, BTH_LENGTH + RETH_LENGTH + Icrc.LENGTH));
        assertEquals(RocePacket.TRUNCATED, packet.parse(buffer, 0, BTH_LENGTH + RETH_LENGTH + Icrc.LENGTH - 1));
        buffer.putByte(0, (byte)FETCH_ADD); // BTH + AtomicETH
        assertEquals(RocePacket.TRUNCATED, packet.parse(buffer, 0, BTH_LENGTH + ATOMIC_ETH_LENGTH + Icrc.LENGTH - 1));
        buffer.putByte(0, (byte)WRITE_ONLY);
        assertEquals(RocePacket.TRUNCATED, packet.parse(buffer, 0, BTH_LENGTH + RETH_LENGTH + Icrc.LENGTH - 1),
            "RETH does not fit");
        buffer.putByte(1, (byte)0x01); // transport version 1
        assertEquals(RocePacket.BAD_VERSION, packet.parse(buffer, 0, 64));
        buffer.putByte(1, (byte)0x30); // pad 3 on an empty payload
        assertEquals(RocePacket.TRUNCATED, packet.parse(buffer, 0, BTH_LENGTH + RETH_LENGTH + Icrc.LENGTH + 2));
    }

    @Test
    void psnArithmeticWrapsAt24Bits()
    {
        assertEquals(0, nextPsn(0xFFFFFF));
        assertEquals(1, psnDistance(0, 0xFFFFFF));
        assertEquals(-1, psnDistance(0xFFFFFF, 0));
        assertEquals(0x7FFFFF, psnDistance(0x7FFFFF, 0));
        assertEquals(0xFFFFFE, addPsn(0, -2));
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.capacity()];
        buffer.duplicate().clear().get(bytes);
        return bytes;
    }
}
