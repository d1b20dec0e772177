package io.ringwire.rdma.cm;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ringwire keygen NAME... [--dir DIR]}: makes an identity per name, writing
 * {@code NAME.key} (mode 600: the identity, for the process that proves it) and {@code NAME.pub}
 * (for every endpoint that is to accept it) into the directory, and prints each public key's
 * fingerprint.
 *
 * <p>Exit codes: 0 done, 1 an identity of that name exists already (never replaced) or a file could
 * not be written, 2 bad command line.
 */
public final class KeyTool
{
    private static final String USAGE = """
        usage: ringwire keygen NAME... [--dir DIR]

        Makes a RingWire identity per NAME (Ed25519): NAME.key, the identity, readable only by its owner
        (the process that proves it reads it), and NAME.pub, its public key (every endpoint that is to
        accept NAME holds it). An identity that exists (NAME.key or NAME.pub) is never replaced.
        Default directory: the current one. Names: %s.
        """.formatted(Identity.NAME_RULE);

    private KeyTool()
    {
    }

    /**
     * @param args names and options.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * @param args names and options.
     * @param out  where the written files are listed.
     * @param err  where refusals go.
     * @return the exit code.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        Path directory = Path.of("");
        boolean directoryGiven = false;
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--help", "-h" ->
                {
                    out.print(USAGE);
                    return 0;
                }
                case "--dir" ->
                {
                    if (i + 1 >= args.length)
                    {
                        err.println("ringwire keygen: --dir needs a directory");
                        return 2;
                    }
                    if (directoryGiven)
                    {
                        // Refused, not settled by which came last: the keys would land where the user did not look.
                        err.println("ringwire keygen: --dir is given twice");
                        return 2;
                    }
                    directoryGiven = true;
                    directory = Path.of(args[++i]);
                }
                default ->
                {
                    if (args[i].startsWith("-"))
                    {
                        err.println("ringwire keygen: unknown option '" + args[i] + "'; allowed: --dir, --help");
                        return 2;
                    }
                    names.add(args[i]);
                }
            }
        }
        if (names.isEmpty())
        {
            err.print(USAGE);
            return 2;
        }
        for (int i = 0; i < names.size(); i++)
        {
            final String name = names.get(i);
            try
            {
                Identity.checkName(name);
            }
            catch (final IllegalArgumentException ex)
            {
                err.println("ringwire keygen: " + ex.getMessage());
                return 2;
            }
            if (names.indexOf(name) != i)
            {
                // The second would replace the identity the first had just made.
                err.println("ringwire keygen: '" + name + "' is named twice");
                return 2;
            }
        }
        for (final String name : names)
        {
            final Path key = directory.resolve(name + KeyFiles.IDENTITY_SUFFIX);
            final Path existing = Files.exists(key, LinkOption.NOFOLLOW_LINKS) ? key :
                directory.resolve(name + KeyFiles.PUBLIC_SUFFIX);
            if (Files.exists(existing, LinkOption.NOFOLLOW_LINKS))
            {
                // Every peer trusting the old public key would refuse the new one, and the old
                // private key would be gone (or the .pub is a peer's trusted key, kept beside it):
                // replacing an identity is a deliberate act.
                err.println("ringwire keygen: " + existing + " exists already; keygen never replaces an identity " +
                    "(delete its .key and .pub first to make a new one, and hand the new .pub to its peers)");
                return 1;
            }
        }
        try
        {
            for (final String name : names)
            {
                final Identity identity = Identity.generate(name);
                final Path keyFile = KeyFiles.write(directory, identity);
                out.println(keyFile + " and " + name + KeyFiles.PUBLIC_SUFFIX + ": " + name + ", fingerprint " +
                    identity.peerKey().fingerprint());
            }
            return 0;
        }
        catch (final UncheckedIOException ex)
        {
            err.println("ringwire keygen: " + ex.getMessage());
            return 1;
        }
    }
}
