package io.ringwire.rdma.host;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Opens a file to read only when it is a regular file, and never opens anything else: a name in a
 * directory others may write may lead to a FIFO (put there, or swapped in between a check of the
 * name and its open), whose open would hold the caller until a writer opened it, or to a device,
 * whose open alone may act (a watchdog arms). The JDK cannot open a name without opening what it
 * leads to, so the name is resolved through libc with {@code O_PATH} (no file is opened: no
 * driver, no FIFO, is involved), checked through that descriptor (what the name led to, not what it
 * says now), and only a regular file is opened, through {@code /proc/self/fd}, as a channel.
 *
 * <p>Threading: any thread; stateless.
 */
public final class RegularFiles
{
    /** Linux's, on the architectures {@link Libc} allows. */
    private static final int O_PATH = 0x200000;
    private static final int O_CLOEXEC = 0x80000;
    private static final int ENOENT = 2;

    private RegularFiles()
    {
    }

    /** What a name leads to when it is no regular file (a FIFO, a socket, a device, a directory). */
    public static final class NotRegularFileException extends IOException
    {
        private static final long serialVersionUID = 1L;

        NotRegularFileException(final String message)
        {
            super(message);
        }
    }

    /** @return null when files can be opened here, else why not (not Linux, or libc not callable). */
    public static String unavailableReason()
    {
        return Libc.UNAVAILABLE;
    }

    /**
     * Reads from the channel's start until {@code into} is full: a file's header, read whole.
     *
     * @param channel a channel opened for reading.
     * @param into    filled from its position to its limit.
     * @return false when the file ends first (being created, or cut short).
     * @throws IOException when a read fails.
     */
    public static boolean readFully(final FileChannel channel, final ByteBuffer into) throws IOException
    {
        while (into.hasRemaining())
        {
            if (channel.read(into, into.position()) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param file to open; a symbolic link is followed.
     * @return a read-only channel on the file.
     * @throws NoSuchFileException     when there is no such file, or a link dangles.
     * @throws NotRegularFileException when it is not a regular file.
     * @throws IOException             when it cannot be opened (permissions, say), or files cannot be
     *                                 opened here ({@link #unavailableReason()}).
     */
    public static FileChannel openForReading(final Path file) throws IOException
    {
        final int fd = open(file);
        try
        {
            final Path descriptor = Path.of("/proc/self/fd/" + fd);
            if (!Files.isRegularFile(descriptor))
            {
                throw new NotRegularFileException(file + " is not a regular file");
            }
            return FileChannel.open(descriptor, StandardOpenOption.READ);
        }
        finally
        {
            close(fd);
        }
    }

    private static int open(final Path file) throws IOException
    {
        final MethodHandle open = Libc.open();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(NativeCalls.CALL_STATE);
            final int fd = (int)open.invokeExact(state, arena.allocateFrom(file.toString()),
                O_PATH | O_CLOEXEC, 0);
            if (fd >= 0)
            {
                return fd;
            }
            final int errno = NativeCalls.errno(state);
            if (errno == ENOENT)
            {
                throw new NoSuchFileException(file.toString());
            }
            throw new IOException("cannot open " + file + ": errno " + errno);
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IOException("open " + file + " failed: " + ex, ex);
        }
    }

    private static void close(final int fd)
    {
        try
        {
            final int ignored = (int)Libc.close().invokeExact(fd);
        }
        catch (final Throwable ignore)
        {
            // the descriptor is released with the process at worst
        }
    }

    /** libc's calls, bound at first use: where they are missing, each open fails with why. */
    private static final class Libc
    {
        private static final MethodHandle OPEN;
        private static final MethodHandle CLOSE;
        private static final String UNAVAILABLE;

        static
        {
            MethodHandle open = null;
            MethodHandle close = null;
            String unavailable = NativeCalls.unsupportedPlatform("opening files without opening what they lead to");
            if (null == unavailable)
            {
                try
                {
                    // open is variadic: its third argument is passed as one.
                    open = NativeCalls.libc("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                        NativeCalls.CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
                    close = NativeCalls.libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
                }
                catch (final RuntimeException ex)
                {
                    unavailable = "libc's open and close are not callable here: " + ex.getMessage();
                }
            }
            OPEN = open;
            CLOSE = close;
            UNAVAILABLE = unavailable;
        }

        static MethodHandle open() throws IOException
        {
            if (null != UNAVAILABLE)
            {
                throw new IOException(UNAVAILABLE);
            }
            return OPEN;
        }

        static MethodHandle close()
        {
            return CLOSE;
        }
    }
}
