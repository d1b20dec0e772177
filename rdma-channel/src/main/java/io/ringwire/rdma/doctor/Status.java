package io.ringwire.rdma.doctor;

/**
 * How a finding bears on low latency.
 */
public enum Status
{
    /** Ready: nothing to change. */
    OK,
    /** Worth knowing; optional to change. */
    INFO,
    /** Costs latency or blocks a faster provider: change it (the finding says how). */
    WARN,
    /** Breaks something RingWire needs. */
    FAIL
}
