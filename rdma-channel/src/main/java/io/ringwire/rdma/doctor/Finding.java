package io.ringwire.rdma.doctor;

import java.util.List;
import java.util.Objects;

/**
 * What one check found, and what to change.
 *
 * @param check   the check's short name, e.g. "memlock".
 * @param status  how it bears on low latency.
 * @param summary one line: what was found.
 * @param details further observed facts, one per line (may be empty).
 * @param advice  what to change; "nothing to change" when the status is OK.
 */
public record Finding(String check, Status status, String summary, List<String> details, String advice)
{
    /**
     * Validates and copies.
     */
    public Finding
    {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(summary, "summary");
        details = List.copyOf(details);
        Objects.requireNonNull(advice, "advice");
    }

    /**
     * @return true when the user should act on it.
     */
    public boolean needsAction()
    {
        return status == Status.WARN || status == Status.FAIL;
    }
}
