package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The process demo's progress lines give a rate over the interval between the clients' own lines. */
class ProcessDemoProgressTest
{
    @Test
    void aShortTickReportsARateNotItsCount()
    {
        assertEquals(1_000, ProcessDemo.perSecond(300, TimeUnit.MILLISECONDS.toNanos(300)));
        assertEquals(500, ProcessDemo.perSecond(1_000, TimeUnit.SECONDS.toNanos(2)));
        assertEquals(0, ProcessDemo.perSecond(5, 0), "no time: no rate");
    }
}
