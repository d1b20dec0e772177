package io.ringwire.codecs;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.RejectReason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A raw value names its listed enum value, and one the schema does not list names the null value. */
class ListedValuesTest
{
    @Test
    void everyListedValueIsItselfAndAnUnlistedOneIsTheNullValue()
    {
        for (final ExecType type : ExecType.values())
        {
            assertEquals(type, ListedValues.execType(type.value()));
        }
        for (final RejectReason reason : RejectReason.values())
        {
            assertEquals(reason, ListedValues.rejectReason(reason.value()));
        }
        for (final OrdStatus status : OrdStatus.values())
        {
            assertEquals(status, ListedValues.ordStatus(status.value()));
        }
        assertEquals(ExecType.NULL_VAL, ListedValues.execType((short)3));
        assertEquals(RejectReason.NULL_VAL, ListedValues.rejectReason((short)200));
        assertEquals(OrdStatus.NULL_VAL, ListedValues.ordStatus((short)9));
    }
}
