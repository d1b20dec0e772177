package io.ringwire.exchange.book;

/**
 * One instrument's trading rules: prices are integer ticks that must be multiples of
 * {@code tickSize} and lie in the band {@code [minPrice, maxPrice]}; quantities are multiples of
 * {@code lotSize}. The band also sizes the instrument's share of the book's price slots, one per
 * tick in the band.
 *
 * @param id       the instrument id on the wire, 1 and up.
 * @param tickSize price increment, at least 1.
 * @param lotSize  quantity increment, at least 1.
 * @param minPrice lowest price accepted, a multiple of the tick size.
 * @param maxPrice highest price accepted, a multiple of the tick size, at least {@code minPrice}.
 */
public record InstrumentSpec(int id, long tickSize, long lotSize, long minPrice, long maxPrice)
{
    /** Price slots all instruments' bands may take together, margins included (the books' price-level arrays). */
    public static final long MAX_PRICE_SLOTS = Integer.MAX_VALUE / 4;
    /** Slots each instrument's band takes past its own: a word of margin keeps its bits in words of its own. */
    public static final int SLOT_MARGIN = 64;

    /**
     * Validates the values.
     */
    public InstrumentSpec
    {
        if (id < 1)
        {
            throw new IllegalArgumentException("instrument id must be at least 1: " + id);
        }
        if (tickSize < 1 || lotSize < 1)
        {
            throw new IllegalArgumentException("instrument " + id + ": tick and lot size must be at least 1");
        }
        if (minPrice % tickSize != 0 || maxPrice % tickSize != 0 || maxPrice < minPrice)
        {
            throw new IllegalArgumentException("instrument " + id + ": the band [" + minPrice + ", " + maxPrice +
                "] must be ordered and on the tick size " + tickSize);
        }
        // A difference that wraps (a band wider than a long) is negative.
        if (maxPrice - minPrice < 0 || (maxPrice - minPrice) / tickSize >= MAX_PRICE_SLOTS)
        {
            throw new IllegalArgumentException("instrument " + id + ": the band has too many ticks");
        }
    }

    /**
     * @return price slots the band takes: one per tick from {@code minPrice} to {@code maxPrice}.
     */
    public int priceSlots()
    {
        return (int)((maxPrice - minPrice) / tickSize) + 1;
    }
}
