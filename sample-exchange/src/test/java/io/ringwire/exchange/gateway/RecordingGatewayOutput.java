package io.ringwire.exchange.gateway;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a copy of every message the gateway sends, in order, and can refuse the engine's stream to
 * play back pressure, or the sessions' to play a client that cannot be reached.
 */
final class RecordingGatewayOutput implements GatewayOutput
{
    /** One message to a session. */
    record SessionMessage(int sessionIndex, UnsafeBuffer buffer)
    {
    }

    final List<UnsafeBuffer> toEngine = new ArrayList<>();
    final List<SessionMessage> toSessions = new ArrayList<>();
    final List<Integer> disconnected = new ArrayList<>();
    boolean engineRefuses;
    boolean sessionsRefuse;
    /** The sessions' reply links are down ({@link #canReach}). */
    boolean sessionsUnreachable;

    @Override
    public boolean canReach(final int sessionIndex)
    {
        return !sessionsUnreachable;
    }

    @Override
    public void disconnect(final int transportSession)
    {
        disconnected.add(transportSession);
    }

    @Override
    public boolean toEngine(final DirectBuffer buffer, final int offset, final int length)
    {
        if (engineRefuses)
        {
            return false;
        }
        toEngine.add(copy(buffer, offset, length));
        return true;
    }

    @Override
    public boolean toSession(final int sessionIndex, final DirectBuffer buffer, final int offset, final int length)
    {
        if (sessionsRefuse)
        {
            return false;
        }
        toSessions.add(new SessionMessage(sessionIndex, copy(buffer, offset, length)));
        return true;
    }

    UnsafeBuffer lastToEngine()
    {
        return toEngine.getLast();
    }

    SessionMessage lastToSession()
    {
        return toSessions.getLast();
    }

    void clear()
    {
        toEngine.clear();
        toSessions.clear();
    }

    private static UnsafeBuffer copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return new UnsafeBuffer(bytes);
    }
}
