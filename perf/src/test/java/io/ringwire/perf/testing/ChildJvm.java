package io.ringwire.perf.testing;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a child JVM's command line for a test: this JVM's java and its options (the module
 * exports agrona needs among them), less a debugger agent, which would try to listen on this JVM's
 * port a second time.
 */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @param leaveOut prefixes of options the caller sets itself.
     * @return java and this JVM's options, less those.
     */
    public static List<String> javaWithThisJvmsOptions(final String... leaveOut)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!argument.startsWith("-agentlib:jdwp") && !argument.startsWith("-Xrunjdwp") &&
                !leftOut(argument, leaveOut))
            {
                command.add(argument);
            }
        }
        return command;
    }

    private static boolean leftOut(final String argument, final String[] prefixes)
    {
        for (final String prefix : prefixes)
        {
            if (argument.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }
}
