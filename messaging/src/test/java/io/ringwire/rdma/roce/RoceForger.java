package io.ringwire.rdma.roce;

import io.ringwire.rdma.QueuePair;
import org.agrona.concurrent.UnsafeBuffer;
import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

import static io.ringwire.rdma.roce.RoceWire.*;

/**
 * An unprivileged local process that forges RoCEv2 packets at a live roce queue pair: an ordinary
 * UDP socket of its own (its datagrams carry IP ID 0, with Don't-Fragment set, so it can compute a
 * valid ICRC), and the knowledge an attacker would need to do harm, read from the live queue pairs
 * (their numbers, the PSNs they send and expect). Lives in the roce package of the messaging tests
 * to reach that state; the messaging tests use it to show that such packets change nothing.
 */
public final class RoceForger implements AutoCloseable
{
    private static final int MAX_PACKET = 1024;

    private final DatagramChannel channel;
    private final int address;
    private final int port;
    private final Icrc icrc = new Icrc();
    private final ByteBuffer frame = ByteBuffer.allocateDirect(Icrc.HEADROOM + MAX_PACKET);
    private final UnsafeBuffer frameView = new UnsafeBuffer(frame);
    private long sent;

    /**
     * @param localAddress the IPv4 address to send from: the peer's own (127.0.0.1), or another one.
     */
    public RoceForger(final String localAddress)
    {
        try
        {
            final InetAddress local = InetAddress.getByName(localAddress);
            channel = DatagramChannel.open();
            channel.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            channel.bind(new InetSocketAddress(local, 0));
            address = local.hashCode();
            port = ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return packets sent so far. */
    public long sent()
    {
        return sent;
    }

    /**
     * @param queuePair a roce queue pair.
     * @return the oldest PSN of its requests not yet acknowledged.
     */
    public static int oldestUnacknowledgedPsn(final QueuePair queuePair)
    {
        return ((RoceQueuePair)queuePair).oldestUnacknowledgedPsn();
    }

    /**
     * @param queuePair a roce queue pair.
     * @return the PSN its next new request takes.
     */
    public static int nextRequestPsn(final QueuePair queuePair)
    {
        return ((RoceQueuePair)queuePair).nextRequestPsn();
    }

    /**
     * @param queuePair a roce queue pair.
     * @return the PSN of the next request from its peer it would execute.
     */
    public static int expectedRequestPsn(final QueuePair queuePair)
    {
        return ((RoceQueuePair)queuePair).expectedRequestPsn();
    }

    /**
     * @param psn   a PSN.
     * @param delta how far to move it (negative: back).
     * @return the PSN {@code delta} away, modulo 2^24.
     */
    public static int psnPlus(final int psn, final int delta)
    {
        return addPsn(psn, delta);
    }

    /**
     * Sends an ACKNOWLEDGE packet: an ACK ({@code syndrome} 0x00-0x1F), an RNR NAK (0x20-0x3F) or a
     * NAK (0x60 PSN sequence error, 0x61 invalid request, 0x62 remote access, 0x63 remote
     * operational error).
     *
     * @param queuePair the victim: the packet goes to its device and its queue pair number.
     * @param psn       the PSN it acknowledges.
     * @param syndrome  the AETH syndrome.
     */
    public void acknowledge(final QueuePair queuePair, final int psn, final int syndrome)
    {
        final int length = BTH_LENGTH + AETH_LENGTH + Icrc.LENGTH;
        header(ACKNOWLEDGE, queuePair.queuePairNumber(), psn);
        frameView.putInt(Icrc.HEADROOM + BTH_LENGTH, (syndrome << 24) | 1, ByteOrder.BIG_ENDIAN);
        send(queuePair, length);
    }

    /**
     * Sends an RDMA WRITE ONLY of {@code payload} to {@code virtualAddress} under {@code rkey}.
     *
     * @param queuePair      the victim.
     * @param psn            the PSN the packet carries.
     * @param virtualAddress where it writes.
     * @param rkey           the region's key.
     * @param payload        what it writes (a multiple of 4 bytes, so no pad).
     */
    public void write(final QueuePair queuePair, final int psn, final long virtualAddress, final int rkey,
        final byte[] payload)
    {
        final int length = BTH_LENGTH + RETH_LENGTH + payload.length + Icrc.LENGTH;
        header(WRITE_ONLY, queuePair.queuePairNumber(), psn);
        final int reth = Icrc.HEADROOM + BTH_LENGTH;
        frameView.putLong(reth + RETH_VA_OFFSET, virtualAddress, ByteOrder.BIG_ENDIAN);
        frameView.putInt(reth + RETH_RKEY_OFFSET, rkey, ByteOrder.BIG_ENDIAN);
        frameView.putInt(reth + RETH_DMA_LENGTH_OFFSET, payload.length, ByteOrder.BIG_ENDIAN);
        frameView.putBytes(reth + RETH_LENGTH, payload);
        send(queuePair, length);
    }

    private void header(final int opcode, final int queuePairNumber, final int psn)
    {
        final int bth = Icrc.HEADROOM;
        frameView.setMemory(bth, MAX_PACKET, (byte)0);
        frameView.putByte(bth + BTH_OPCODE_OFFSET, (byte)opcode);
        frameView.putByte(bth + BTH_FLAGS_OFFSET, (byte)0); // no pad, transport version 0
        frameView.putShort(bth + BTH_PKEY_OFFSET, (short)0xFFFF, ByteOrder.BIG_ENDIAN);
        frameView.putInt(bth + BTH_DEST_QP_OFFSET, queuePairNumber & 0xFF_FFFF, ByteOrder.BIG_ENDIAN);
        frameView.putInt(bth + BTH_PSN_OFFSET, (BTH_ACK_REQUEST << 24) | (psn & PSN_MASK), ByteOrder.BIG_ENDIAN);
    }

    private void send(final QueuePair queuePair, final int length)
    {
        final String device = queuePair.localEndpoint().address();
        final int colon = device.lastIndexOf(':');
        try
        {
            final InetAddress deviceAddress = InetAddress.getByName(device.substring(0, colon));
            final int devicePort = Integer.parseInt(device.substring(colon + 1));
            Icrc.writePrefix(frameView, address, deviceAddress.hashCode(), port, devicePort);
            final int crc = icrc.computeInPlace(frame, frameView, 0, length);
            frameView.putInt(Icrc.HEADROOM + length - Icrc.LENGTH, crc, ByteOrder.LITTLE_ENDIAN);
            frame.limit(Icrc.HEADROOM + length).position(Icrc.HEADROOM);
            channel.send(frame, new InetSocketAddress(deviceAddress, devicePort));
            sent++;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
