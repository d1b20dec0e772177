package io.ringwire.rdma.shm;

import io.ringwire.rdma.host.NativeCalls;
import io.ringwire.rdma.host.RegularFiles;
import org.agrona.IoUtil;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Memory files a peer cannot shrink under the process that maps them. A process that maps a file
 * another process created takes a SIGBUS (in Java, an {@link InternalError} thrown wherever the
 * next load or store lands) on every page the owner truncates away. A shm file is shared between
 * peers of different trust (a client's subscription, the gateway writing into it), so each file is
 * a memfd sealed against shrinking ({@code F_SEAL_SHRINK}, and {@code F_SEAL_SEAL} so that no
 * other seal can be added to stop its peers' writable mappings), and a process maps a peer's file
 * only after reading those seals on the file it opened: a file that could be shrunk is refused,
 * whoever made it.
 *
 * <p>A memfd has no name in the file system; it lives while a descriptor or mapping holds it. Its
 * creator keeps its descriptor open and names it in the shm directory by a symbolic link to
 * {@code /proc/<pid>/fd/<fd>}. The kernel opens that link (its ptrace read check) for root, or for
 * a process whose user and group ids all equal the creator's, in the same pid namespace, when the
 * creator is dumpable and holds no capability the opener lacks. A process started with file
 * capabilities, or one that changed its credentials, is not dumpable, so a creator makes itself
 * dumpable again, and says so. When the creator dies the link dangles and the memory goes with the
 * last peer's mapping.
 *
 * <p>The seal alone does not keep a fault away: a hugetlbfs memfd, sealed too, loses pages to a
 * hole punched in it and faults when its pool is spent. A peer's file must also be on tmpfs.
 *
 * <p>Threading: stateless; setup and teardown paths only (each call allocates). Linux on amd64,
 * aarch64, ppc64le or riscv64.
 */
final class SealedFiles
{
    private static final int MFD_CLOEXEC = 0x1;
    private static final int MFD_ALLOW_SEALING = 0x2;
    /** Linux 6.3+: not executable, ever (kernels that enforce it refuse a memfd without it). */
    private static final int MFD_NOEXEC_SEAL = 0x8;
    private static final int PR_GET_DUMPABLE = 3;
    private static final int PR_SET_DUMPABLE = 4;
    private static final long TMPFS_MAGIC = 0x0102_1994L;
    /** Bytes of a {@code struct statfs} on the architectures above (120), rounded up. */
    private static final int STATFS_BYTES = 256;
    private static final int F_ADD_SEALS = 1033;
    private static final int F_GET_SEALS = 1034;
    private static final int F_SEAL_SEAL = 0x1;
    /** The seal a peer's file must carry. */
    static final int F_SEAL_SHRINK = 0x2;
    private static final int O_RDWR = 2;
    // Opened without blocking and without becoming a terminal: the link may name whatever a reused
    // pid's process holds at that descriptor, such as a FIFO.
    private static final int O_NOCTTY = 0x100;
    private static final int O_NONBLOCK = 0x800;
    private static final int O_CLOEXEC = 0x80000;
    private static final int ENOENT = 2;
    private static final int EACCES = 13;
    private static final int EINVAL = 22;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;

    private static final System.Logger LOGGER = System.getLogger(SealedFiles.class.getName());
    private static final StructLayout CALL_STATE = NativeCalls.CALL_STATE;
    private static final Functions LIBC = Functions.load();

    private SealedFiles()
    {
    }

    private record Functions(MethodHandle memfdCreate, MethodHandle open, MethodHandle fcntl, MethodHandle fstatfs,
        MethodHandle prctl, MethodHandle close, String unavailable)
    {
        static Functions load()
        {
            // struct statfs's f_type is a long at offset 0 on these, an int on s390x.
            final String unsupported = NativeCalls.unsupportedPlatform("the shm provider (memfd)");
            if (null != unsupported)
            {
                return unavailable(unsupported);
            }
            try
            {
                final Linker.Option errno = NativeCalls.CAPTURE_ERRNO;
                // open and fcntl are variadic: their third argument is passed as one.
                final Linker.Option variadicThird = Linker.Option.firstVariadicArg(2);
                return new Functions(
                    NativeCalls.libc("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno),
                    NativeCalls.libc("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                        errno, variadicThird),
                    NativeCalls.libc("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                        errno, variadicThird),
                    NativeCalls.libc("fstatfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)),
                    NativeCalls.libc("prctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG),
                        Linker.Option.firstVariadicArg(1)),
                    NativeCalls.libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT)),
                    null);
            }
            catch (final RuntimeException ex)
            {
                return unavailable("libc's memfd calls are not callable: " + ex.getMessage());
            }
        }

        private static Functions unavailable(final String reason)
        {
            return new Functions(null, null, null, null, null, null, reason);
        }
    }

    /**
     * Creates a memfd of {@code length} zero bytes, maps it and seals it against shrinking.
     *
     * @param name   for {@code /proc/<pid>/fd}'s link text ("memfd:name").
     * @param length bytes.
     * @return its open descriptor, which the caller closes when the file is deleted, and its mapping.
     * @throws IOException when it cannot be created, sized or sealed.
     */
    static Created create(final String name, final long length) throws IOException
    {
        available();
        makeDumpable();
        final int fd = call("memfd_create", arena ->
        {
            final MemorySegment state = arena.allocate(CALL_STATE);
            final MemorySegment cName = arena.allocateFrom(name);
            int created = (int)LIBC.memfdCreate().invokeExact(state, cName,
                MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
            if (created < 0 && errno(state) == EINVAL)
            {
                // A kernel before 6.3 knows no MFD_NOEXEC_SEAL.
                created = (int)LIBC.memfdCreate().invokeExact(state, cName, MFD_CLOEXEC | MFD_ALLOW_SEALING);
            }
            if (created < 0)
            {
                final int errno = errno(state);
                throw new IOException("memfd_create failed, errno " + errno + (errno == EMFILE || errno == ENFILE ?
                    " (too many open files: each shm region, ring and device holds a descriptor; raise ulimit -n)" : ""));
            }
            return created;
        });
        MappedByteBuffer mapping = null;
        Created created = null;
        try
        {
            try (FileChannel channel = reopen(fd, READ, WRITE))
            {
                // Mapping past the end grows the file; the pages stay unallocated until touched.
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            }
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL, "F_ADD_SEALS");
            created = new Created(fd, mapping);
            return created;
        }
        finally
        {
            if (null == created)
            {
                if (null != mapping)
                {
                    IoUtil.unmap(mapping);
                }
                close(fd);
            }
        }
    }

    /** A new sealed file: its descriptor and its mapping. */
    record Created(int fd, MappedByteBuffer mapping)
    {
    }

    /**
     * Opens a file a peer created, through a link or not, to map it: checks its seals and its file
     * system on the descriptor opened, so that no link swapped in between can pass another file.
     *
     * @param file to open.
     * @return a read-write channel on the same file.
     * @throws UnsealedFileException when the file can be shrunk (not a memfd on tmpfs sealed with F_SEAL_SHRINK).
     * @throws NoSuchFileException   when there is no such file, or the link names a descriptor its
     *                               process no longer holds.
     * @throws IOException           when it cannot be opened.
     */
    static FileChannel openSealed(final Path file) throws IOException
    {
        final int fd = open(file, O_RDWR);
        try
        {
            final int seals = fcntlOrMinusOne(fd, F_GET_SEALS, 0);
            if (seals < 0 || (seals & F_SEAL_SHRINK) == 0 || !onTmpfs(fd))
            {
                throw new UnsealedFileException(file + " is not a memory file sealed against shrinking " +
                    "(a memfd on tmpfs with F_SEAL_SHRINK): its owner could truncate it under this process's mapping");
            }
            return reopen(fd, READ, WRITE);
        }
        finally
        {
            close(fd);
        }
    }

    /**
     * Opens a file of the shm directory to read, whatever its seals, when it is a regular file (a
     * link of a reused pid may name a FIFO, which would block, or a device).
     *
     * @param file to open.
     * @return a read-only channel on the same file.
     * @throws NoSuchFileException                  when there is no such file, or the link dangles.
     * @throws RegularFiles.NotRegularFileException when it is not a regular file.
     * @throws IOException                          when it cannot be opened.
     */
    static FileChannel openForReading(final Path file) throws IOException
    {
        available();
        return RegularFiles.openForReading(file);
    }

    private static int open(final Path file, final int access) throws IOException
    {
        available();
        return call("open " + file, arena ->
        {
            final MemorySegment state = arena.allocate(CALL_STATE);
            final int fd = (int)LIBC.open().invokeExact(state, arena.allocateFrom(file.toString()),
                access | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0);
            if (fd >= 0)
            {
                return fd;
            }
            final int errno = errno(state);
            if (errno == ENOENT)
            {
                // No name, or a link whose process no longer holds the descriptor.
                throw new NoSuchFileException(file.toString());
            }
            throw new IOException("cannot open " + file + ": errno " + errno + (errno == EACCES ?
                " (permission denied: a peer's file opens only for a process of its user and group, or root, in " +
                "its pid namespace, and only when its owner holds no capability this process lacks)" : ""));
        });
    }

    private static boolean onTmpfs(final int fd) throws IOException
    {
        return call("fstatfs", arena ->
        {
            final MemorySegment statfs = arena.allocate(STATFS_BYTES, Long.BYTES);
            // f_type is the first field of struct statfs, a long on the architectures allowed.
            return (int)LIBC.fstatfs().invokeExact(fd, statfs) == 0 && statfs.get(JAVA_LONG, 0) == TMPFS_MAGIC;
        });
    }

    /**
     * Peers open this process's files through {@code /proc/<pid>/fd}, which the kernel gives to root
     * alone while the process is not dumpable (it was started with file capabilities, or changed
     * its credentials).
     */
    private static void makeDumpable() throws IOException
    {
        final boolean made = call("prctl", arena -> (int)LIBC.prctl().invokeExact(PR_GET_DUMPABLE, 0L) == 0 &&
            (int)LIBC.prctl().invokeExact(PR_SET_DUMPABLE, 1L) == 0);
        if (made)
        {
            LOGGER.log(System.Logger.Level.WARNING, "this process was not dumpable (started with file " +
                "capabilities, or its credentials changed) and is now, so that its shm peers can open its " +
                "files through /proc: processes of its user can read its memory, and it may dump core");
        }
    }

    /**
     * Closes a descriptor {@link #create} returned.
     */
    static void close(final int fd)
    {
        try
        {
            final int ignored = (int)LIBC.close().invokeExact(fd);
        }
        catch (final Throwable ignored)
        {
            // Closing is best effort on teardown paths.
        }
    }

    private static FileChannel reopen(final int fd, final OpenOption... options) throws IOException
    {
        // Opening a process's own descriptor through /proc opens the same file (for a memfd, the
        // same memory), which the JDK's channels can then map.
        return FileChannel.open(Path.of("/proc/self/fd/" + fd), options);
    }

    private static void fcntl(final int fd, final int command, final int argument, final String what)
        throws IOException
    {
        call(what, arena ->
        {
            final MemorySegment state = arena.allocate(CALL_STATE);
            if ((int)LIBC.fcntl().invokeExact(state, fd, command, argument) < 0)
            {
                throw new IOException(what + " failed, errno " + errno(state));
            }
            return null;
        });
    }

    private static int fcntlOrMinusOne(final int fd, final int command, final int argument) throws IOException
    {
        return call("fcntl", arena -> (int)LIBC.fcntl().invokeExact(arena.allocate(CALL_STATE), fd, command, argument));
    }

    /** A foreign call of a set-up path, with an arena for its arguments that lives for the call. */
    @FunctionalInterface
    private interface Call<T>
    {
        T run(Arena arena) throws Throwable;
    }

    /**
     * @return what the call returned.
     * @throws IOException what it threw, or naming {@code what} when a handle threw a checked
     *                     exception of its own (it declares Throwable).
     */
    private static <T> T call(final String what, final Call<T> call) throws IOException
    {
        try (Arena arena = Arena.ofConfined())
        {
            return call.run(arena);
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IOException(what + " failed: " + ex, ex);
        }
    }

    private static int errno(final MemorySegment state)
    {
        return NativeCalls.errno(state);
    }

    private static void available() throws IOException
    {
        if (null != LIBC.unavailable())
        {
            throw new IOException(LIBC.unavailable());
        }
    }

    /** @return null when files can be created and opened here, else why not. */
    static String unavailableReason()
    {
        return LIBC.unavailable();
    }

    /** A file a peer could shrink: refused, whoever made it. */
    static final class UnsealedFileException extends IOException
    {
        private static final long serialVersionUID = 1L;

        UnsealedFileException(final String message)
        {
            super(message);
        }
    }
}
