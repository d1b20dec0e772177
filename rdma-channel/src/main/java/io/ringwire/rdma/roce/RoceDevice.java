package io.ringwire.rdma.roce;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.CopyOnWriteIntMap;
import io.ringwire.rdma.soft.SoftDevice;
import io.ringwire.rdma.soft.SoftProtectionDomain;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A RoCEv2 device: one UDP socket (on the bind address's port: any free one unless configured, 4791
 * to talk to a kernel or NIC RoCE stack) that receives every packet for this device's queue pairs;
 * {@link RoceReceiver} verifies each and hands it to the queue pair its BTH names.
 *
 * <p>What every software device shares comes from {@link SoftDevice}; this class adds the socket,
 * its queue pairs by number, and the list of those that owe their peer an ACK, which each progress
 * round releases before it receives.
 *
 * <p>Threading: single-threaded. All queue pairs and completion queues of one device are driven by
 * one thread at a time (use one device per thread for independent threads). Creating and closing
 * objects happens on the control thread before and after.
 */
final class RoceDevice extends SoftDevice
{
    private static final System.Logger LOGGER = System.getLogger(RoceDevice.class.getName());
    private final RoceSettings settings;
    private final DatagramChannel channel;
    private final Inet4Address localAddress;
    private final String address;
    private final CopyOnWriteIntMap<RoceQueuePair> queuePairs = new CopyOnWriteIntMap<>();
    private final RoceReceiver receiver;
    private final RawUdpReceiver raw;
    private int nextQueuePairNumber = ThreadLocalRandom.current().nextInt(0x11, 0x1000);
    private long lastReceivePollNs = Long.MIN_VALUE;
    private RoceQueuePair[] acknowledgementsOwed = new RoceQueuePair[8];
    private int acknowledgementsOwedCount;

    RoceDevice(final RdmaConfig config, final RoceSettings settings)
    {
        this(config, settings, RoceReceiver::new);
    }

    /**
     * @param receivers makes the device's receive path; a step that fails closes the sockets the
     *                  steps before it opened (their ports, the packet ring, the fan-out place).
     */
    RoceDevice(final RdmaConfig config, final RoceSettings settings, final ReceiverFactory receivers)
    {
        super(config, RoceProvider.NAME, new DeviceCounters());
        this.settings = settings;
        this.localAddress = localIpv4(config);
        this.channel = bind(localAddress, config.bindPort());
        RawUdpReceiver opened = null;
        try
        {
            final int localPort = RoceTransmitter.localPort(channel);
            this.address = localAddress.getHostAddress() + ":" + localPort;
            opened = openRawReceiver(settings, localAddress, localPort);
            if (null != opened)
            {
                // Its copy of every datagram is never read: the smallest queue the kernel allows drops them.
                channel.setOption(StandardSocketOptions.SO_RCVBUF, 1);
            }
            this.raw = opened;
            // Its receive buffer is direct memory, which can run out.
            this.receiver = receivers.create(channel, opened, localAddress, localPort, queuePairs, counters());
        }
        catch (final IOException ex)
        {
            CloseHelper.quietCloseAll(opened, channel);
            throw new RdmaException("roce cannot configure its UDP socket: " + ex.getMessage(), ex);
        }
        catch (final RuntimeException | Error ex)
        {
            CloseHelper.quietCloseAll(opened, channel);
            throw ex;
        }
    }

    /** Makes a device's receive path: {@link RoceReceiver}'s constructor. */
    @FunctionalInterface
    interface ReceiverFactory
    {
        RoceReceiver create(DatagramChannel channel, RawUdpReceiver raw, Inet4Address local, int localPort,
            CopyOnWriteIntMap<RoceQueuePair> queuePairs, DeviceCounters counters);
    }

    /**
     * The raw receiver {@link RoceProvider#ICRC_CHECK_PROP} asks for: one where it says raw (or auto
     * and the process may open raw sockets), none where it says predicted.
     *
     * @throws RdmaException when it says raw and no raw socket can be opened.
     */
    private static RawUdpReceiver openRawReceiver(final RoceSettings settings, final Inet4Address local,
        final int port)
    {
        if (RoceSettings.ICRC_PREDICTED.equals(settings.icrcCheck()))
        {
            return null;
        }
        try
        {
            return RawUdpReceiver.open(local.hashCode(), port);
        }
        catch (final LibcSockets.Unavailable ex)
        {
            if (RoceSettings.ICRC_RAW.equals(settings.icrcCheck()))
            {
                throw new RdmaException(RoceProvider.ICRC_CHECK_PROP + "=raw needs a packet or raw IP socket, which this " +
                    "process cannot open (" + ex.getMessage() + (ex.errno == LibcSockets.EPERM ? ": grant " +
                    "CAP_NET_RAW, e.g. setcap cap_net_raw+ep on the java binary" : "") + "); or set it to auto or " +
                    "predicted", ex);
            }
            LOGGER.log(System.Logger.Level.INFO, "roce on " + local.getHostAddress() + ":" + port + " predicts the " +
                "IP IDs its ICRC check covers (no raw socket: " + ex.getMessage() + "); messaging checksums its " +
                "frames end to end");
            return null;
        }
    }

    /**
     * @return true when every packet's ICRC is checked against the IP ID it carried (raw receive);
     *         false where the receiver predicts IDs.
     */
    @Override
    public boolean verifiesIntegrity()
    {
        return receiver.verifiesCarriedIdentification();
    }

