package io.ringwire.rdma.soft;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.DeviceCounters;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionRegistryTest
{
    private final RegionRegistry registry = new RegionRegistry(new DeviceCounters());

    private static ByteBuffer memory()
    {
        return ByteBuffer.allocateDirect(4096);
    }

    @Test
    void aLiveRegionOfThisRegistryPassesTheLocalCheckInsideItsBoundsOnly()
    {
        final SoftMemoryRegion region = registry.register(memory(), Access.LOCAL_WRITE, null);
        assertTrue(registry.checkLocalAccess(region, 0, 4096, true));
        assertFalse(registry.checkLocalAccess(region, 1, 4096, false), "past the end");
        assertFalse(registry.checkLocalAccess(region, -1, 1, false), "before the start");
    }

    @Test
    void aRegionOfAnotherRegistryFailsTheLocalCheck()
    {
        registry.register(memory(), Access.LOCAL_WRITE, null);
        final RegionRegistry other = new RegionRegistry(new DeviceCounters());
        final SoftMemoryRegion foreign = other.register(memory(), Access.LOCAL_WRITE, null);
        assertFalse(registry.checkLocalAccess(foreign, 0, 64, false));
        assertTrue(other.checkLocalAccess(foreign, 0, 64, false));
    }

    @Test
    void aDeregisteredRegionFailsTheLocalCheck()
    {
        final SoftMemoryRegion region = registry.register(memory(), Access.LOCAL_WRITE, null);
        region.close();
        assertFalse(registry.checkLocalAccess(region, 0, 64, false));
        assertNull(registry.byKey(region.lkey()), "the key is gone too");
    }

    @Test
    void aRegionWithoutLocalWriteFailsAWritingCheckButPassesAReadingOne()
    {
        final SoftMemoryRegion region = registry.register(memory(), Access.REMOTE_READ, null);
        assertFalse(registry.checkLocalAccess(region, 0, 64, true));
        assertTrue(registry.checkLocalAccess(region, 0, 64, false));
    }

    @Test
    void aRegionOfAnotherProtectionDomainFailsTheDomainCheck()
    {
        final SoftMemoryRegion region = registry.register(memory(), Access.LOCAL_WRITE, null, 1);
        assertTrue(registry.checkLocalAccess(region, 0, 64, false, 1));
        assertFalse(registry.checkLocalAccess(region, 0, 64, false, 2));
    }

    @Test
    void aRegionDeregisteredBetweenTheRemoteCheckAndItsLookupIsRefusedAsAnUnknownRkey()
    {
        final DeviceCounters counters = new DeviceCounters();
        final RegionRegistry responder = new RegionRegistry(counters);
        final SoftMemoryRegion region = responder.register(memory(), Access.LOCAL_WRITE | Access.REMOTE_WRITE, null);
        assertTrue(responder.checkRemoteAccess(region.rkey(), region.address(), 64, Access.REMOTE_WRITE) >= 0);
        assertSame(region, responder.checkedRegion(region.rkey()), "still there: the write goes to it");
        region.close(); // the control thread deregisters it, between the responder's check and its write
        assertNull(responder.checkedRegion(region.rkey()));
        assertEquals(1, counters.get(DeviceCounters.RESPONDER_UNKNOWN_RKEY));
    }
}
