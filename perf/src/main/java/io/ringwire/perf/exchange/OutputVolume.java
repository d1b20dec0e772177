package io.ringwire.perf.exchange;

import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.OutputDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The engine's output as a sequence of message lengths, taken from one replay (not timed), and what
 * digesting that much output costs on its own: {@link OutputDigest#update} over messages of the
 * same lengths, in the same order, as the engine calls it once per message. SHA-256 costs the same
 * whatever the bytes, so the messages' contents do not matter.
 *
 * <p>Threading: the benchmark's thread.
 */
final class OutputVolume implements EngineOutput
{
    private int[] lengths = new int[1 << 16];
    private int messages;
    private long bytes;
    private boolean recording;

    /** Starts counting what the engine sends. */
    void record()
    {
        recording = true;
    }

    /** Stops counting. */
    void stop()
    {
        recording = false;
    }

    @Override
    public void executionReport(final DirectBuffer buffer, final int offset, final int length)
    {
        sent(length);
    }

    @Override
    public void marketData(final DirectBuffer buffer, final int offset, final int length)
    {
        sent(length);
    }

    /** @return messages sent while recording. */
    int messages()
    {
        return messages;
    }

    /** @return bytes sent while recording. */
    long bytes()
    {
        return bytes;
    }

    /**
     * Times {@link OutputDigest#update} over the recorded messages' lengths: one unmeasured pass,
     * then {@code repetitions}, of which the median is returned.
     *
     * @param repetitions measured passes.
     * @return nanoseconds one pass took, the median.
     */
    long digestNs(final int repetitions)
    {
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < message.capacity(); i++)
        {
            message.putByte(i, (byte)random.nextInt());
        }
        final OutputDigest digest = new OutputDigest();
        digestAll(digest, message);
        final long[] passes = new long[repetitions];
        for (int r = 0; r < repetitions; r++)
        {
            final long startNs = System.nanoTime();
            digestAll(digest, message);
            passes[r] = System.nanoTime() - startNs;
        }
        Arrays.sort(passes);
        return passes[repetitions / 2];
    }

    private void digestAll(final OutputDigest digest, final UnsafeBuffer message)
    {
        final int[] all = lengths;
        for (int i = 0, end = messages; i < end; i++)
        {
            digest.update(message, 0, all[i]);
        }
    }

    private void sent(final int length)
    {
        if (!recording)
        {
            return;
        }
        if (messages == lengths.length)
        {
            lengths = Arrays.copyOf(lengths, lengths.length * 2);
        }
        lengths[messages++] = length;
        bytes += length;
    }
}
