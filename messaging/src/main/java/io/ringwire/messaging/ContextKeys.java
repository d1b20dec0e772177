package io.ringwire.messaging;

import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.KeyFiles;
import io.ringwire.rdma.cm.PeerKey;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A {@link MessagingContext}'s keys: the identities its process proves and the keys it accepts,
 * from the setters, else the key files the properties name; a shared secret when there are
 * neither, which every holder turns into the same identity of one trust zone.
 *
 * <p>Threading: as the context: built on one thread, concluded, then read-only.
 */
final class ContextKeys
{
    private String secret;
    private final String identityFiles;
    private final String trustFiles;
    private final List<Identity> identities = new ArrayList<>();
    private final List<PeerKey> trusted = new ArrayList<>();

    ContextKeys(final String secret, final String identityFiles, final String trustFiles)
    {
        this.secret = secret;
        this.identityFiles = identityFiles;
        this.trustFiles = trustFiles;
    }

    void secret(final String secret)
    {
        this.secret = secret;
    }

    void add(final Identity identity)
    {
        for (final Identity held : identities)
        {
            if (held.name().equals(identity.name()))
            {
                throw new IllegalArgumentException("the context already holds an identity named '" + identity.name() +
                    "'");
            }
        }
        identities.add(identity);
    }

    void trust(final Collection<PeerKey> keys)
    {
        trusted.addAll(keys);
    }

    List<Identity> identities()
    {
        return List.copyOf(identities);
    }

    List<PeerKey> trusted()
    {
        return List.copyOf(trusted);
    }

    /**
     * Reads the key files where no keys were set, checks that there is something to prove and
     * someone to accept, and concludes {@code config} with the default identity and every trusted key.
     *
     * @param config the connection manager's other settings.
     * @return {@code config}, concluded.
     * @throws IllegalArgumentException naming the properties and setters to use.
     */
    ConnectionManagerConfig conclude(final ConnectionManagerConfig config)
    {
        if (identities.isEmpty())
        {
            for (final String file : identityFiles.split(","))
            {
                if (!file.isBlank())
                {
                    identities.add(KeyFiles.readIdentity(Path.of(file.trim())));
                }
            }
        }
        if (trusted.isEmpty())
        {
            for (final String file : trustFiles.split(","))
            {
                if (!file.isBlank())
                {
                    trusted.addAll(KeyFiles.readTrusted(Path.of(file.trim())));
                }
            }
        }
        if (identities.isEmpty())
        {
            if (secret.isEmpty())
            {
                throw new IllegalArgumentException("no identity: publications and subscriptions prove one; give this " +
                    "process its identity with MessagingContext.identity(...) or -D" +
                    MessagingContext.IDENTITY_FILES_PROP + "=FILE (./ringwire keygen NAME makes one) and the keys it " +
                    "accepts with trust(...) or -D" + MessagingContext.TRUST_PROP + "=FILE_OR_DIRECTORY; or, for one " +
                    "trust zone, the same -D" + MessagingContext.SECRET_PROP + "=... on every end");
            }
            final ConnectionManagerConfig concluded = config.secret(secret.getBytes(StandardCharsets.UTF_8)).conclude();
            identities.add(concluded.identity());
            if (trusted.isEmpty())
            {
                trusted.addAll(concluded.trusted().values());
                return concluded;
            }
            return concluded.withAccess(concluded.identity(), trusted);
        }
        if (trusted.isEmpty())
        {
            throw new IllegalArgumentException("no trusted key: this process holds identities " +
                identities.stream().map(Identity::name).toList() + " but accepts nobody; give the public keys it " +
                "accepts with trust(...) or -D" + MessagingContext.TRUST_PROP + "=FILE_OR_DIRECTORY");
        }
        return config.identity(identities.getFirst()).trust(trusted).conclude();
    }
}
