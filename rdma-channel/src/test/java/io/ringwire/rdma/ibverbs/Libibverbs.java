package io.ringwire.rdma.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/**
 * Whether this machine has libibverbs, found independently of the code under test, so that tests
 * assert what the machine's state implies rather than that it has the package.
 */
public final class Libibverbs
{
    private Libibverbs()
    {
    }

    /**
     * @return true when libibverbs.so.1 loads here.
     */
    public static boolean loads()
    {
        try (Arena arena = Arena.ofConfined())
        {
            SymbolLookup.libraryLookup(Verbs.DEFAULT_LIBRARY, arena);
            return true;
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
    }
}
