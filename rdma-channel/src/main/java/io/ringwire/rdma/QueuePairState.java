package io.ringwire.rdma;

/**
 * States of a reliable-connected queue pair, as in verbs. Allowed moves: RESET to INIT, INIT to
 * RTR, RTR to RTS, and any state to ERROR or RESET.
 */
public enum QueuePairState
{
    /** Created; accepts nothing. */
    RESET,
    /** Initialised: receives may be posted; nothing is sent or received yet. */
    INIT,
    /** Ready to receive: knows its peer; incoming requests are executed. */
    READY_TO_RECEIVE,
    /** Ready to send: sends may be posted. */
    READY_TO_SEND,
    /** Failed or torn down: every outstanding and newly posted request completes with a flush status. */
    ERROR
}
