package io.ringwire.exchange.engine;

import io.ringwire.exchange.book.RestingOrder;

import java.util.List;

/**
 * A matching engine's whole state at one point of its journal: what a snapshot holds, and what a
 * restart restores before it replays the journal after {@code journalSequence}.
 *
 * @param journalSequence      journal records applied up to this state.
 * @param lastExecId           the last execution id sent.
 * @param engineSequence       the last engine sequence sent.
 * @param streamSequence       the last market-data stream sequence sent.
 * @param instrumentSequences  the last market-data sequence per instrument, index = instrument id.
 * @param digestChain          the output digest's chain, linked at this point.
 * @param digestBytes          bytes digested up to here.
 * @param lastOrderId          the last order id given.
 * @param lastMatchId          the last match id given.
 * @param lastPriority         the last time priority given.
 * @param orders               every resting order.
 */
public record EngineState(long journalSequence, long lastExecId, long engineSequence, long streamSequence,
    long[] instrumentSequences, byte[] digestChain, long digestBytes, long lastOrderId, long lastMatchId,
    long lastPriority, List<RestingOrder> orders)
{
}
