package io.ringwire.exchange.journal;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The command line of a JVM like the test's for a test's child process. */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @return this JVM's java binary, its module flags (surefire's argLine: agrona needs them), a
     *         small serial heap, the class path, {@code mainClass} and its arguments.
     */
    public static List<String> command(final Class<?> mainClass, final String... args)
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

    /**
     * Runs {@code mainClass} in a JVM like this one to its end.
     *
     * @param prefixes what the line sought starts with.
     * @return the first line of its output (standard error included) that starts with one of
     *         {@code prefixes}, or "nothing said".
     * @throws IllegalStateException when it runs past a minute (it is then killed).
     */
    public static String firstLine(final Class<?> mainClass, final List<String> prefixes, final String... args)
        throws IOException, InterruptedException
    {
        final Process child = new ProcessBuilder(command(mainClass, args)).redirectErrorStream(true).start();
        try
        {
            if (!child.waitFor(60, TimeUnit.SECONDS))
            {
                throw new IllegalStateException(mainClass.getSimpleName() + " ran past a minute");
            }
            return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(line -> prefixes.stream().anyMatch(line::startsWith)).findFirst().orElse("nothing said");
        }
        finally
        {
            child.destroyForcibly();
        }
    }
}
