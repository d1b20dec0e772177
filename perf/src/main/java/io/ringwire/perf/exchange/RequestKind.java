package io.ringwire.perf.exchange;

/**
 * What a request of the matching flow does: the flow's mix is counted, and service times are
 * broken down, by these. The ordinal is stored per request in a byte.
 */
enum RequestKind
{
    /** A NewOrder, limit GTC, priced near the last trade on its own side. */
    NEW_GTC("new GTC"),
    /** A NewOrder, limit IOC, priced at the far end of the band: it takes what the other side holds. */
    NEW_IOC("new IOC"),
    /** A CancelOrder. */
    CANCEL("cancel"),
    /** A ReplaceOrder to a new price, the same quantity: the order loses its place, or trades. */
    MOVE("move");

    /** Kinds by ordinal, without the copy {@link #values()} makes. */
    static final RequestKind[] ALL = values();

    private final String label;

    RequestKind(final String label)
    {
        this.label = label;
    }

    /** @return a short name for tables and JSON. */
    String label()
    {
        return label;
    }
}
