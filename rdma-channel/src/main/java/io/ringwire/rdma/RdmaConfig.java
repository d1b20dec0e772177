package io.ringwire.rdma;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Typed configuration of a device, like Aeron's {@code Context}: defaults, overridable by
 * {@code ringwire.rdma.*} system properties, overridable again by the setters, checked by
 * {@link #conclude()}, which fails with a message naming the property and the allowed values.
 *
 * <p>Threading: build it on one thread, conclude it, then share it read-only.
 */
public final class RdmaConfig
{
    /** Provider name: shm, socket, roce, ibverbs, or auto. */
    public static final String PROVIDER_PROP = "ringwire.rdma.provider";
    /** Directory for shm files. */
    public static final String SHM_DIRECTORY_PROP = "ringwire.rdma.shm.dir";
    /** Address the network providers bind, "host" or "host:port" (port 0: any free port). */
    public static final String BIND_ADDRESS_PROP = "ringwire.rdma.bind";
    /** Milliseconds after which a peer that acknowledges nothing and shows no sign of life is gone. */
    public static final String PEER_TIMEOUT_PROP = "ringwire.rdma.peer.timeout.ms";
    /** Largest inline payload in bytes. */
    public static final String MAX_INLINE_PROP = "ringwire.rdma.max.inline";
    /** Path MTU in bytes: 256, 512, 1024, 2048 or 4096. */
    public static final String MTU_PROP = "ringwire.rdma.mtu";

    /** Microseconds a requester waits for an ACK before retransmitting (doubles per retry, up to 64x). */
    public static final String ACK_TIMEOUT_PROP = "ringwire.rdma.ack.timeout.us";
    /**
     * Microseconds a roce responder may hold an ACK to cover later packets with it, 0 to 100000 (0: every
     * receive batch that asked for an ACK gets one at once) and at most a quarter of the ack timeout;
     * by default {@value #DEFAULT_ACK_DELAY_US}, or a quarter of the ack timeout when that is less.
     */
    public static final String ACK_DELAY_PROP = "ringwire.rdma.ack.delay.us";
    /** Default of {@link #ACK_DELAY_PROP} in microseconds. */
    public static final long DEFAULT_ACK_DELAY_US = 50;
    /** Retransmissions after a timeout before RETRY_EXCEEDED, 0 to 7; 7 retries until the peer timeout. */
    public static final String RETRY_COUNT_PROP = "ringwire.rdma.retry.count";
    /** Retries after a receiver-not-ready NAK before RNR_RETRY_EXCEEDED, 0 to 7; 7 retries forever. */
    public static final String RNR_RETRY_COUNT_PROP = "ringwire.rdma.rnr.retry.count";

    /**
     * roce: send from connected UDP sockets whose IPv4 IDs are learnt from the kernel (true, the
     * default; faster, and where they cannot be learnt it falls back by itself), or from unconnected
     * sockets that send IP ID 0 (false).
     */
    public static final String ROCE_CONNECTED_SEND_PROP = "ringwire.rdma.roce.connected.send";

    /** Names accepted for {@link #provider(String)}. */
    public static final String ALLOWED_PROVIDERS = "shm, socket, roce, ibverbs, auto";

    private String provider = System.getProperty(PROVIDER_PROP, "shm");
    private String shmDirectory = System.getProperty(SHM_DIRECTORY_PROP, "/dev/shm/ringwire");
    private String bindAddress = System.getProperty(BIND_ADDRESS_PROP, "127.0.0.1:0");
    private String peerTimeoutMs = System.getProperty(PEER_TIMEOUT_PROP, "2000");
    private String maxInlineData = System.getProperty(MAX_INLINE_PROP, "256");
    private String mtu = System.getProperty(MTU_PROP, "4096");
    private String ackTimeoutUs = System.getProperty(ACK_TIMEOUT_PROP, "10000");
    /** Null while neither the property nor the setter chose a delay. */
    private String ackDelayUs = System.getProperty(ACK_DELAY_PROP);
    private String retryCount = System.getProperty(RETRY_COUNT_PROP, "7");
    private String rnrRetryCount = System.getProperty(RNR_RETRY_COUNT_PROP, "7");
    private String roceConnectedSend = System.getProperty(ROCE_CONNECTED_SEND_PROP, "true");

    private boolean concluded;
    private long peerTimeoutNs;
    private int maxInlineDataValue;
    private int mtuValue;
    private long ackTimeoutNs;
    private long ackDelayNs;
    private int retryCountValue;
    private int rnrRetryCountValue;
    private boolean roceConnectedSendValue;
    private String bindHost;
    private int bindPort;

    /**
     * Checks every value and freezes the configuration.
     *
     * @return this.
     * @throws IllegalArgumentException naming the offending property and its allowed values.
     */
    public RdmaConfig conclude()
    {
        if (!(" " + ALLOWED_PROVIDERS.replace(",", "") + " ").contains(" " + provider + " "))
        {
            throw new IllegalArgumentException(PROVIDER_PROP + "='" + provider + "' is not a provider; allowed: " +
                ALLOWED_PROVIDERS);
        }
        final long timeoutMs = parseLong(PEER_TIMEOUT_PROP, peerTimeoutMs, 1, TimeUnit.HOURS.toMillis(1),
            "1 to 3600000 milliseconds");
        peerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        maxInlineDataValue = (int)parseLong(MAX_INLINE_PROP, maxInlineData, 0, 4096, "0 to 4096 bytes");
        mtuValue = (int)parseLong(MTU_PROP, mtu, 256, 4096, "256, 512, 1024, 2048 or 4096");
        if (Integer.bitCount(mtuValue) != 1)
        {
            throw new IllegalArgumentException(MTU_PROP + "='" + mtu + "' is not allowed; allowed: 256, 512, 1024, 2048 or 4096");
        }
        ackTimeoutNs = TimeUnit.MICROSECONDS.toNanos(parseLong(ACK_TIMEOUT_PROP, ackTimeoutUs, 10, 10_000_000,
            "10 to 10000000 microseconds"));
        concludeAckDelay();
        retryCountValue = (int)parseLong(RETRY_COUNT_PROP, retryCount, 0, 7, "0 to 7 (7: retry until the peer timeout)");
        rnrRetryCountValue = (int)parseLong(RNR_RETRY_COUNT_PROP, rnrRetryCount, 0, 7, "0 to 7 (7: retry forever)");
        final String connectedSend = roceConnectedSend.trim();
        if (!"true".equals(connectedSend) && !"false".equals(connectedSend))
        {
            throw new IllegalArgumentException(ROCE_CONNECTED_SEND_PROP + "='" + roceConnectedSend +
                "' is not allowed; allowed: true or false");
        }
        roceConnectedSendValue = Boolean.parseBoolean(connectedSend);
        parseBindAddress();
        if (shmDirectory.isBlank())
        {
            throw new IllegalArgumentException(SHM_DIRECTORY_PROP + " must name a directory, e.g. /dev/shm/ringwire");
        }
        concluded = true;
        return this;
    }

    private void concludeAckDelay()
    {
        final long timeoutUs = TimeUnit.NANOSECONDS.toMicros(ackTimeoutNs);
        if (null == ackDelayUs)
        {
            ackDelayNs = TimeUnit.MICROSECONDS.toNanos(Math.min(DEFAULT_ACK_DELAY_US, timeoutUs / 4));
            return;
        }
        final long delayUs = parseLong(ACK_DELAY_PROP, ackDelayUs, 0, 100_000,
            "0 to 100000 microseconds (0: no delay)");
        // A requester that retransmits before the delayed ACK can arrive would resend what was executed.
        if (delayUs * 4 > timeoutUs)
        {
            throw new IllegalArgumentException(ACK_DELAY_PROP + "='" + ackDelayUs + "' is too long for " +
                ACK_TIMEOUT_PROP + "=" + timeoutUs + "; allowed: 0 to " + timeoutUs / 4 +
                " microseconds (a quarter of the ack timeout), or a longer ack timeout");
        }
        ackDelayNs = TimeUnit.MICROSECONDS.toNanos(delayUs);
    }

    private void parseBindAddress()
    {
        final String value = bindAddress.trim();
        final int colon = value.lastIndexOf(':');
        final boolean hasPort = colon > 0 && value.indexOf(':') == colon; // IPv6 literals need [host]:port
        String host = hasPort ? value.substring(0, colon) : value;
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty())
        {
            throw new IllegalArgumentException(BIND_ADDRESS_PROP + "='" + bindAddress + "': expected host or host:port");
        }
        bindHost = host;
        bindPort = hasPort ? (int)parseLong(BIND_ADDRESS_PROP, value.substring(colon + 1), 0, 65535, "a port 0 to 65535") : 0;
    }

    private static long parseLong(final String property, final String value, final long min, final long max,
        final String allowed)
    {
        final long parsed;
        try
        {
            parsed = Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(property + "='" + value + "' is not a number; allowed: " + allowed, ex);
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException(property + "='" + value + "' is out of range; allowed: " + allowed);
        }
        return parsed;
    }

    private void checkMutable()
    {
        if (concluded)
        {
            throw new IllegalStateException("RdmaConfig is concluded and can no longer change");
        }
    }

    private void checkConcluded()
    {
        if (!concluded)
        {
            throw new IllegalStateException("call RdmaConfig.conclude() first");
        }
    }

    /**
     * @param provider shm, socket, roce, ibverbs or auto.
     * @return this.
     */
    public RdmaConfig provider(final String provider)
    {
        checkMutable();
        this.provider = provider;
        return this;
    }

    /**
     * @return the provider name.
     */
    public String provider()
    {
        return provider;
    }

    /**
     * @param directory for shm files.
     * @return this.
     */
    public RdmaConfig shmDirectory(final String directory)
    {
        checkMutable();
        this.shmDirectory = directory;
        return this;
    }

    /**
     * @return the shm directory.
     */
    public Path shmDirectory()
    {
        return Path.of(shmDirectory);
    }

    /**
     * @param address "host" or "host:port" the network providers bind.
     * @return this.
     */
    public RdmaConfig bindAddress(final String address)
    {
        checkMutable();
        this.bindAddress = address;
        return this;
    }

    /**
     * @return the host to bind.
     */
    public String bindHost()
    {
        checkConcluded();
        return bindHost;
    }

    /**
     * @return the port to bind, 0 for any.
     */
    public int bindPort()
    {
        checkConcluded();
        return bindPort;
    }

    /**
     * @param timeoutMs after which a silent peer is gone.
     * @return this.
     */
    public RdmaConfig peerTimeoutMs(final long timeoutMs)
    {
        checkMutable();
        this.peerTimeoutMs = Long.toString(timeoutMs);
        return this;
    }

    /**
     * @return the peer timeout in nanoseconds.
     */
    public long peerTimeoutNs()
    {
        checkConcluded();
        return peerTimeoutNs;
    }

    /**
     * @param bytes largest inline payload.
     * @return this.
     */
    public RdmaConfig maxInlineData(final int bytes)
    {
        checkMutable();
        this.maxInlineData = Integer.toString(bytes);
        return this;
    }

    /**
     * @return largest inline payload.
     */
    public int maxInlineData()
    {
        checkConcluded();
        return maxInlineDataValue;
    }

    /**
     * @param bytes path MTU.
     * @return this.
     */
    public RdmaConfig mtu(final int bytes)
    {
        checkMutable();
        this.mtu = Integer.toString(bytes);
        return this;
    }

    /**
     * @return path MTU.
     */
    public int mtu()
    {
        checkConcluded();
        return mtuValue;
    }

    /**
     * @param microseconds before a requester retransmits.
     * @return this.
     */
    public RdmaConfig ackTimeoutUs(final long microseconds)
    {
        checkMutable();
        this.ackTimeoutUs = Long.toString(microseconds);
        return this;
    }

    /**
     * @return the initial retransmit timeout in nanoseconds.
     */
    public long ackTimeoutNs()
    {
        checkConcluded();
        return ackTimeoutNs;
    }

    /**
     * @param microseconds a roce responder may hold an ACK to coalesce it with later ones, 0 to 100000
     *                     and at most a quarter of the ack timeout; 0 acknowledges every receive
     *                     batch that asked for an ACK at once. Unset: {@value #DEFAULT_ACK_DELAY_US},
     *                     or a quarter of the ack timeout when that is less.
     * @return this.
     */
    public RdmaConfig ackDelayUs(final long microseconds)
    {
        checkMutable();
        this.ackDelayUs = Long.toString(microseconds);
        return this;
    }

    /**
     * @return the longest a roce responder holds an ACK, in nanoseconds; 0 for none.
     */
    public long ackDelayNs()
    {
        checkConcluded();
        return ackDelayNs;
    }

    /**
     * @param count retransmissions before RETRY_EXCEEDED, 0 to 7 (7: until the peer timeout).
     * @return this.
     */
    public RdmaConfig retryCount(final int count)
    {
        checkMutable();
        this.retryCount = Integer.toString(count);
        return this;
    }

    /**
     * @return the retry count.
     */
    public int retryCount()
    {
        checkConcluded();
        return retryCountValue;
    }

    /**
     * @param count retries after receiver-not-ready NAKs, 0 to 7 (7: forever).
     * @return this.
     */
    public RdmaConfig rnrRetryCount(final int count)
    {
        checkMutable();
        this.rnrRetryCount = Integer.toString(count);
        return this;
    }

    /**
     * @return the RNR retry count.
     */
    public int rnrRetryCount()
    {
        checkConcluded();
        return rnrRetryCountValue;
    }

    /**
     * @param connectedSend see {@link #ROCE_CONNECTED_SEND_PROP}.
     * @return this.
     */
    public RdmaConfig roceConnectedSend(final boolean connectedSend)
    {
        checkMutable();
        this.roceConnectedSend = Boolean.toString(connectedSend);
        return this;
    }

    /**
     * @return whether roce sends from connected sockets where it can.
     */
    public boolean roceConnectedSend()
    {
        checkConcluded();
        return roceConnectedSendValue;
    }
}
