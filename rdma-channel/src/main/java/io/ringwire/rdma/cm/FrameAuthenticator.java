package io.ringwire.rdma.cm;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * Signs and verifies frames with HMAC-SHA256 under the shared secret, and makes the random nonces
 * that keep every signed message unique. The secret never leaves this object.
 *
 * <p>Threading: safe from any thread (a {@link Mac} is made per call; nothing here is hot).
 */
final class FrameAuthenticator
{
    /** Bytes of an HMAC-SHA256 tag. */
    static final int MAC_LENGTH = 32;
    /** Bytes of a nonce. */
    static final int NONCE_LENGTH = 16;

    private static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    FrameAuthenticator(final byte[] secret)
    {
        this.key = new SecretKeySpec(secret, ALGORITHM);
    }

    /**
     * Writes the tag of {@code frame[0, length)} into {@code frame[length, length + MAC_LENGTH)}.
     */
    void sign(final byte[] frame, final int length)
    {
        final Mac mac = newMac();
        mac.update(frame, 0, length);
        try
        {
            mac.doFinal(frame, length);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("frame buffer has no room for the HMAC tag", ex);
        }
    }

    /**
     * @return whether {@code tag} is the tag of {@code signed} (compared in constant time).
     */
    boolean verify(final byte[] signed, final byte[] tag)
    {
        final Mac mac = newMac();
        return MessageDigest.isEqual(mac.doFinal(signed), tag);
    }

    private Mac newMac()
    {
        try
        {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            // Every Java platform must provide HmacSHA256, so this is a broken JDK installation.
            throw new IllegalStateException(ALGORITHM + " is unavailable in this JDK (" +
                System.getProperty("java.home") + "); the connection manager needs it", ex);
        }
    }

    /**
     * @return {@value #NONCE_LENGTH} fresh random bytes.
     */
    static byte[] newNonce()
    {
        final byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }
}
