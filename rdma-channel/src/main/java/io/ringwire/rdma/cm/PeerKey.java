package io.ringwire.rdma.cm;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An identity another end proves, as an endpoint that accepts it knows it: the name and the
 * Ed25519 public key its signatures verify under. An endpoint is configured with the peer keys it
 * trusts; a handshake signed as any other name, or not verifying, is refused.
 *
 * @param name      the identity's name ({@link Identity#NAME_RULE}).
 * @param publicKey its Ed25519 public key.
 */
public record PeerKey(String name, PublicKey publicKey)
{
    /**
     * Checks the name and the key's algorithm.
     */
    public PeerKey
    {
        Identity.checkName(name);
        Objects.requireNonNull(publicKey, "publicKey");
        if (!"EdDSA".equals(publicKey.getAlgorithm()) && !Identity.ALGORITHM.equals(publicKey.getAlgorithm()))
        {
            throw new IllegalArgumentException("the key of '" + name + "' is " + publicKey.getAlgorithm() + ", not " +
                Identity.ALGORITHM);
        }
    }

    /**
     * @param name    the identity's name.
     * @param encoded the public key, X.509 encoded.
     * @return the peer key.
     * @throws IllegalArgumentException when the bytes are not an Ed25519 public key.
     */
    public static PeerKey decode(final String name, final byte[] encoded)
    {
        try
        {
            return new PeerKey(name, KeyFactory.getInstance(Identity.ALGORITHM)
                .generatePublic(new X509EncodedKeySpec(encoded)));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalArgumentException("the public key of '" + name + "' is not an " + Identity.ALGORITHM +
                " key in X.509 form: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the public key, X.509 encoded.
     */
    public byte[] encoded()
    {
        return publicKey.getEncoded();
    }

    /**
     * @param data      the signed bytes.
     * @param offset    where they start.
     * @param length    how many.
     * @param signature the signature to check.
     * @return whether {@code signature} is this identity's signature of the bytes.
     */
    boolean verify(final byte[] data, final int offset, final int length, final byte[] signature)
    {
        try
        {
            final Signature verifier = Signature.getInstance(Identity.ALGORITHM);
            verifier.initVerify(publicKey);
            verifier.update(data, offset, length);
            return verifier.verify(signature);
        }
        catch (final GeneralSecurityException ex)
        {
            // A signature of the wrong length or form is a failed verification, not an error.
            return false;
        }
    }

    /**
     * @return the first 8 bytes of the SHA-256 of the encoded key, in hex: what a person compares.
     */
    public String fingerprint()
    {
        try
        {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(encoded()), 0, 8);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("SHA-256 is unavailable in this JDK", ex);
        }
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof PeerKey that && name.equals(that.name) && Arrays.equals(encoded(), that.encoded());
    }

    @Override
    public int hashCode()
    {
        return 31 * name.hashCode() + Arrays.hashCode(encoded());
    }

    @Override
    public String toString()
    {
        return "PeerKey{" + name + ", " + fingerprint() + '}';
    }
}
