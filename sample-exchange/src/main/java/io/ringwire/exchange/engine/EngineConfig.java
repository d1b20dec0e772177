package io.ringwire.exchange.engine;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * What an engine is built with, all fixed at start: its instruments and their rules, how many
 * orders and accounts the books hold at once, and how often it takes a snapshot. It writes itself
 * to and reads itself from properties, which the journal directory keeps, so a replay needs
 * nothing but the directory.
 *
 * @param instruments      the instruments, ids 1 to N in order.
 * @param maxOrders        orders held at once.
 * @param maxAccounts      accounts with resting orders at once.
 * @param snapshotInterval a snapshot after every this many journaled messages; 0 for none but on
 *                         command.
 */
public record EngineConfig(List<InstrumentSpec> instruments, int maxOrders, int maxAccounts, long snapshotInterval)
{
    /**
     * Validates the values.
     */
    public EngineConfig
    {
        instruments = List.copyOf(instruments);
        if (instruments.isEmpty() || instruments.size() > 65_536)
        {
            throw new IllegalArgumentException("an engine has 1 to 65536 instruments, not " + instruments.size());
        }
        if (maxOrders < 1 || maxAccounts < 1 || snapshotInterval < 0)
        {
            throw new IllegalArgumentException("maxOrders and maxAccounts must be at least 1, snapshotInterval at least 0");
        }
    }

    /**
     * {@code count} instruments with the same rules, ids 1 to {@code count}: tick 1, lot 1, and a
     * band of {@code bandTicks} ticks from {@code minPrice}.
     */
    public static List<InstrumentSpec> uniformInstruments(final int count, final long minPrice, final int bandTicks)
    {
        final List<InstrumentSpec> list = new ArrayList<>(count);
        for (int id = 1; id <= count; id++)
        {
            list.add(new InstrumentSpec(id, 1, 1, minPrice, minPrice + bandTicks - 1));
        }
        return list;
    }

    /**
     * @return bytes the books take at start: the order slots, their index and the price slots.
     */
    public long bookBytes()
    {
        long priceSlots = 0;
        for (final InstrumentSpec spec : instruments)
        {
            priceSlots += spec.priceSlots() + (long)InstrumentSpec.SLOT_MARGIN;
        }
        return (long)maxOrders * OrderStore.RECORD_LENGTH + OrderStore.indexBytes(maxOrders) + priceSlots * 8 +
            priceSlots / 4;
    }

    /** @return these settings as properties (for the journal directory). */
    public Properties toProperties()
    {
        final Properties properties = new Properties();
        properties.setProperty("maxOrders", Integer.toString(maxOrders));
        properties.setProperty("maxAccounts", Integer.toString(maxAccounts));
        properties.setProperty("snapshotInterval", Long.toString(snapshotInterval));
        properties.setProperty("instruments", Integer.toString(instruments.size()));
        for (final InstrumentSpec spec : instruments)
        {
            properties.setProperty("instrument." + spec.id(), spec.tickSize() + "," + spec.lotSize() + "," +
                spec.minPrice() + "," + spec.maxPrice());
        }
        return properties;
    }

    /**
     * @param properties as {@link #toProperties()} wrote them.
     * @return the settings.
     * @throws IllegalArgumentException naming the property that is missing or malformed.
     */
    public static EngineConfig fromProperties(final Properties properties)
    {
        final int count = (int)number(properties, "instruments");
        final List<InstrumentSpec> instruments = new ArrayList<>(count);
        for (int id = 1; id <= count; id++)
        {
            final String value = properties.getProperty("instrument." + id);
            final String[] parts = null == value ? new String[0] : value.split(",");
            if (parts.length != 4)
            {
                throw new IllegalArgumentException("instrument." + id + " must be tick,lot,min,max: " + value);
            }
            try
            {
                instruments.add(new InstrumentSpec(id, Long.parseLong(parts[0].trim()), Long.parseLong(parts[1].trim()),
                    Long.parseLong(parts[2].trim()), Long.parseLong(parts[3].trim())));
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("instrument." + id + " must be tick,lot,min,max: " + value, ex);
            }
        }
        return new EngineConfig(instruments, (int)number(properties, "maxOrders"), (int)number(properties, "maxAccounts"),
            number(properties, "snapshotInterval"));
    }

    private static long number(final Properties properties, final String name)
    {
        final String value = properties.getProperty(name);
        try
        {
            return Long.parseLong(value == null ? "" : value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " must be a number: " + value, ex);
        }
    }
}
