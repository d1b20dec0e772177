package io.ringwire.rdma.ibverbs;

/**
 * Linux errno values the verbs calls report (x86-64 numbering), with their names for messages.
 */
final class Errno
{
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EIO = 5;
    static final int ENXIO = 6;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EFAULT = 14;
    static final int EBUSY = 16;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int ENOSYS = 38;
    static final int EOPNOTSUPP = 95;
    static final int ENETDOWN = 100;

    private Errno()
    {
    }

    /**
     * @param errno a positive errno value.
     * @return e.g. "ENOMEM (cannot allocate memory)", or "errno 123".
     */
    static String describe(final int errno)
    {
        return switch (errno)
        {
            case EPERM -> "EPERM (operation not permitted)";
            case ENOENT -> "ENOENT (no such file or directory)";
            case EIO -> "EIO (input/output error)";
            case ENXIO -> "ENXIO (no such device or address)";
            case EAGAIN -> "EAGAIN (resource temporarily unavailable)";
            case ENOMEM -> "ENOMEM (cannot allocate memory)";
            case EACCES -> "EACCES (permission denied)";
            case EFAULT -> "EFAULT (bad address)";
            case EBUSY -> "EBUSY (device or resource busy)";
            case ENODEV -> "ENODEV (no such device)";
            case EINVAL -> "EINVAL (invalid argument)";
            case ENOSPC -> "ENOSPC (no space left on device)";
            case ENOSYS -> "ENOSYS (function not implemented)";
            case EOPNOTSUPP -> "EOPNOTSUPP (operation not supported)";
            case ENETDOWN -> "ENETDOWN (network is down)";
            case 0 -> "no errno";
            default -> "errno " + errno;
        };
    }
}
