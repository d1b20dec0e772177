package io.ringwire.exchange.journal;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a JVM like the test's for a journal test's child process. */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @return this JVM's java binary, its module flags (surefire's argLine: agrona needs them), a
     *         small serial heap, the class path, {@code mainClass} and its arguments.
     */
    static List<String> command(final Class<?> mainClass, final String... args)
    {
        return command(List.of(), mainClass, args);
    }

    /**
     * @param jvmFlags flags of the child's JVM beyond the test's (before the class path).
     * @return as {@link #command(Class, String...)}, with {@code jvmFlags}.
     */
    static List<String> command(final List<String> jvmFlags, final Class<?> mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-exports=") || argument.startsWith("--add-opens=") ||
                argument.startsWith("--enable-native-access=") || argument.startsWith("--sun-misc-unsafe-memory-access="))
            {
                command.add(argument);
            }
        }
        command.addAll(jvmFlags);
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
            mainClass.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
