package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairEndpoint;

import java.util.List;

/**
 * The decoded body of a REQ or a REP.
 *
 * @param nonce           the sender's fresh nonce.
 * @param echoedNonce     the nonce of the message this answers (REP: the REQ's); zeros in a REQ.
 * @param endpoint        the sender's queue pair endpoint.
 * @param regions         the regions the sender advertises.
 * @param applicationData the sender's opaque application payload.
 * @param identity        the identity the sender signs as; trusted only once the signature verified.
 * @param addressedTo     a REQ's: the identity of the listener it was made for, as that listener's
 *                        CHALLENGE named it; null in a REP.
 */
record ConnectMessage(byte[] nonce, byte[] echoedNonce, QueuePairEndpoint endpoint, List<RegionAdvertisement> regions,
    byte[] applicationData, String identity, String addressedTo)
{
}
