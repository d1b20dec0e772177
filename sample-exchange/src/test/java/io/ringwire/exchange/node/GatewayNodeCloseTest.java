package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.messaging.MessagingContext;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A gateway holds the requests it took for the engine while the engine's stream is away; one that
 * closes before the engine comes back drops them, and says how many, since each was counted as
 * forwarded and its client never hears of it.
 */
class GatewayNodeCloseTest
{
    @TempDir
    Path directory;

    private GatewayNode gateway;

    @AfterEach
    void close()
    {
        CloseHelper.quietClose(gateway);
    }

    @Test
    void requestsHeldForAnEngineThatNeverCameAreCountedWhenTheGatewayCloses() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final MessagingContext context = ExchangeDemo.context(layout,
            directory.resolve("shm"), "");
        gateway = new GatewayNode(context, layout,
            ExchangeDemo.gatewayConfig(2, 1_000, ExchangeDemo.engineConfig(2, 2), 0), new RunFlag());

        gateway.doWork(); // no engine: each session's start cancel is taken and waits for it
        assertFalse(gateway.isConnected());
        assertEquals(2, gateway.gateway().counters().startCancels());
        assertEquals(2, gateway.gateway().counters().forwarded(), "counted forwarded when taken");
        assertEquals(0, gateway.gateway().counters().engineBackPressured(), "none refused");
        assertEquals(2, gateway.engineRequestsHeld(), "both wait in the gateway's backlog for the engine");

        final GatewayNode closing = gateway;
        gateway = null;
        closing.close();

        assertEquals(2, closing.engineRequestsUnsent(), "what the close dropped is counted");
        assertEquals(0, closing.engineRequestsHeld());
    }
}
