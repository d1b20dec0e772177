package io.ringwire.rdma.doctor;

/**
 * One thing {@code ringwire doctor} looks at. Implementations read the machine only through
 * {@link Host}, so tests can feed them a fake {@code /proc} and {@code /sys}.
 */
public interface Check
{
    /**
     * @param host the machine.
     * @return exactly one finding, never null, whatever the machine looks like.
     */
    Finding run(Host host);
}
