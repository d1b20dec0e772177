package io.ringwire.messaging;

import org.junit.jupiter.params.provider.Arguments;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The providers the messaging tests run on: {@code shm}, {@code socket} and {@code roce} unless the
 * system property {@value #PROVIDERS_PROP} lists others (comma-separated). The Soft-RoCE lab sets
 * it to {@code ibverbs}, with the device in {@code ringwire.rdma.ibverbs.*}, which the system
 * tests hand on to their child processes. Parameterized tests take their provider from
 * {@code @MethodSource("io.ringwire.messaging.TestProviders#providers")}.
 */
public final class TestProviders
{
    /** Comma list of providers to test; default {@value #DEFAULT_PROVIDERS}. */
    public static final String PROVIDERS_PROP = "ringwire.test.providers";
    /** The providers every machine has. */
    public static final String DEFAULT_PROVIDERS = "shm,socket,roce";

    private TestProviders()
    {
    }

    /**
     * @return the providers to test, in order.
     * @throws IllegalArgumentException when the property names a provider messaging does not know.
     */
    public static List<String> names()
    {
        final List<String> names = Arrays.stream(System.getProperty(PROVIDERS_PROP, DEFAULT_PROVIDERS).split(","))
            .map(String::trim).filter(name -> !name.isEmpty()).toList();
        for (final String name : names)
        {
            ChannelUri.parse("ringwire:" + name + "?endpoint=127.0.0.1:1");
        }
        if (names.isEmpty())
        {
            throw new IllegalArgumentException(PROVIDERS_PROP + " lists no provider");
        }
        return names;
    }

    /**
     * @return the providers to test, for {@code @MethodSource}.
     */
    public static Stream<String> providers()
    {
        return names().stream();
    }

    /**
     * @param valueByProvider a value per provider that a test needs besides the name (a ring size).
     * @return (provider, value) for each provider to test.
     * @throws IllegalStateException when a provider to test has no value: the test must say what it
     *                               needs for that provider rather than silently skip it.
     */
    public static Stream<Arguments> withValue(final Map<String, ?> valueByProvider)
    {
        return names().stream().map(name ->
        {
            final Object value = valueByProvider.get(name);
            if (null == value)
            {
                throw new IllegalStateException("no value for provider " + name + " in " + valueByProvider);
            }
            return Arguments.of(name, value);
        });
    }
}
