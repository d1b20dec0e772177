package io.ringwire.rdma.doctor;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ringwire doctor} on a machine with a real (kernel Soft-RoCE) RDMA device: the Soft-RoCE
 * lab's guest, where the ibverbs-suite job has brought up rxe0 on the veth end {@code va}
 * (10.201.0.1). The device, port, GID and MTU come from libibverbs through the provider.
 */
@Tag("vm")
class DoctorOnSoftRoceTest
{
    @Test
    void withSoftRoceUpTheReportListsTheRxePortGidAndMtuAndRecommendsIbverbs()
    {
        final DoctorReport report = Doctor.examine(Host.local());
        final String text = report.toText();
        System.out.println(text);

        final Finding rdma = report.finding(RdmaDevicesCheck.NAME);
        assertEquals(Status.INFO, rdma.status(), "Soft-RoCE is usable but no faster than UDP: " + text);
        assertTrue(rdma.summary().startsWith("usable RDMA device: rxe0 port 1, GID "), rdma.summary());
        assertTrue(rdma.summary().contains("(10.201.0.1:4791), MTU "), rdma.summary());
        final String details = String.join("\n", rdma.details());
        assertTrue(details.startsWith("rxe0") && details.contains("Soft-RoCE, the kernel's software RoCE"), details);
        assertTrue(details.contains("port 1: ACTIVE, Ethernet, MTU "), details);
        assertTrue(rdma.advice().contains("RDMA NIC"), rdma.advice());

        assertEquals("ibverbs", report.recommendation().provider(), text);
        assertTrue(report.recommendation().settings().contains("-Dringwire.rdma.ibverbs.device=rxe0"),
            report.recommendation().settings().toString());

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = Doctor.run(new String[0], new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("provider ibverbs"), printed);
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
    }
}
