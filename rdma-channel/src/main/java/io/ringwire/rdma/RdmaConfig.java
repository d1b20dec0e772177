package io.ringwire.rdma;

import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.config.Settings;

import java.nio.file.Path;
import java.util.List;
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

    /** Names accepted for {@link #provider(String)}. */
    public static final String ALLOWED_PROVIDERS = "shm, socket, roce, ibverbs, auto";
    private static final List<String> PROVIDERS = List.of("shm", "socket", "roce", "ibverbs", "auto");

    private String provider = Settings.property(PROVIDER_PROP, "shm");
    private String shmDirectory = Settings.property(SHM_DIRECTORY_PROP, "/dev/shm/ringwire");
    private String bindAddress = Settings.property(BIND_ADDRESS_PROP, "127.0.0.1:0");
    private String peerTimeoutMs = Settings.property(PEER_TIMEOUT_PROP, "2000");
    private String maxInlineData = Settings.property(MAX_INLINE_PROP, "256");
    private String mtu = Settings.property(MTU_PROP, "4096");
    private String ackTimeoutUs = Settings.property(ACK_TIMEOUT_PROP, "10000");
    /** Null while neither the property nor the setter chose a delay. */
    private String ackDelayUs = Settings.property(ACK_DELAY_PROP, null);
    private String retryCount = Settings.property(RETRY_COUNT_PROP, "7");
    private String rnrRetryCount = Settings.property(RNR_RETRY_COUNT_PROP, "7");

    private boolean concluded;
    private long peerTimeoutNs;
    private int maxInlineDataValue;
    private int mtuValue;
    private long ackTimeoutNs;
    private long ackDelayNs;
    private int retryCountValue;
    private int rnrRetryCountValue;
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
        provider = Settings.oneOf(PROVIDER_PROP, provider, PROVIDERS);
        peerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(Settings.parseLong(PEER_TIMEOUT_PROP, peerTimeoutMs, 1,
            TimeUnit.HOURS.toMillis(1), "1 to 3600000 milliseconds"));
        maxInlineDataValue = Settings.parseInt(MAX_INLINE_PROP, maxInlineData, 0, 4096, "0 to 4096 bytes");
        mtuValue = Settings.parseInt(MTU_PROP, mtu, 256, 4096, "256, 512, 1024, 2048 or 4096");
        if (Integer.bitCount(mtuValue) != 1)
        {
            throw Settings.invalid(MTU_PROP, mtu, "is not allowed", "256, 512, 1024, 2048 or 4096");
        }
        ackTimeoutNs = TimeUnit.MICROSECONDS.toNanos(Settings.parseLong(ACK_TIMEOUT_PROP, ackTimeoutUs, 10,
            10_000_000, "10 to 10000000 microseconds"));
        concludeAckDelay();
        retryCountValue = Settings.parseInt(RETRY_COUNT_PROP, retryCount, 0, 7, "0 to 7 (7: retry until the peer timeout)");
        rnrRetryCountValue = Settings.parseInt(RNR_RETRY_COUNT_PROP, rnrRetryCount, 0, 7, "0 to 7 (7: retry forever)");
        final EndpointAddress bind = EndpointAddress.parse(BIND_ADDRESS_PROP, bindAddress, true);
        bindHost = bind.host();
        bindPort = bind.port();
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
        final long delayUs = Settings.parseLong(ACK_DELAY_PROP, ackDelayUs, 0, 100_000,
            "0 to 100000 microseconds (0: no delay)");
        // A requester that retransmits before the delayed ACK can arrive would resend what was executed.
        if (delayUs * 4 > timeoutUs)
        {
            throw Settings.invalid(ACK_DELAY_PROP, ackDelayUs, "is too long for " + ACK_TIMEOUT_PROP + "=" + timeoutUs,
                "0 to " + timeoutUs / 4 + " microseconds (a quarter of the ack timeout), or a longer ack timeout");
        }
        ackDelayNs = TimeUnit.MICROSECONDS.toNanos(delayUs);
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
}
