package io.ringwire.rdma;

/**
 * A completion copied out of a poll, for assertions in tests.
 *
 * @param workRequestId   of the request.
 * @param opcode          CompletionOpcode.
 * @param status          CompletionStatus.
 * @param byteLength      bytes.
 * @param immediate       immediate.
 * @param queuePairNumber queue pair.
 */
public record Completion(long workRequestId, int opcode, int status, int byteLength, int immediate, int queuePairNumber)
{
    @Override
    public String toString()
    {
        return "Completion{wrId=" + workRequestId + ", " + CompletionOpcode.name(opcode) + ", " +
            CompletionStatus.name(status) + ", len=" + byteLength + ", imm=" + immediate + ", qpn=0x" +
            Integer.toHexString(queuePairNumber) + '}';
    }
}
