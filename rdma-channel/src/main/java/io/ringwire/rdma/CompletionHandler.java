package io.ringwire.rdma;

/**
 * Receives the completions drained by {@link CompletionQueue#poll(CompletionHandler, int)}, one
 * call per completion with primitive arguments, so polling allocates nothing. Called on the
 * polling thread; must not call back into the same completion queue's {@code poll}.
 */
@FunctionalInterface
public interface CompletionHandler
{
    /**
     * One completion.
     *
     * @param workRequestId the id given when the request was posted.
     * @param opcode        a {@link CompletionOpcode}.
     * @param status        a {@link CompletionStatus}; anything else than SUCCESS means the queue pair is in ERROR.
     * @param byteLength    bytes received, for receive completions; bytes of the request otherwise.
     * @param immediate     the immediate value of a SEND/WRITE WITH IMMEDIATE, else 0.
     * @param queuePairNumber the queue pair the request belonged to.
     */
    void onCompletion(long workRequestId, int opcode, int status, int byteLength, int immediate, int queuePairNumber);
}
