package io.ringwire.rdma.cm;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * Identity keys on disk, in a text form a person can read and copy:
 *
 * <pre>
 * gateway-1.key (the identity; mode 600, read only by its owner's processes)
 *   identity=gateway-1
 *   private-key=&lt;base64 of the PKCS#8 encoding&gt;
 *   public-key=&lt;base64 of the X.509 encoding&gt;
 *
 * gateway-1.pub (what an endpoint that accepts gateway-1 holds)
 *   identity=gateway-1
 *   public-key=&lt;base64 of the X.509 encoding&gt;
 * </pre>
 *
 * <p>A private key file that others may read is refused, as ssh refuses one: whoever reads it can
 * pass for the identity. Every refusal names the file and what to do.
 *
 * <p>Threading: stateless.
 */
public final class KeyFiles
{
    /** Ending of an identity (private key) file. */
    public static final String IDENTITY_SUFFIX = ".key";
    /** Ending of a public key file. */
    public static final String PUBLIC_SUFFIX = ".pub";

    private static final String IDENTITY = "identity";
    private static final String PRIVATE_KEY = "private-key";
    private static final String PUBLIC_KEY = "public-key";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private KeyFiles()
    {
    }

    /**
     * Writes {@code <directory>/<name>.key} (mode 600) and {@code <directory>/<name>.pub}.
     *
     * @param directory where; created when missing.
     * @param identity  the identity.
     * @return the identity file.
     * @throws UncheckedIOException when a file cannot be written.
     */
    public static Path write(final Path directory, final Identity identity)
    {
        try
        {
            Files.createDirectories(directory);
            final Path keyFile = directory.resolve(identity.name() + IDENTITY_SUFFIX);
            Files.deleteIfExists(keyFile);
            if (null != Files.getFileAttributeView(directory, PosixFileAttributeView.class))
            {
                Files.createFile(keyFile, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            Files.writeString(keyFile, "# RingWire identity '" + identity.name() + "': whoever reads this file can " +
                "pass for it; keep it to its owner (mode 600)\n" +
                IDENTITY + "=" + identity.name() + "\n" +
                PRIVATE_KEY + "=" + base64(identity.encodedPrivateKey()) + "\n" +
                PUBLIC_KEY + "=" + base64(identity.peerKey().encoded()) + "\n", StandardCharsets.UTF_8);
            writePublic(directory, identity.peerKey());
            return keyFile;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the key files of '" + identity.name() + "' in " + directory +
                ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Writes {@code <directory>/<name>.pub}.
     *
     * @param directory where; created when missing.
     * @param key       the public key.
     * @return the file.
     * @throws UncheckedIOException when it cannot be written.
     */
    public static Path writePublic(final Path directory, final PeerKey key)
    {
        final Path file = directory.resolve(key.name() + PUBLIC_SUFFIX);
        try
        {
            Files.createDirectories(directory);
            Files.writeString(file, "# RingWire public key of '" + key.name() + "' (fingerprint " + key.fingerprint() +
                "): endpoints that accept this identity hold this file\n" +
                IDENTITY + "=" + key.name() + "\n" +
                PUBLIC_KEY + "=" + base64(key.encoded()) + "\n", StandardCharsets.UTF_8);
            return file;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write " + file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param file an identity file.
     * @return the identity.
     * @throws IllegalArgumentException when the file is missing, readable by others, or not an
     *                                  identity file (the message names it and the problem).
     */
    public static Identity readIdentity(final Path file)
    {
        final Properties properties = load(file);
        checkOwnerOnly(file);
        final String name = required(file, properties, IDENTITY);
        final byte[] privateKey = decode(file, properties, PRIVATE_KEY);
        final byte[] publicKey = decode(file, properties, PUBLIC_KEY);
        try
        {
            return Identity.decode(name, privateKey, publicKey);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param file a public key file, or an identity file (its public half is read).
     * @return the peer key.
     * @throws IllegalArgumentException when the file is missing or not a key file.
     */
    public static PeerKey readPublic(final Path file)
    {
        final Properties properties = load(file);
        final String name = required(file, properties, IDENTITY);
        final byte[] publicKey = decode(file, properties, PUBLIC_KEY);
        try
        {
            return PeerKey.decode(name, publicKey);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param fileOrDirectory a public key file, or a directory whose {@code *.pub} files are read.
     * @return the peer keys, by file name.
     * @throws IllegalArgumentException when a file is not a key file, or a directory holds none.
     */
    public static List<PeerKey> readTrusted(final Path fileOrDirectory)
    {
        if (!Files.isDirectory(fileOrDirectory))
        {
            return List.of(readPublic(fileOrDirectory));
        }
        final List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(fileOrDirectory, "*" + PUBLIC_SUFFIX))
        {
            stream.forEach(files::add);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot list " + fileOrDirectory + ": " + ex.getMessage(), ex);
        }
        if (files.isEmpty())
        {
            throw new IllegalArgumentException(fileOrDirectory + " holds no public key file (*" + PUBLIC_SUFFIX + ")");
        }
        files.sort(Comparator.naturalOrder());
        final List<PeerKey> keys = new ArrayList<>();
        for (final Path file : files)
        {
            keys.add(readPublic(file));
        }
        return keys;
    }

    private static Properties load(final Path file)
    {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            properties.load(reader);
            return properties;
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read key file " + file + ": " + ex.getMessage() +
                "; make one with ./ringwire keygen NAME", ex);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(file + " is not a RingWire key file: " + ex.getMessage(), ex);
        }
    }

    private static void checkOwnerOnly(final Path file)
    {
        try
        {
            if (null == Files.getFileAttributeView(file, PosixFileAttributeView.class))
            {
                return;
            }
            final Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            for (final PosixFilePermission permission : permissions)
            {
                if (!OWNER_ONLY.contains(permission) && permission != PosixFilePermission.OWNER_EXECUTE)
                {
                    throw new IllegalArgumentException("identity file " + file + " is readable or writable by others (" +
                        PosixFilePermissions.toString(permissions) + "): whoever reads it can pass for its identity; " +
                        "chmod 600 " + file);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read the permissions of " + file + ": " + ex.getMessage(), ex);
        }
    }

    private static String required(final Path file, final Properties properties, final String key)
    {
        final String value = properties.getProperty(key);
        if (null == value || value.isBlank())
        {
            throw new IllegalArgumentException(file + " has no '" + key + "=' line: not a RingWire key file " +
                "(make one with ./ringwire keygen NAME)");
        }
        return value.trim();
    }

    private static byte[] decode(final Path file, final Properties properties, final String key)
    {
        try
        {
            return Base64.getDecoder().decode(required(file, properties, key));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(file + ": '" + key + "' is not base64: " + ex.getMessage(), ex);
        }
    }

    private static String base64(final byte[] bytes)
    {
        return Base64.getEncoder().encodeToString(bytes);
    }
}
