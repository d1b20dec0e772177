package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

// "restricted": this class binds native functions or gives native pointers a size (FFM restricted methods);
// the JVM runs with --enable-native-access=ALL-UNNAMED (surefire argLine, ./ringwire, jar manifest).
/**
 * The devices libibverbs sees ({@code ibv_get_device_list}), held open until {@link #close()}
 * ({@code ibv_free_device_list}); a device must be opened before the list is freed.
 *
 * <p>{@code ibv_get_device_list} returns NULL, with errno ENOSYS, when the kernel has no RDMA
 * support at all (no {@code /sys/class/infiniband}, no uverbs): that NULL is never freed. An empty
 * list (no device, but a kernel that could have one) is freed.
 *
 * <p>Threading: one thread.
 */
@SuppressWarnings("restricted")
final class DeviceList implements AutoCloseable
{
    /** What to do when there is no device, for every message that reports it. */
    static final String NO_DEVICE_FIX = "load a Soft-RoCE device (modprobe rdma_rxe; rdma link add rxe0 type rxe " +
        "netdev eth0) or use provider socket";

    private final Verbs verbs;
    private final MemorySegment list;
    private final int count;
    private boolean freed;

    private DeviceList(final Verbs verbs, final MemorySegment list, final int count)
    {
        this.verbs = verbs;
        this.list = list.reinterpret((long)(count + 1) * ADDRESS.byteSize());
        this.count = count;
    }

    /**
     * @param verbs the library.
     * @return the list, with at least one device.
     * @throws RdmaException "no RDMA device: ..." with the fix, when there is none.
     */
    static DeviceList open(final Verbs verbs)
    {
        final MemorySegment list;
        final int count;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment countOut = arena.allocate(JAVA_INT);
            try
            {
                list = verbs.getDeviceList(countOut);
            }
            catch (final VerbsCallException ex)
            {
                throw new RdmaException(noDeviceMessage(ex.errno()), ex);
            }
            count = countOut.get(JAVA_INT, 0);
        }
        if (count <= 0)
        {
            verbs.freeDeviceList(list);
            throw new RdmaException(noDeviceMessage(0));
        }
        return new DeviceList(verbs, list, count);
    }

    /**
     * @param errno of a NULL {@code ibv_get_device_list}, or 0 for an empty list.
     * @return "no RDMA device: why; what to do".
     */
    static String noDeviceMessage(final int errno)
    {
        final String why;
        if (errno == 0)
        {
            why = "libibverbs lists 0 devices";
        }
        else if (errno == Errno.ENOSYS)
        {
            why = "ibv_get_device_list failed with " + Errno.describe(errno) +
                ": this kernel has no RDMA support (no /sys/class/infiniband)";
        }
        else
        {
            why = "ibv_get_device_list failed with " + Errno.describe(errno);
        }
        return "no RDMA device: " + why + "; " + NO_DEVICE_FIX;
    }

    /**
     * @return how many devices.
     */
    int count()
    {
        return count;
    }

    /**
     * @param index 0 to count - 1.
     * @return the {@code struct ibv_device *}.
     */
    MemorySegment device(final int index)
    {
        return list.getAtIndex(ADDRESS, index);
    }

    /**
     * @param index 0 to count - 1.
     * @return the kernel device name, e.g. "rxe0", "mlx5_0".
     */
    String name(final int index)
    {
        return verbs.getDeviceName(device(index));
    }

    /**
     * @return every device name, in list order.
     */
    List<String> names()
    {
        final List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            names.add(name(i));
        }
        return names;
    }

    /**
     * @param settings names the device ("" for the first).
     * @return the index of that device.
     * @throws RdmaException naming the devices present when it is not among them.
     */
    int indexOf(final IbverbsSettings settings)
    {
        if (settings.deviceName().isEmpty())
        {
            return 0;
        }
        for (int i = 0; i < count; i++)
        {
            if (name(i).equals(settings.deviceName()))
            {
                return i;
            }
        }
        throw new RdmaException("RDMA device '" + settings.deviceName() + "' (" + IbverbsProvider.DEVICE_PROP +
            ") not found; present: " + names() + ": set " + IbverbsProvider.DEVICE_PROP + " to one of them, " +
            "or leave it unset for the first");
    }

    @Override
    public void close()
    {
        if (!freed)
        {
            freed = true;
            verbs.freeDeviceList(list);
        }
    }
}
