package io.ringwire.exchange.demo;

import java.io.PrintStream;

/** The demo with each role in a JVM of its own. */
final class ProcessDemo
{
    private ProcessDemo()
    {
    }

    static int run(final DemoOptions options, final PrintStream out, final PrintStream err)
    {
        err.println("ringwire demo: --processes is not available yet");
        return 1;
    }
}
