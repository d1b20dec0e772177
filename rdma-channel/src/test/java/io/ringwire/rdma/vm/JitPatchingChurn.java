package io.ringwire.rdma.vm;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Soft-RoCE lab's control experiment for JIT code patching (run by jobs/jit-patching.sh, not a
 * test): no RDMA, no RingWire, only HotSpot retiring compiled methods while other threads call
 * them. Every round defines {@link Hot} anew in a fresh class loader; two threads call its eight
 * methods (not inlined, so every call enters the compiled method) while the JIT compiles them at
 * tier 3, then at tier 4, and retires the tier-3 code, which rewrites its entry instruction.
 *
 * <p>In the lab's multi-threaded TCG guest a JVM doing this with its threads on both vCPUs dies
 * within seconds (SIGSEGV or SIGILL at the entry of a C1-compiled method, the crash
 * docs/softroce-lab.md records from lab JVMs running RingWire); confined to one vCPU it runs to the
 * end. Prints {@code churn_rounds=N churn_calls=M} when it does.
 *
 * <p>Arguments: seconds to run, calling threads, milliseconds per round.
 */
public final class JitPatchingChurn
{
    /** What the calling threads call: one interface, a fresh implementing class every round. */
    public interface Work
    {
        long w0(long x);
        long w1(long x);
        long w2(long x);
        long w3(long x);
        long w4(long x);
        long w5(long x);
        long w6(long x);
        long w7(long x);
    }

    /** Redefined every round; small bodies, compiled quickly at both tiers. */
    public static final class Hot implements Work
    {
        @Override public long w0(final long x) { return x * 31 + (x >>> 7) ^ 0x5bd1e995L; }
        @Override public long w1(final long x) { return x * 37 + (x >>> 5) ^ 0x1234567L; }
        @Override public long w2(final long x) { return x * 41 + (x >>> 3) ^ 0x7654321L; }
        @Override public long w3(final long x) { return x * 43 + (x >>> 9) ^ 0x2468aceL; }
        @Override public long w4(final long x) { return x * 47 + (x >>> 11) ^ 0x13579bdL; }
        @Override public long w5(final long x) { return x * 53 + (x >>> 13) ^ 0x0f0f0f0L; }
        @Override public long w6(final long x) { return x * 59 + (x >>> 2) ^ 0x3c3c3c3L; }
        @Override public long w7(final long x) { return x * 61 + (x >>> 1) ^ 0x5a5a5a5L; }
    }

    private static volatile Work current;
    private static volatile boolean stop;
    private static final AtomicLong CALLS = new AtomicLong();

    private JitPatchingChurn()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long seconds = Long.parseLong(args[0]);
        final int threads = Integer.parseInt(args[1]);
        final long roundMillis = Long.parseLong(args[2]);
        final String hotName = Hot.class.getName();
        final byte[] bytes = classBytes(hotName);
        final Thread[] callers = new Thread[threads];
        current = new Hot();
        for (int t = 0; t < threads; t++)
        {
            callers[t] = new Thread(JitPatchingChurn::call, "churn-caller-" + t);
            callers[t].start();
        }
        final long end = System.nanoTime() + seconds * 1_000_000_000L;
        int rounds = 0;
        while (System.nanoTime() - end < 0)
        {
            current = (Work)new OneClassLoader(hotName, bytes).loadClass(hotName).getDeclaredConstructor().newInstance();
            rounds++;
            Thread.sleep(roundMillis);
        }
        stop = true;
        for (final Thread caller : callers)
        {
            caller.join();
        }
        System.out.println("churn_rounds=" + rounds + " churn_calls=" + CALLS.get());
    }

    private static void call()
    {
        long x = 1;
        long calls = 0;
        while (!stop)
        {
            final Work work = current;
            for (int i = 0; i < 1000; i++)
            {
                x = work.w0(x);
                x = work.w1(x);
                x = work.w2(x);
                x = work.w3(x);
                x = work.w4(x);
                x = work.w5(x);
                x = work.w6(x);
                x = work.w7(x);
            }
            calls += 8000;
        }
        CALLS.addAndGet(calls + (x & 1));
    }

    private static byte[] classBytes(final String name) throws IOException
    {
        final String resource = "/" + name.replace('.', '/') + ".class";
        try (InputStream in = JitPatchingChurn.class.getResourceAsStream(resource))
        {
            if (null == in)
            {
                throw new IOException("no " + resource + " on the class path");
            }
            return in.readAllBytes();
        }
    }

    /** Defines one class itself (so each instance gets a new class), delegates the rest. */
    private static final class OneClassLoader extends ClassLoader
    {
        private final String name;
        private final byte[] bytes;

        OneClassLoader(final String name, final byte[] bytes)
        {
            super(JitPatchingChurn.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(final String className, final boolean resolve) throws ClassNotFoundException
        {
            if (!name.equals(className))
            {
                return super.loadClass(className, resolve);
            }
            synchronized (getClassLoadingLock(className))
            {
                final Class<?> loaded = findLoadedClass(className);
                return null != loaded ? loaded : defineClass(className, bytes, 0, bytes.length);
            }
        }
    }
}
