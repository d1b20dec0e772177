package io.ringwire.rdma.roce;

import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairEndpoint;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A UDP relay between two roce devices for deterministic fault tests: each queue pair is told the
 * relay's address as its peer's, the relay forwards every packet, and a script decides per packet
 * whether to pass, drop, duplicate or hold it (held packets are released later, which reorders).
 * Forwarding changes the UDP ports, so the relay re-stamps the ICRC, as a RoCE-aware middlebox
 * would have to. It also records what it saw, for assertions on the wire behaviour.
 *
 * <p>Single-threaded: call {@link #pump()} from the test's polling loop.
 */
final class ScriptedRelay implements AutoCloseable
{
    enum Action
    {
        PASS, DROP, DUPLICATE, HOLD,
        /**
         * Pass with the lab's {@code icrcblind} error (netns-lab.sh): 0x0f XORed into the byte at UDP
         * offset 101, which the ICRC takes for the IP ID XOR {@link #BLIND_ID_ERROR}, whatever the packet.
         */
        CORRUPT_BLIND
    }

    /** The IP ID error that {@link Action#CORRUPT_BLIND} imitates. */
    static final int BLIND_ID_ERROR = 0x771C;
    /** Where {@link Action#CORRUPT_BLIND} strikes, from the start of the UDP payload (the BTH). */
    private static final int BLIND_OFFSET = 101 - 8;

    /** Decides the fate of one packet. */
    interface Script
    {
        Action decide(boolean towardsResponder, int index, RocePacket packet);
    }

    /** What the relay saw, in order. */
    record Seen(boolean towardsResponder, int opcode, int psn, boolean ackRequested, int syndrome, int payloadLength)
    {
    }

    private final DatagramChannel requesterSide;
    private final DatagramChannel responderSide;
    private final InetSocketAddress requesterDevice;
    private final InetSocketAddress responderDevice;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(70_000);
    private final UnsafeBuffer view = new UnsafeBuffer(buffer);
    private final RocePacket packet = new RocePacket();
    private final Icrc icrc = new Icrc();
    private final List<byte[]> heldTowardsResponder = new ArrayList<>();
    private final List<byte[]> heldTowardsRequester = new ArrayList<>();
    final List<Seen> seen = new ArrayList<>();
    private Script script = (towards, index, p) -> Action.PASS;
    private int countTowardsResponder;
    private int countTowardsRequester;
    /** The IP ID the next packet each way is stamped with, counting as a connected socket's; -1: always 0. */
    private int nextIdTowardsResponder = -1;
    private int nextIdTowardsRequester = -1;

    /**
     * @param requesterDevice the requester device's "ip:port".
     * @param responderDevice the responder device's "ip:port".
     */
    ScriptedRelay(final String requesterDevice, final String responderDevice)
    {
        this.requesterDevice = parse(requesterDevice);
        this.responderDevice = parse(responderDevice);
        try
        {
            requesterSide = open();
            responderSide = open();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static DatagramChannel open() throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open();
        channel.setOption(jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 8 * 1024 * 1024);
        channel.bind(new InetSocketAddress("127.0.0.1", 0));
        channel.configureBlocking(false);
        return channel;
    }

    private static InetSocketAddress parse(final String address)
    {
        final int colon = address.lastIndexOf(':');
        return new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    /** @return the address the requester must believe its peer has. */
    String addressForRequester()
    {
        return "127.0.0.1:" + port(requesterSide);
    }

    /** @return the address the responder must believe its peer has. */
    String addressForResponder()
    {
        return "127.0.0.1:" + port(responderSide);
    }

    private static int port(final DatagramChannel channel)
    {
        try
        {
            return ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Connects two queue pairs through this relay, each told the relay's address as its peer's, and
     * takes both to ready-to-send.
     */
    void connect(final QueuePair requester, final QueuePair responder)
    {
        requester.modifyToInit();
        responder.modifyToInit();
        final QueuePairEndpoint a = requester.localEndpoint();
        final QueuePairEndpoint b = responder.localEndpoint();
        requester.modifyToReadyToReceive(new QueuePairEndpoint(b.queuePairNumber(), b.startPsn(), addressForRequester(),
            b.mtu(), b.partitionKey()));
        responder.modifyToReadyToReceive(new QueuePairEndpoint(a.queuePairNumber(), a.startPsn(), addressForResponder(),
            a.mtu(), a.partitionKey()));
        requester.modifyToReadyToSend();
        responder.modifyToReadyToSend();
    }

    /**
     * Pumps this relay and polls both ends until {@code condition} holds.
     *
     * @throws AssertionError after {@code timeout}, naming what it waited for and both ends'
     *                        completions and counters.
     */
    void drive(final Endpoint requester, final Endpoint responder, final BooleanSupplier condition, final String what,
        final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what + "; requester " + requester.completions + " " +
                    requester.device.counters() + "; responder " + responder.completions + " " +
                    responder.device.counters());
            }
            pump();
            requester.poll();
            responder.poll();
        }
    }

    void script(final Script script)
    {
        this.script = script;
    }

    /**
     * Stamps every packet's ICRC from now on with IP IDs that count up from {@code first} each way,
     * as a connected socket's do (the relay's own socket sends ID 0: only a receiver that predicts
     * IDs, never reading the header, can tell them apart; it sees a sender that numbers its packets).
     *
     * @param first the ID of the next packet each way.
     */
    void countIdentifications(final int first)
    {
        nextIdTowardsResponder = first & 0xFFFF;
        nextIdTowardsRequester = first & 0xFFFF;
    }

    /** Sends the held packets, in the order they were held. */
    void releaseHeld()
    {
        for (final byte[] held : heldTowardsResponder)
        {
            forward(responderSide, responderDevice, held, nextIdentification(true), false);
        }
        heldTowardsResponder.clear();
        for (final byte[] held : heldTowardsRequester)
        {
            forward(requesterSide, requesterDevice, held, nextIdentification(false), false);
        }
        heldTowardsRequester.clear();
    }

    int held()
    {
        return heldTowardsResponder.size() + heldTowardsRequester.size();
    }

    /** Forwards what has arrived, applying the script. */
    void pump()
    {
        relay(requesterSide, true);
        relay(responderSide, false);
    }

    private void relay(final DatagramChannel from, final boolean towardsResponder)
    {
        try
        {
            SocketAddress source;
            while (true)
            {
                buffer.clear();
                source = from.receive(buffer);
                if (null == source)
                {
                    return;
                }
                final int length = buffer.position();
                final byte[] bytes = new byte[length];
                view.getBytes(0, bytes);
                if (packet.parse(view, 0, length) != RocePacket.VALID)
                {
                    continue;
                }
                seen.add(new Seen(towardsResponder, packet.opcode(), packet.psn(), packet.ackRequested(),
                    packet.syndrome(), packet.payloadLength()));
                final int index = towardsResponder ? countTowardsResponder++ : countTowardsRequester++;
                final Action action = script.decide(towardsResponder, index, packet);
                final DatagramChannel out = towardsResponder ? responderSide : requesterSide;
                final InetSocketAddress target = towardsResponder ? responderDevice : requesterDevice;
                switch (action)
                {
                    case PASS -> forward(out, target, bytes, nextIdentification(towardsResponder), false);
                    case DUPLICATE ->
                    {
                        final int identification = nextIdentification(towardsResponder);
                        forward(out, target, bytes, identification, false); // the network's copy: the same ID
                        forward(out, target, bytes, identification, false);
                    }
                    case CORRUPT_BLIND -> forward(out, target, bytes, nextIdentification(towardsResponder), true);
                    case HOLD -> (towardsResponder ? heldTowardsResponder : heldTowardsRequester).add(bytes);
                    case DROP ->
                    {
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private int nextIdentification(final boolean towardsResponder)
    {
        final int next = towardsResponder ? nextIdTowardsResponder : nextIdTowardsRequester;
        if (next < 0)
        {
            return 0;
        }
        if (towardsResponder)
        {
            nextIdTowardsResponder = (next + 1) & 0xFFFF;
        }
        else
        {
            nextIdTowardsRequester = (next + 1) & 0xFFFF;
        }
        return next;
    }

    /**
     * Sends a packet on, its ICRC stamped for {@code identification}; a blind corruption strikes after
     * the stamp, as on the wire.
     */
    private void forward(final DatagramChannel out, final InetSocketAddress target, final byte[] bytes,
        final int identification, final boolean corruptBlind)
    {
        try
        {
            final ByteBuffer copy = ByteBuffer.allocateDirect(bytes.length);
            copy.put(bytes).flip();
            final int source = ((Inet4Address)InetAddress.getByName("127.0.0.1")).hashCode();
            final int destination = ((Inet4Address)target.getAddress()).hashCode();
            final int crc = IcrcReference.compute(icrc, source, destination, identification, port(out), target.getPort(),
                copy, 0, bytes.length);
            copy.putInt(bytes.length - Icrc.LENGTH, Integer.reverseBytes(crc));
            if (corruptBlind)
            {
                if (BLIND_OFFSET >= bytes.length - Icrc.LENGTH)
                {
                    throw new IllegalStateException("a blind corruption needs a packet longer than " + BLIND_OFFSET + " bytes");
                }
                copy.put(BLIND_OFFSET, (byte)(copy.get(BLIND_OFFSET) ^ 0x0f));
            }
            out.send(copy, target);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(requesterSide, responderSide);
    }
}
