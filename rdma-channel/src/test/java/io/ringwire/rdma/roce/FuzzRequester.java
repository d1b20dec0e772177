package io.ringwire.rdma.roce;

import jdk.net.ExtendedSocketOptions;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * A hand-driven RoCEv2 requester for bad-input tests: a plain UDP socket, unconnected and with
 * Don't-Fragment set as {@link RoceTransmitter} sends with connected sends off (so Linux sends IP ID
 * 0 and an ICRC computed with ID 0 verifies), that sends whatever bytes a test builds at one roce device, and
 * receives what the device's queue pairs answer when they were told this socket is their peer.
 *
 * <p>Single-threaded.
 */
final class FuzzRequester implements AutoCloseable
{
    static final int MAX_DATAGRAM = 9_000;
    private static final int LOOPBACK = 0x7F00_0001;

    final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM);
    final UnsafeBuffer sendView = new UnsafeBuffer(sendBuffer);
    final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(70_000);
    final UnsafeBuffer receiveView = new UnsafeBuffer(receiveBuffer);

    private final DatagramChannel channel;
    private final InetSocketAddress device;
    private final int localPort;
    private final Icrc icrc = new Icrc();
    private int lastResponsePort;

    /**
     * @param deviceAddress the roce device to send to, "127.0.0.1:port".
     */
    FuzzRequester(final String deviceAddress)
    {
        final int colon = deviceAddress.lastIndexOf(':');
        try
        {
            device = new InetSocketAddress(InetAddress.getByName(deviceAddress.substring(0, colon)),
                Integer.parseInt(deviceAddress.substring(colon + 1)));
            if (!(device.getAddress() instanceof Inet4Address ipv4) || ipv4.hashCode() != LOOPBACK)
            {
                throw new IllegalArgumentException("the bad-input tests run on 127.0.0.1, not " + deviceAddress);
            }
            channel = DatagramChannel.open();
            channel.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 * 1024 * 1024);
            channel.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            channel.configureBlocking(false);
            localPort = ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return this socket as a roce device address, for a queue pair's remote endpoint. */
    String address()
    {
        return "127.0.0.1:" + localPort;
    }

    int localPort()
    {
        return localPort;
    }

    int devicePort()
    {
        return device.getPort();
    }

    /** @return the ICRC the device expects for {@code length} bytes of {@link #sendBuffer} from this socket. */
    int icrcOf(final int length)
    {
        return IcrcReference.compute(icrc, LOOPBACK, LOOPBACK, 0, localPort, device.getPort(), sendBuffer, 0, length);
    }

    /** Writes the correct ICRC into the last four of {@code length} bytes of {@link #sendBuffer}. */
    void stampIcrc(final int length)
    {
        sendView.putInt(length - Icrc.LENGTH, icrcOf(length), ByteOrder.LITTLE_ENDIAN);
    }

    /** {@link #icrcCheck}: the ICRC verifies with IP ID 0, the ID this socket's datagrams carry. */
    static final int ICRC_INTACT = 0;
    /** {@link #icrcCheck}: only some other 16-bit IP ID makes it verify (one corrupted packet in 65536). */
    static final int ICRC_SOLVABLE = 1;
    /** {@link #icrcCheck}: no IP ID makes it verify. */
    static final int ICRC_BROKEN = 2;
    /**
     * {@link #icrcCheck}: only an IP ID among the few after 0 makes it verify, one a device that
     * predicts IDs expects next from a sender of ID 0 (see {@link RoceReceiver#ID_WINDOW}) and so
     * accepts: one corrupted packet in 2^28, never sent to a device that predicts.
     */
    static final int ICRC_PREDICTABLE = 3;

    /**
     * @return {@link #ICRC_INTACT}, {@link #ICRC_SOLVABLE} or {@link #ICRC_BROKEN} for the ICRC of
     *         {@code length} bytes of {@link #sendBuffer}; a device that sees the IP header takes only
     *         the first, one that predicts IDs treats the second as unverified (see {@link RoceReceiver}).
     */
    int icrcCheck(final int length)
    {
        final int stored = sendView.getInt(length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
        final int computed = icrcOf(length);
        if (computed == stored)
        {
            return ICRC_INTACT;
        }
        final int solved = icrc.solveIpIdentification(computed, stored, length);
        return solved < 0 ? ICRC_BROKEN : solved < RoceReceiver.ID_WINDOW ? ICRC_PREDICTABLE : ICRC_SOLVABLE;
    }

    /** Sends {@code length} bytes of {@link #sendBuffer} to the device. */
    void send(final int length)
    {
        sendBuffer.limit(length).position(0);
        try
        {
            int spins = 0;
            // An empty datagram is sent at once, and send() reports its 0 bytes; otherwise 0 means
            // the socket buffer is full for now.
            while (channel.send(sendBuffer, device) == 0 && length > 0)
            {
                if (++spins > 1_000_000)
                {
                    throw new IllegalStateException("the fuzz socket could not send for a million tries");
                }
                Thread.onSpinWait();
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("sending " + length + " bytes to " + device, ex);
        }
    }

    /**
     * Receives one answer into {@link #receiveBuffer} (index 0), if one waits.
     *
     * @return its length, or -1 when none waits.
     */
    int receive()
    {
        receiveBuffer.clear();
        try
        {
            final InetSocketAddress from = (InetSocketAddress)channel.receive(receiveBuffer);
            if (null == from)
            {
                return -1;
            }
            lastResponsePort = from.getPort();
            return receiveBuffer.position();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @return whether the ICRC of the last received answer verifies as sent from its source port to
     *         this socket with IP ID 0 (an unconnected roce transmitter) or some ID (a connected one).
     */
    boolean lastResponseIcrcVerifies(final int length)
    {
        final int stored = receiveView.getInt(length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
        final int saved = receiveBuffer.position();
        final int computed = IcrcReference.compute(icrc, LOOPBACK, LOOPBACK, 0, lastResponsePort, localPort, receiveBuffer, 0,
            length);
        receiveBuffer.position(saved);
        // ID 0 from an unconnected transmitter; a connected one numbers its datagrams from a random
        // start (a victim queue pair re-created on the same port starts anew), so any ID that makes
        // the ICRC match: a wrongly computed ICRC fails this with probability 1 - 2^-16 per answer.
        return computed == stored || icrc.solveIpIdentification(computed, stored, length) >= 0;
    }

    @Override
    public void close()
    {
        CloseHelper.quietClose(channel);
    }
}
