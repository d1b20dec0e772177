package io.ringwire.rdma.shm;

import io.ringwire.rdma.config.Settings;

/**
 * The provider-local configuration of {@code shm}, read from system properties (the shared
 * {@link io.ringwire.rdma.RdmaConfig} carries what every provider understands, the shm directory
 * among it; this only means something to shm).
 *
 * @param inboundRingBytes bytes of each queue pair's inbound ring, a power of two from
 *                         {@link #MIN_INBOUND_RING_BYTES} to {@link #MAX_INBOUND_RING_BYTES}.
 */
record ShmSettings(int inboundRingBytes)
{
    /** Default inbound ring capacity. */
    static final int DEFAULT_INBOUND_RING_BYTES = 1 << 20;
    /** Least inbound ring capacity. */
    static final int MIN_INBOUND_RING_BYTES = 4096;
    /** Largest inbound ring capacity. */
    static final int MAX_INBOUND_RING_BYTES = 1 << 30;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the property and its allowed values.
     */
    ShmSettings
    {
        Settings.parsePowerOfTwo(ShmProvider.INBOUND_RING_BYTES_PROP, Integer.toString(inboundRingBytes),
            MIN_INBOUND_RING_BYTES, MAX_INBOUND_RING_BYTES);
    }

    /**
     * Reads {@link ShmProvider#INBOUND_RING_BYTES_PROP}.
     *
     * @return the settings.
     * @throws IllegalArgumentException naming the property and its allowed values.
     */
    static ShmSettings fromSystemProperties()
    {
        return new ShmSettings(Settings.parsePowerOfTwo(ShmProvider.INBOUND_RING_BYTES_PROP,
            Settings.property(ShmProvider.INBOUND_RING_BYTES_PROP, Integer.toString(DEFAULT_INBOUND_RING_BYTES)),
            MIN_INBOUND_RING_BYTES, MAX_INBOUND_RING_BYTES));
    }
}
