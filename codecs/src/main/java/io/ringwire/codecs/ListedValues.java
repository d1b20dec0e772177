package io.ringwire.codecs;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.RejectReason;

/**
 * Enum fields read from their raw values. The generated typed getters throw for a value the schema
 * does not list, which a peer on a newer schema (or a hostile one) can send and which
 * {@link MessageValidator} leaves to the receiver; these give the enum's null value instead, for the
 * receiver to count or map, and never throw.
 *
 * <p>Threading: any. Allocation-free.
 */
public final class ListedValues
{
    private static final ExecType[] EXEC_TYPES = ExecType.values();
    private static final RejectReason[] REJECT_REASONS = RejectReason.values();
    private static final OrdStatus[] ORD_STATUSES = OrdStatus.values();

    private ListedValues()
    {
    }

    /**
     * @param raw the field's raw value.
     * @return the ExecType it names, or {@link ExecType#NULL_VAL} for one the schema does not list.
     */
    public static ExecType execType(final short raw)
    {
        for (final ExecType type : EXEC_TYPES)
        {
            if (type.value() == raw)
            {
                return type;
            }
        }
        return ExecType.NULL_VAL;
    }

    /**
     * @param raw the field's raw value.
     * @return the RejectReason it names, or {@link RejectReason#NULL_VAL} for one the schema does not list.
     */
    public static RejectReason rejectReason(final short raw)
    {
        for (final RejectReason reason : REJECT_REASONS)
        {
            if (reason.value() == raw)
            {
                return reason;
            }
        }
        return RejectReason.NULL_VAL;
    }

    /**
     * @param raw the field's raw value.
     * @return the OrdStatus it names, or {@link OrdStatus#NULL_VAL} for one the schema does not list.
     */
    public static OrdStatus ordStatus(final short raw)
    {
        for (final OrdStatus status : ORD_STATUSES)
        {
            if (status.value() == raw)
            {
                return status;
            }
        }
        return OrdStatus.NULL_VAL;
    }
}
