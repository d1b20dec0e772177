package io.ringwire.rdma;

/**
 * A transport implementation selected by name ({@code shm}, {@code socket}, {@code roce},
 * {@code ibverbs}). Providers are found with {@link java.util.ServiceLoader}; use
 * {@link RdmaProviders#open(RdmaConfig)} rather than this interface directly.
 *
 * <p>Threading: {@link #open(RdmaConfig)} may be called from any thread.
 */
public interface RdmaProvider
{
    /**
     * @return the name used in configuration, e.g. "shm".
     */
    String name();

    /**
     * Whether this provider can work on this machine at all (a library or device is present).
     *
     * @param config the configuration it would be opened with.
     * @return null when it can be opened, else a reason a user can act on.
     */
    String unavailableReason(RdmaConfig config);

    /**
     * Checks the provider's own settings (its system properties), which {@link #unavailableReason}
     * reports as a reason like any other: a choice between providers must not take a malformed
     * setting for an absent device.
     *
     * @throws IllegalArgumentException naming the setting and its allowed values.
     */
    default void checkSettings()
    {
    }

    /**
     * Opens the device this configuration names.
     *
     * @param config concluded configuration.
     * @return an open device; close it to release everything created from it.
     * @throws RdmaException when the device cannot be opened; the message says what to change.
     */
    Device open(RdmaConfig config);
}
