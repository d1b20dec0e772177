package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;

/**
 * A completion copied out of a poll, for assertions.
 *
 * @param workRequestId   of the request.
 * @param opcode          CompletionOpcode.
 * @param status          CompletionStatus.
 * @param byteLength      bytes.
 * @param immediate       immediate.
 * @param queuePairNumber queue pair.
 */
record PolledCompletion(long workRequestId, int opcode, int status, int byteLength, int immediate, int queuePairNumber)
{
    @Override
    public String toString()
    {
        return "{wrId=" + workRequestId + ", " + CompletionOpcode.name(opcode) + ", " + CompletionStatus.name(status) +
            ", len=" + byteLength + ", imm=" + immediate + ", qpn=0x" + Integer.toHexString(queuePairNumber) + '}';
    }
}
