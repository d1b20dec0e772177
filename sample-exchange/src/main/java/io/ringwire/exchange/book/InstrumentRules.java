package io.ringwire.exchange.book;

/**
 * An instrument's rules as the request path checks them: its band, and its tick and lot sizes as
 * {@link ExactDivisor}s, so that no check divides.
 *
 * <p>Immutable; any thread.
 */
final class InstrumentRules
{
    final long minPrice;
    final long maxPrice;
    final ExactDivisor tick;
    final ExactDivisor lot;

    InstrumentRules(final InstrumentSpec spec)
    {
        this.minPrice = spec.minPrice();
        this.maxPrice = spec.maxPrice();
        this.tick = new ExactDivisor(spec.tickSize());
        this.lot = new ExactDivisor(spec.lotSize());
    }

    /** @return the rules of each instrument, in the order given. */
    static InstrumentRules[] of(final InstrumentSpec[] instruments)
    {
        final InstrumentRules[] rules = new InstrumentRules[instruments.length];
        for (int i = 0; i < instruments.length; i++)
        {
            rules[i] = new InstrumentRules(instruments[i]);
        }
        return rules;
    }
}
