package io.ringwire.rdma.roce;

import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The ICRC against packets captured from the Linux kernel's rxe.
 */
class IcrcTest
{
    private final Icrc icrc = new Icrc();

    private static int storedIcrc(final Pcap.Packet p)
    {
        return p.udpPayload().order(ByteOrder.LITTLE_ENDIAN).getInt(p.length() - Icrc.LENGTH);
    }

    private List<Pcap.Packet> allPackets() throws Exception
    {
        final List<Pcap.Packet> packets = new java.util.ArrayList<>(Pcap.read(Pcap.testData("rxe-write-lat.pcap")));
        packets.addAll(Pcap.read(Pcap.testData("rxe-send-4k.pcap")));
        assertFalse(packets.isEmpty());
        return packets;
    }

    @Test
    void icrcOfEveryCapturedRxePacketEqualsTheOneInThePacket() throws Exception
    {
        int checked = 0;
        for (final Pcap.Packet p : allPackets())
        {
            assertEquals(0x4000, p.ipFlags(), "rxe sets Don't Fragment");
            final int computed = IcrcReference.compute(icrc, p.sourceAddress(), p.destinationAddress(), p.ipIdentification(),
                p.sourcePort(), p.destinationPort(), p.udpPayload(), 0, p.length());
            assertEquals(storedIcrc(p), computed, "packet " + checked);
            checked++;
        }
        assertEquals(320, checked);
    }

    @Test
    void theIcrcOverAPrefixLaidOutInFrontOfThePacketMatchesRxeAndLeavesThePacketAsItWas() throws Exception
    {
        int checked = 0;
        for (final Pcap.Packet p : allPackets())
        {
            final java.nio.ByteBuffer frame = java.nio.ByteBuffer.allocateDirect(Icrc.HEADROOM + p.length());
            final org.agrona.concurrent.UnsafeBuffer view = new org.agrona.concurrent.UnsafeBuffer(frame);
            // A receiver lays the prefix out once with its own address and port, then sets each sender.
            Icrc.writePrefix(view, 0x0A0B0C0D, p.destinationAddress(), 1234, p.destinationPort());
            Icrc.setSource(view, p.sourceAddress(), p.sourcePort());
            view.putBytes(Icrc.HEADROOM, p.udpPayload(), 0, p.length());
            final byte[] before = new byte[p.length()];
            view.getBytes(Icrc.HEADROOM, before);

            assertEquals(storedIcrc(p), icrc.computeInPlace(frame, view, p.ipIdentification(), p.length()),
                "packet " + checked);
            final byte[] after = new byte[p.length()];
            view.getBytes(Icrc.HEADROOM, after);
            org.junit.jupiter.api.Assertions.assertArrayEquals(before, after, "BTH byte 4 is masked only for the CRC");
            checked++;
        }
        assertEquals(320, checked);
    }

    @Test
    void theIpIdentificationAUdpSocketCannotSeeIsRecoveredFromTheIcrc() throws Exception
    {
        for (final Pcap.Packet p : allPackets())
        {
            final int withIdZero = IcrcReference.compute(icrc, p.sourceAddress(), p.destinationAddress(), 0,
                p.sourcePort(), p.destinationPort(), p.udpPayload(), 0, p.length());
            assertNotEquals(storedIcrc(p), withIdZero, "rxe uses nonzero IDs, so ID 0 must not match");
            assertEquals(p.ipIdentification(), icrc.solveIpIdentification(withIdZero, storedIcrc(p), p.length()));
        }
    }

    @Test
    void anExpectedIdentificationIsCheckedWithoutASecondCrcPass() throws Exception
    {
        for (final Pcap.Packet p : allPackets())
        {
            final int withIdZero = IcrcReference.compute(icrc, p.sourceAddress(), p.destinationAddress(), 0,
                p.sourcePort(), p.destinationPort(), p.udpPayload(), 0, p.length());
            assertEquals(storedIcrc(p) ^ withIdZero, Icrc.identificationDifference(p.ipIdentification(), p.length()),
                "the real ID's difference turns the ID-0 ICRC into the stored one");
            assertNotEquals(storedIcrc(p) ^ withIdZero,
                Icrc.identificationDifference((p.ipIdentification() + 1) & 0xFFFF, p.length()),
                "the next ID's does not");
        }
    }

    @Test
    void aCorruptedPayloadByteMakesTheIcrcUnsolvable() throws Exception
    {
        int rejected = 0;
        int total = 0;
        for (final Pcap.Packet p : allPackets())
        {
            for (int index = 12; index < p.length() - Icrc.LENGTH; index += 7)
            {
                final byte original = p.udpPayload().get(index);
                p.udpPayload().put(index, (byte)(original ^ 0x10));
                final int withIdZero = IcrcReference.compute(icrc, p.sourceAddress(), p.destinationAddress(), 0,
                    p.sourcePort(), p.destinationPort(), p.udpPayload(), 0, p.length());
                if (icrc.solveIpIdentification(withIdZero, storedIcrc(p), p.length()) < 0)
                {
                    rejected++;
                }
                total++;
                p.udpPayload().put(index, original);
            }
        }
        // With 16 of 32 bits spent on the unknown ID, about 1 in 65536 corruptions still solves.
        assertEquals(total, rejected, "every single-bit corruption in " + total + " tries is detected");
    }
}
