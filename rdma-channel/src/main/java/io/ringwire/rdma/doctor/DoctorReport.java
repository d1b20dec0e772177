package io.ringwire.rdma.doctor;

import java.util.List;

/**
 * The doctor's findings and recommendation, as readable text or one JSON object.
 *
 * @param findings       one per check, in the order they ran.
 * @param recommendation which provider to use.
 */
public record DoctorReport(List<Finding> findings, Recommendation recommendation)
{
    /**
     * Copies the list.
     */
    public DoctorReport
    {
        findings = List.copyOf(findings);
    }

    /**
     * @return true when no finding asks for a change (no WARN or FAIL).
     */
    public boolean ready()
    {
        return findings.stream().noneMatch(Finding::needsAction);
    }

    /**
     * @param check a check's name.
     * @return its finding.
     * @throws IllegalArgumentException when no check of that name ran.
     */
    public Finding finding(final String check)
    {
        return findings.stream().filter(f -> f.check().equals(check)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no finding of check " + check));
    }

    /**
     * @return the report for a terminal.
     */
    public String toText()
    {
        final StringBuilder sb = new StringBuilder("RingWire doctor: is this machine ready for low latency?\n\n");
        for (final Finding finding : findings)
        {
            final String tag = "[" + finding.status() + "]";
            sb.append(String.format("%-7s%-15s %s%n", tag, finding.check(), finding.summary()));
            for (final String detail : finding.details())
            {
                sb.append("                      ").append(detail).append('\n');
            }
            if (finding.status() != Status.OK)
            {
                sb.append("                      -> ").append(finding.advice()).append('\n');
            }
        }
        sb.append("\nRecommendation: provider ").append(recommendation.provider()).append(" between hosts, provider ")
            .append(recommendation.sameHostProvider()).append(" between processes on this host\n");
        sb.append("  because: ").append(recommendation.reason()).append('\n');
        sb.append("  select it with: ").append(String.join(" ", recommendation.settings())).append('\n');
        for (final String hint : recommendation.hints())
        {
            sb.append("  hint: ").append(hint).append('\n');
        }
        final long toChange = findings.stream().filter(Finding::needsAction).count();
        sb.append('\n').append(ready() ? "Verdict: ready for low latency.\n" :
            "Verdict: not ready for the lowest latency: " + toChange + " finding" + (toChange == 1 ? "" : "s") +
                " above say what to change.\n");
        return sb.toString();
    }

    /**
     * @return the report as one JSON object.
     */
    public String toJson()
    {
        final StringBuilder sb = new StringBuilder("{");
        sb.append("\"ready\":").append(ready());
        sb.append(",\"recommendation\":{\"provider\":").append(Json.string(recommendation.provider()))
            .append(",\"sameHostProvider\":").append(Json.string(recommendation.sameHostProvider()))
            .append(",\"reason\":").append(Json.string(recommendation.reason()))
            .append(",\"settings\":").append(Json.strings(recommendation.settings()))
            .append(",\"hints\":").append(Json.strings(recommendation.hints())).append('}');
        sb.append(",\"findings\":[");
        for (int i = 0; i < findings.size(); i++)
        {
            final Finding finding = findings.get(i);
            sb.append(i == 0 ? "" : ",").append("{\"check\":").append(Json.string(finding.check()))
                .append(",\"status\":").append(Json.string(finding.status().name()))
                .append(",\"summary\":").append(Json.string(finding.summary()))
                .append(",\"details\":").append(Json.strings(finding.details()))
                .append(",\"advice\":").append(Json.string(finding.advice())).append('}');
        }
        return sb.append("]}").toString();
    }
}
