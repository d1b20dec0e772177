package io.ringwire.rdma.cm;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What one end of a connection proves: a name ({@code gateway-1}, {@code member-1001}) and the
 * Ed25519 private key behind it. The connection manager signs every message this end sends with it,
 * and the other end accepts the connection only when the name is among the {@link PeerKey}s it was
 * configured to trust and the signature verifies under that public key. The private key never
 * leaves this object but to its key file ({@link KeyFiles}).
 *
 * <p>Signatures rather than a shared secret keep trust zones apart: an endpoint that accepts an
 * identity holds only its public key, so a member that trusts its gateway's key cannot use it to
 * pass for the gateway anywhere else.
 *
 * <p>Threading: immutable; {@link #sign} is safe from any thread (a {@link Signature} is made per
 * call; nothing here is hot).
 */
public final class Identity
{
    /** The identity {@link #derive} makes for the one shared trust zone of a shared secret. */
    public static final String SHARED = "shared";
    /** Bytes of an Ed25519 signature. */
    public static final int SIGNATURE_LENGTH = 64;
    /** Longest identity name, in characters. */
    public static final int MAX_NAME_LENGTH = 64;
    /** What a name may hold, for its refusal. */
    public static final String NAME_RULE = "1 to " + MAX_NAME_LENGTH + " characters of letters, digits, '.', '_', " +
        "'-' and '@', starting with a letter or digit";

    static final String ALGORITHM = "Ed25519";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0," + (MAX_NAME_LENGTH - 1) + "}");
    private static final int SEED_LENGTH = 32;

    private final String name;
    private final PrivateKey privateKey;
    private final PeerKey peerKey;

    private Identity(final String name, final PrivateKey privateKey, final PublicKey publicKey)
    {
        this.name = checkName(name);
        this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
        this.peerKey = new PeerKey(name, publicKey);
    }

    /**
     * @param name the identity's name.
     * @return a new identity with a fresh random key pair.
     * @throws IllegalArgumentException when the name breaks {@link #NAME_RULE}.
     */
    public static Identity generate(final String name)
    {
        return fromGenerator(name, new SecureRandom());
    }

    /**
     * An identity every holder of {@code secret} can make: its key pair is derived from the secret
     * and the name (HMAC-SHA256 of the name under the secret is the Ed25519 seed). Holders of the
     * secret are one trust zone, as with a shared secret; keys of their own keep zones apart.
     *
     * @param name   the identity's name, usually {@link #SHARED}.
     * @param secret the shared secret; at least one byte.
     * @return the identity.
     * @throws IllegalArgumentException when the name breaks {@link #NAME_RULE} or the secret is empty.
     */
    public static Identity derive(final String name, final byte[] secret)
    {
        checkName(name);
        if (null == secret || secret.length == 0)
        {
            throw new IllegalArgumentException("an identity derived from a secret needs a non-empty secret");
        }
        final byte[] seed;
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            seed = mac.doFinal(("ringwire identity " + name).getBytes(StandardCharsets.UTF_8));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 is unavailable in this JDK; the connection manager needs it", ex);
        }
        // The generator draws the private key's 32 bytes, the seed, from its random source: this one
        // hands over the derived seed, so the same secret and name give the same key pair.
        return fromGenerator(name, new SecureRandom()
        {
            private static final long serialVersionUID = 1L;

            @Override
            public void nextBytes(final byte[] bytes)
            {
                System.arraycopy(seed, 0, bytes, 0, Math.min(bytes.length, SEED_LENGTH));
            }
        });
    }

    /**
     * @param name            the identity's name.
     * @param encodedPrivate  the private key, PKCS#8 encoded.
     * @param encodedPublic   the public key, X.509 encoded.
     * @return the identity.
     * @throws IllegalArgumentException when a key is not Ed25519, cannot be decoded, or the two do
     *                                  not belong together.
     */
    static Identity decode(final String name, final byte[] encodedPrivate, final byte[] encodedPublic)
    {
        final PrivateKey privateKey;
        try
        {
            privateKey = KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(encodedPrivate));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalArgumentException("the private key of '" + name + "' is not an " + ALGORITHM +
                " key in PKCS#8 form: " + ex.getMessage(), ex);
        }
        final Identity identity = new Identity(name, privateKey, PeerKey.decode(name, encodedPublic).publicKey());
        final byte[] probe = ("ringwire key check " + name).getBytes(StandardCharsets.UTF_8);
        if (!identity.peerKey.verify(probe, 0, probe.length, identity.sign(probe, 0, probe.length)))
        {
            throw new IllegalArgumentException("the private and public keys of '" + name + "' do not belong together");
        }
        return identity;
    }

    private static Identity fromGenerator(final String name, final SecureRandom random)
    {
        checkName(name);
        try
        {
            final KeyPairGenerator generator = KeyPairGenerator.getInstance(ALGORITHM);
            generator.initialize(NamedParameterSpec.ED25519, random);
            final KeyPair pair = generator.generateKeyPair();
            return new Identity(name, pair.getPrivate(), pair.getPublic());
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(ALGORITHM + " is unavailable in this JDK (" +
                System.getProperty("java.home") + "); the connection manager needs it", ex);
        }
    }

    /**
     * @param name a candidate identity name.
     * @return the name.
     * @throws IllegalArgumentException when it breaks {@link #NAME_RULE}.
     */
    public static String checkName(final String name)
    {
        if (null == name || !NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("identity name '" + name + "' is not allowed; allowed: " + NAME_RULE);
        }
        return name;
    }

    /**
     * @return the identity's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the public half, for the endpoints that are to accept this identity.
     */
    public PeerKey peerKey()
    {
        return peerKey;
    }

    /**
     * @return the private key, PKCS#8 encoded, for its key file only.
     */
    byte[] encodedPrivateKey()
    {
        return privateKey.getEncoded();
    }

    /**
     * @return the signature of {@code data[offset, offset + length)}, {@link #SIGNATURE_LENGTH} bytes.
     */
    byte[] sign(final byte[] data, final int offset, final int length)
    {
        try
        {
            final Signature signature = Signature.getInstance(ALGORITHM);
            signature.initSign(privateKey);
            signature.update(data, offset, length);
            return signature.sign();
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("signing as '" + name + "' failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the name and the public key's fingerprint; never the private key.
     */
    @Override
    public String toString()
    {
        return "Identity{" + name + ", " + peerKey.fingerprint() + '}';
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof Identity that && name.equals(that.name) && peerKey.equals(that.peerKey) &&
            Arrays.equals(encodedPrivateKey(), that.encodedPrivateKey());
    }

    @Override
    public int hashCode()
    {
        return peerKey.hashCode();
    }
}
