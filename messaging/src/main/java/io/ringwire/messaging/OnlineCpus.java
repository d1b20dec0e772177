package io.ringwire.messaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Counts the machine's online CPUs from {@code /sys/devices/system/cpu/online}: after a thread is
 * pinned, {@link Runtime#availableProcessors()} reports only its own affinity set.
 */
public final class OnlineCpus
{
    private OnlineCpus()
    {
    }

    /**
     * @return online CPUs (falls back to availableProcessors when /sys is unreadable).
     */
    public static int count()
    {
        try
        {
            return parse(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
        }
        catch (final IOException | RuntimeException ex)
        {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /**
     * @param list a kernel CPU list such as "0-3,6".
     * @return how many CPUs it names.
     */
    public static int parse(final String list)
    {
        int count = 0;
        for (final String part : list.split(","))
        {
            if (part.isBlank())
            {
                continue;
            }
            final int dash = part.indexOf('-');
            count += dash < 0 ? 1 : Integer.parseInt(part.substring(dash + 1).trim()) -
                Integer.parseInt(part.substring(0, dash).trim()) + 1;
        }
        return count;
    }
}