    private static Inet4Address localIpv4(final RdmaConfig config)
    {
        final InetAddress bind;
        try
        {
            bind = InetAddress.getByName(config.bindHost());
        }
        catch (final IOException ex)
        {
            throw new RdmaException("roce cannot resolve " + RdmaConfig.BIND_ADDRESS_PROP + " host '" +
                config.bindHost() + "'", ex);
        }
        if (!(bind instanceof Inet4Address ipv4) || bind.isAnyLocalAddress())
        {
            throw new RdmaException("roce needs one local IPv4 address in " + RdmaConfig.BIND_ADDRESS_PROP +
                " (got '" + config.bindHost() + "'): the ICRC covers the source address, so the wildcard address will not do");
        }
        return ipv4;
    }

    private static DatagramChannel bind(final Inet4Address ipv4, final int port)
    {
        DatagramChannel opened = null;
        try
        {
            opened = DatagramChannel.open(StandardProtocolFamily.INET); // IPv4 only: no v4-mapped IPv6 layer
            opened.setOption(StandardSocketOptions.SO_RCVBUF, 8 * 1024 * 1024);
            opened.bind(new InetSocketAddress(ipv4, port));
            opened.configureBlocking(false);
            return opened;
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(opened);
            throw new RdmaException("roce cannot bind UDP " + ipv4.getHostAddress() + ":" + port + " (" +
                ex.getMessage() + "); is another RoCE stack (e.g. the kernel's rxe) using that address and port?", ex);
        }
    }

    @Override
    public String address()
    {
        return address;
    }

    /**
     * @return {@link RoceWire#MAX_MESSAGE_SIZE}: messages are segmented at the path MTU, and the
     *         longest at the smallest MTU takes as many PSNs as a requester may have queued.
     */
    @Override
    public int maxMessageSize()
    {
        return RoceWire.MAX_MESSAGE_SIZE;
    }

    @Override
    protected ProtectionDomain newProtectionDomain()
    {
        return new SoftProtectionDomain(regions(), this::createQueuePair);
    }

    RoceSettings settings()
    {
        return settings;
    }

    Inet4Address localAddress()
    {
        return localAddress;
    }

    private synchronized QueuePair createQueuePair(final QueuePairConfig queuePairConfig)
    {
        checkOpen();
        int queuePairNumber;
        do
        {
            queuePairNumber = nextQueuePairNumber;
            nextQueuePairNumber = (nextQueuePairNumber + 1) & QueuePairEndpoint.MASK_24;
        }
        while (queuePairNumber < 2 || queuePairs.containsKey(queuePairNumber));
        final RoceQueuePair queuePair = new RoceQueuePair(this, queuePairNumber, queuePairConfig);
        queuePairs.put(queuePairNumber, queuePair);
        return queuePair;
    }

    void removeQueuePair(final RoceQueuePair queuePair)
    {
        queuePairs.remove(queuePair.queuePairNumber());
    }

    /**
     * Sends the acknowledgements that are due, then receives what is waiting (once per progress
     * round, however many queue pairs ask) and hands each verified packet to its queue pair.
     *
     * @param nowNs the progress round's time.
     * @return packets handled.
     */
    int pollReceive(final long nowNs)
    {
        if (nowNs == lastReceivePollNs || isClosed())
        {
            return 0;
        }
        lastReceivePollNs = nowNs;
        // ACKs due go out now, after the application has handled the previous batch's completions
        // and perhaps posted its answer: acknowledgements stay off the request-to-response path.
        final int sent = releaseAcknowledgements(nowNs);
        return sent + receiver.receive(nowNs);
    }

    private int releaseAcknowledgements(final long nowNs)
    {
        int sent = 0;
        int held = 0;
        final int count = acknowledgementsOwedCount;
        for (int i = 0; i < count; i++)
        {
            final RoceQueuePair queuePair = acknowledgementsOwed[i];
            acknowledgementsOwed[i] = null;
            final int result = queuePair.releaseAcknowledgement(nowNs);
            if (result == RoceResponder.ACKNOWLEDGEMENT_HELD)
            {
                acknowledgementsOwed[held++] = queuePair;
            }
            else
            {
                queuePair.acknowledgementListed = false;
                if (result == RoceResponder.ACKNOWLEDGEMENT_SENT)
                {
                    sent++;
                }
            }
        }
        acknowledgementsOwedCount = held;
        return sent;
    }

    /** Called when a packet produced a completion the application will want to see at once. */
    void completionProduced()
    {
        receiver.completionProduced();
    }

    /**
     * Asks for {@link RoceQueuePair#releaseAcknowledgement} at the start of every progress round
     * until the queue pair owes no ACK, so one ACK covers every packet that asked for one meanwhile.
     */
    void acknowledgeLater(final RoceQueuePair queuePair)
    {
        if (queuePair.acknowledgementListed)
        {
            return;
        }
        queuePair.acknowledgementListed = true;
        if (acknowledgementsOwedCount == acknowledgementsOwed.length)
        {
            acknowledgementsOwed = Arrays.copyOf(acknowledgementsOwed, acknowledgementsOwed.length * 2);
        }
        acknowledgementsOwed[acknowledgementsOwedCount++] = queuePair;
    }

    @Override
    protected void closeQueuePairs()
    {
        for (final RoceQueuePair queuePair : queuePairs.values())
        {
            queuePair.close();
        }
    }

    @Override
    protected void closeTransport()
    {
        CloseHelper.quietCloseAll(raw, channel);
    }
}
