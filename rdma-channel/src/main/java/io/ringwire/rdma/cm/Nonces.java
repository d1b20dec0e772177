package io.ringwire.rdma.cm;

import java.security.SecureRandom;

/**
 * The fresh random nonces that make every signed connection-manager message unique and tie each
 * answer to the message it answers (see {@link WireFormat}).
 *
 * <p>Threading: safe from any thread.
 */
final class Nonces
{
    /** Bytes of a nonce. */
    static final int LENGTH = 16;

    private static final SecureRandom RANDOM = new SecureRandom();

    private Nonces()
    {
    }

    /**
     * @return {@value #LENGTH} fresh random bytes.
     */
    static byte[] newNonce()
    {
        final byte[] nonce = new byte[LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }
}
