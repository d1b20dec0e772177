package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairEndpoint;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The result of a completed handshake: the local queue pair, now in RTS and bound to the peer, and
 * what the peer advertised. The management connection is closed by then; detecting a lost peer is
 * the provider's job (its peer timeout).
 *
 * <p>Immutable, safe to share between threads.
 */
public final class Connection
{
    private final QueuePair queuePair;
    private final QueuePairEndpoint remoteEndpoint;
    private final List<RegionAdvertisement> remoteRegions;
    private final byte[] remoteApplicationData;
    private final InetSocketAddress remoteManagementAddress;
    private final PeerKey peerIdentity;

    Connection(final QueuePair queuePair, final ConnectMessage remote, final InetSocketAddress remoteManagementAddress,
        final PeerKey peerIdentity)
    {
        this.peerIdentity = peerIdentity;
        this.queuePair = queuePair;
        this.remoteEndpoint = remote.endpoint();
        this.remoteRegions = List.copyOf(remote.regions());
        this.remoteApplicationData = remote.applicationData().clone();
        this.remoteManagementAddress = remoteManagementAddress;
    }

    /**
     * @return the local queue pair, in RTS when this was returned.
     */
    public QueuePair queuePair()
    {
        return queuePair;
    }

    /**
     * @return the peer's queue pair endpoint (QPN, starting PSN, address, MTU, P_Key).
     */
    public QueuePairEndpoint remoteEndpoint()
    {
        return remoteEndpoint;
    }

    /**
     * @return the regions the peer advertised, possibly empty; unmodifiable.
     */
    public List<RegionAdvertisement> remoteRegions()
    {
        return remoteRegions;
    }

    /**
     * @return a copy of the peer's application payload, possibly empty.
     */
    public byte[] remoteApplicationData()
    {
        return remoteApplicationData.clone();
    }

    /**
     * @return the peer's address on the management (TCP) connection, for logs.
     */
    public InetSocketAddress remoteManagementAddress()
    {
        return remoteManagementAddress;
    }

    /**
     * @return the identity the peer proved: its signatures verified under this key.
     */
    public PeerKey peerIdentity()
    {
        return peerIdentity;
    }

    @Override
    public String toString()
    {
        return "Connection{qpn=0x" + Integer.toHexString(queuePair.queuePairNumber()) + ", remote=" + remoteEndpoint +
            ", remoteRegions=" + remoteRegions.size() + ", remoteApplicationData=" + remoteApplicationData.length +
            " bytes, management=" + remoteManagementAddress + ", peer=" + peerIdentity.name() + '}';
    }
}
