package io.ringwire.rdma;

import java.util.Objects;

/**
 * What a queue pair is created with ({@code ibv_qp_init_attr}).
 *
 * @param sendCompletionQueue    receives completions of sends, writes and reads.
 * @param receiveCompletionQueue receives completions of receives; may be the same queue.
 * @param maxSendRequests        send queue depth: outstanding (not yet completed) send requests;
 *                               posting past it returns {@link PostResult#QUEUE_FULL}.
 * @param maxReceiveRequests     receive queue depth.
 * @param maxInlineData          largest INLINE payload; at most the device's max inline size.
 */
public record QueuePairConfig(
    CompletionQueue sendCompletionQueue,
    CompletionQueue receiveCompletionQueue,
    int maxSendRequests,
    int maxReceiveRequests,
    int maxInlineData)
{
    /**
     * Validates the values.
     */
    public QueuePairConfig
    {
        Objects.requireNonNull(sendCompletionQueue, "sendCompletionQueue");
        Objects.requireNonNull(receiveCompletionQueue, "receiveCompletionQueue");
        if (maxSendRequests < 1 || maxReceiveRequests < 1)
        {
            throw new IllegalArgumentException("queue depths must be >= 1: send=" + maxSendRequests +
                " receive=" + maxReceiveRequests);
        }
        if (maxInlineData < 0)
        {
            throw new IllegalArgumentException("maxInlineData must be >= 0: " + maxInlineData);
        }
    }
}
