package io.ringwire.rdma.ibverbs;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Set;

/**
 * Disables, for {@code ibverbs}, the contract tests whose only unmet assertion is a responder
 * counter saying why a remote write was refused (unknown rkey, out of bounds, access denied): with
 * real RDMA the responder's NIC decides and NAKs by itself, and verbs tells the responder's
 * application nothing (at most an error on a consumed receive, the same for every reason). What
 * those tests check besides the counter (REMOTE_ACCESS_ERROR on the requester, unsignaled or not,
 * the queue pair in ERROR, not one byte written) is checked for ibverbs by
 * {@link IbverbsRefusedRequestsTest} (over the fake and, in the VM, a real device).
 */
final class ResponderCountersStayInTheNic implements ExecutionCondition
{
    private static final Set<String> COUNTER_TESTS = Set.of(
        "writeWithUnknownRkeyIsRejectedAndNothingIsWritten",
        "writePastTheEndOfTheRegionIsRejectedAndNothingIsWritten",
        "writeBeforeTheStartOfTheRegionIsRejectedAndNothingIsWritten",
        "writeWhoseAddressOverflowsIsRejectedAndNothingIsWritten",
        "writeToARegionWithoutRemoteWriteIsRejectedAndNothingIsWritten",
        "writeToADeregisteredRegionIsRejectedAndNothingIsWritten");

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
    {
        final String method = context.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
        return COUNTER_TESTS.contains(method) ?
            ConditionEvaluationResult.disabled("verbs does not tell the responder why its NIC refused a remote " +
                "write, so the per-reason responder counters cannot be kept; IbverbsRefusedRequestsTest checks the rest") :
            ConditionEvaluationResult.enabled("not a responder-counter test");
    }
}
