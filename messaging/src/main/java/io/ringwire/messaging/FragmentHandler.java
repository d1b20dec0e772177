package io.ringwire.messaging;

import org.agrona.DirectBuffer;

/**
 * Receives fragments from {@link Subscription#poll}, in place in the ring: read (decode) what you
 * need before returning, the bytes are reused once credit is returned. Use a
 * {@link FragmentAssembler} to get whole messages when they may be fragmented.
 */
@FunctionalInterface
public interface FragmentHandler
{
    /**
     * @param buffer holding the fragment.
     * @param offset of the payload.
     * @param length of the payload.
     * @param header of the frame.
     */
    void onFragment(DirectBuffer buffer, int offset, int length, Header header);
}
