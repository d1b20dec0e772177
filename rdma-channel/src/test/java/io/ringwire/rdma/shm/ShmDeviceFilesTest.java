package io.ringwire.rdma.shm;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.host.ProcessIdentity;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm provider's devices and files: addresses, provider lookup, file lifecycle, stale-file
 * cleanup, and the errors of setup paths.
 */
final class ShmDeviceFilesTest
{
    private static final int RING_BYTES = 64 * 1024;

    @TempDir
    Path directory;

    @Test
    void deviceAddressEncodesDirectoryPidAndDeviceId()
    {
        final RdmaConfig config = ShmSide.config(directory, 2000);
        try (ShmDevice first = ShmDevice.open(config, RING_BYTES); ShmDevice second = ShmDevice.open(config, RING_BYTES))
        {
            final String prefix = directory.toAbsolutePath() + "|pid=" + ProcessHandle.current().pid() + "|dev=";
            assertTrue(first.address().startsWith(prefix), first.address());
            assertTrue(second.address().startsWith(prefix), second.address());
            assertNotEquals(first.address(), second.address(), "several devices per process");
            assertEquals(first.shmAddress(), ShmAddress.parse(first.address()));
            assertEquals("shm0", first.name());
            assertEquals("shm", first.providerName());
            assertEquals(1 << 30, first.maxMessageSize());
            assertEquals(config.maxInlineData(), first.maxInlineData());
            assertEquals(config.mtu(), first.mtu());
        }
    }

    @Test
    void providerIsFoundByNameAndOpensAnShmDevice()
    {
        final RdmaConfig config = ShmSide.config(directory.resolve("nested/dir"), 2000);
        assertInstanceOf(ShmProvider.class, RdmaProviders.byName("shm"));
        assertNull(new ShmProvider().unavailableReason(config), "creates the directory when missing");
        try (Device device = RdmaProviders.open(config))
        {
            assertInstanceOf(ShmDevice.class, device);
            assertTrue(Files.isDirectory(directory.resolve("nested/dir")));
        }
    }

    @Test
    void providerIsUnavailableWhenTheDirectoryCannotBeCreated() throws IOException
    {
        final Path file = Files.writeString(directory.resolve("plain-file"), "not a directory");
        final String reason = new ShmProvider().unavailableReason(ShmSide.config(file.resolve("shm"), 2000));
        assertNotNull(reason);
        assertTrue(reason.contains(RdmaConfig.SHM_DIRECTORY_PROP), reason);
    }

    @Test
    void queuePairNumbersComingRoundSkipZeroAndThoseOfOpenQueuePairsAndLeftRingFiles() throws IOException
    {
        try (ShmDevice device = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final QueuePair first = domain.createQueuePair(new QueuePairConfig(device.createCompletionQueue(16),
                device.createCompletionQueue(16), 4, 4, 0));
            assertEquals(1, first.queuePairNumber());
            // A ring file whose queue pair closed but could not delete it: its number stays taken.
            final String prefix = ProcessHandle.current().pid() + "-" + device.shmAddress().deviceId() + "-qp-";
            Files.write(directory.resolve(prefix + "2.ring"), new byte[0]);
            device.nextQueuePairNumber(0xFF_FFFF); // the 24-bit numbers about to come round
            final QueuePair last = domain.createQueuePair(new QueuePairConfig(device.createCompletionQueue(16),
                device.createCompletionQueue(16), 4, 4, 0));
            assertEquals(0xFF_FFFF, last.queuePairNumber());
            final QueuePair next = domain.createQueuePair(new QueuePairConfig(device.createCompletionQueue(16),
                device.createCompletionQueue(16), 4, 4, 0));
            assertEquals(3, next.queuePairNumber(), "0, the open queue pair's 1 and the left file's 2 are skipped");

            first.close();
            device.nextQueuePairNumber(1);
            final QueuePair again = domain.createQueuePair(new QueuePairConfig(device.createCompletionQueue(16),
                device.createCompletionQueue(16), 4, 4, 0));
            assertEquals(1, again.queuePairNumber(), "a closed queue pair's number is given again");
            assertEquals(sorted(prefix + "1.ring", prefix + "2.ring", prefix + "3.ring", prefix + 0xFF_FFFF + ".ring"),
                files().stream().filter(name -> name.endsWith(".ring")).toList());
        }
    }

    @Test
    void aRegionClosedByTheControlPathStaysMappedForItsGraceAndIsUnmappedByALaterControlCall()
        throws IOException, InterruptedException
    {
        try (ShmDevice device = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final SoftMemoryRegion region = (SoftMemoryRegion)domain.allocateRegion(4096,
                Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final UnsafeBuffer memory = region.buffer();
            final String prefix = ProcessHandle.current().pid() + "-" + device.shmAddress().deviceId();
            assertTrue(files().contains(prefix + "-mr-1.shm"), files().toString());

            region.close();
            assertFalse(files().contains(prefix + "-mr-1.shm"), "the file goes at once: " + files());
            // An owning thread past its check that the region was open, copying into it: the memory
            // is still mapped (an unmap at close crashed the JVM here).
            memory.putLong(4088, 0x1122334455667788L);
            assertEquals(0x1122334455667788L, memory.getLong(4088));
            assertEquals(1, device.retiredMappings());

            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(ShmDevice.RETIRE_GRACE_NS) + 50);
            domain.allocateRegion(4096, Access.LOCAL_WRITE);
            assertEquals(0, device.retiredMappings(), "past its grace, the next allocation unmapped it");
        }
    }

    @Test
    void filesAreDeletedWhenRegionsQueuePairsAndDevicesClose() throws IOException
    {
        final ShmDevice device = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES);
        final String prefix = ProcessHandle.current().pid() + "-" + device.shmAddress().deviceId();
        assertEquals(sorted(prefix + ".ctl"), files());

        final ProtectionDomain domain = device.allocateProtectionDomain();
        final MemoryRegion region = domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final QueuePair queuePair = domain.createQueuePair(new QueuePairConfig(device.createCompletionQueue(16),
            device.createCompletionQueue(16), 4, 4, 0));
        final String regionFile = prefix + "-mr-1.shm";
        final String ringFile = prefix + "-qp-" + queuePair.queuePairNumber() + ".ring";
        assertEquals(sorted(prefix + ".ctl", regionFile, ringFile), files());

        region.close();
        assertEquals(sorted(prefix + ".ctl", ringFile), files());
        queuePair.close();
        assertEquals(sorted(prefix + ".ctl"), files());

        domain.allocateRegion(4096, Access.LOCAL_WRITE);
        domain.createQueuePair(new QueuePairConfig(device.createCompletionQueue(16), device.createCompletionQueue(16),
            4, 4, 0));
        assertEquals(3, files().size());
        device.close();
        assertEquals(List.of(), files(), "closing the device deletes everything it created");
    }

    @Test
    void staleFilesOfDeadProcessesAreRemovedOnOpen() throws Exception
    {
        final long deadPid = pidOfAFinishedProcess();
        final long ownPid = ProcessHandle.current().pid();
        final List<String> stale = List.of(
            deadPid + "-3.ctl", deadPid + "-3-mr-1.shm", deadPid + "-3-qp-17.ring", deadPid + "-4-mr-2.shm",
            ownPid + "-999999.ctl", ownPid + "-999999-qp-1.ring");
        for (final String name : stale)
        {
            Files.write(directory.resolve(name), new byte[64]);
        }
        final List<String> foreign = List.of("notes.txt", "12-ab.ctl", "x-1.ctl");
        for (final String name : foreign)
        {
            Files.write(directory.resolve(name), new byte[64]);
        }
        final Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        final long parentStartTime = parent.map(p -> ProcessIdentity.startTime(p.pid())).orElse(0L);
        final String reusedPidFile = parent.map(p -> p.pid() + "-1.ctl").orElse(null);
        if (parentStartTime != ProcessIdentity.UNKNOWN_START_TIME)
        {
            // A live process whose pid names a control file of an earlier incarnation.
            final ByteBuffer header = ByteBuffer.allocate(ShmDeviceControl.REGION_TABLE_OFFSET).order(ByteOrder.nativeOrder());
            header.putLong(ShmDeviceControl.OWNER_START_TIME_OFFSET, parentStartTime + 1);
            Files.write(directory.resolve(reusedPidFile), header.array());
        }

        try (ShmDevice live = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
        {
            final String liveControlFile = live.shmAddress().controlFile().getFileName().toString();
            try (ShmDevice opened = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
            {
                final List<String> remaining = files();
                for (final String name : stale)
                {
                    assertFalse(remaining.contains(name), name + " should be removed: " + remaining);
                }
                if (parentStartTime != ProcessIdentity.UNKNOWN_START_TIME)
                {
                    assertFalse(remaining.contains(reusedPidFile), "reused pid: " + remaining);
                }
                assertTrue(remaining.containsAll(foreign), "files not named like ours stay: " + remaining);
                assertTrue(remaining.contains(liveControlFile), "a live device's files stay: " + remaining);
                assertTrue(remaining.contains(opened.shmAddress().controlFile().getFileName().toString()));
            }
        }
    }

    @Test
    void filesADeadProcessLeftUnderThisProcesssPidAreRemovedSoTheNextDeviceOpensWhileThisProcesssOwnFilesStay()
        throws IOException
    {
        final long pid = ProcessHandle.current().pid();
        try (ShmDevice live = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
        {
            final ProtectionDomain domain = live.allocateProtectionDomain();
            domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            domain.createQueuePair(new QueuePairConfig(live.createCompletionQueue(16), live.createCompletionQueue(16),
                4, 4, 0));
            final List<String> liveFiles = files();
            assertEquals(3, liveFiles.size(), liveFiles.toString());

            // What a process killed before it closed its devices leaves for the next process given its
            // pid, under the device ids that process's next devices get: control links whose
            // descriptor numbers now lead nowhere, or into this process's own files, and plain files.
            final Path liveControlLink = Files.readSymbolicLink(live.shmAddress().controlFile());
            final int next = live.shmAddress().deviceId() + 1;
            for (int deviceId = next; deviceId < next + 6; deviceId++)
            {
                final Path control = directory.resolve(ShmFiles.controlFileName(pid, deviceId));
                switch (deviceId % 3)
                {
                    case 0 -> Files.createSymbolicLink(control, Path.of("/proc/" + pid + "/fd/999999"));
                    case 1 -> Files.createSymbolicLink(control, liveControlLink);
                    default -> Files.write(control, new byte[ShmDeviceControl.REGION_TABLE_OFFSET]);
                }
                Files.write(directory.resolve(ShmFiles.regionFileName(pid, deviceId, 1)), new byte[64]);
                Files.write(directory.resolve(ShmFiles.ringFileName(pid, deviceId, 1)), new byte[64]);
            }

            try (ShmDevice opened = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
            {
                final int deviceId = opened.shmAddress().deviceId();
                assertTrue(deviceId >= next && deviceId < next + 6, "device " + deviceId);
                final ProtectionDomain openedDomain = opened.allocateProtectionDomain();
                openedDomain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                final List<String> expected = new ArrayList<>(liveFiles);
                expected.add(ShmFiles.controlFileName(pid, deviceId));
                expected.add(ShmFiles.regionFileName(pid, deviceId, 1));
                assertEquals(expected.stream().sorted().toList(), files(),
                    "the dead process's files are gone, this process's stay");
                assertEquals(deviceId, controlFilesDeviceId(opened), "the name leads to the new device's control file");
                assertEquals(live.shmAddress().deviceId(), controlFilesDeviceId(live),
                    "the live device's name still leads to its control file");
            }
        }
    }

    @Test
    void aLiveProcesssFilesStayWhenItsControlFileCannotBeOpenedHereOrIsAPlainFileOfItsIncarnationButNotWhenItsLinkLeadsElsewhere()
        throws Exception
    {
        final Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        final long parentStartTime = parent.map(p -> ProcessIdentity.startTime(p.pid())).orElse(0L);
        Assumptions.assumeTrue(parentStartTime != ProcessIdentity.UNKNOWN_START_TIME, "needs the parent's start time");
        final long pid = parent.orElseThrow().pid();
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/" + pid + "/fd")),
            "needs the parent's descriptors readable here (its user and group, or root)");
        // A link that fails to open for a reason other than its absence (here a loop; for another
        // user's process, EACCES) says nothing about the device behind it.
        final Path unopenable = directory.resolve(pid + "-5.ctl");
        Files.createSymbolicLink(unopenable, unopenable.getFileName());
        final Path unopenableRing = Files.write(directory.resolve(pid + "-5-qp-1.ring"), new byte[64]);
        // A control file as a plain file (another version's device), of the live incarnation.
        final ByteBuffer header = ByteBuffer.allocate(ShmDeviceControl.REGION_TABLE_OFFSET).order(ByteOrder.nativeOrder());
        header.putLong(ShmDeviceControl.OWNER_START_TIME_OFFSET, parentStartTime);
        final Path plain = Files.write(directory.resolve(pid + "-6.ctl"), header.array());
        final Path plainRing = Files.write(directory.resolve(pid + "-6-qp-1.ring"), new byte[64]);
        // A link that dangles: the pid's process does not hold that descriptor (the pid was reused).
        final Path dangling = directory.resolve(pid + "-7.ctl");
        Files.createSymbolicLink(dangling, Path.of("/proc/" + pid + "/fd/999999"));
        final Path danglingRing = Files.write(directory.resolve(pid + "-7-qp-1.ring"), new byte[64]);

        // A link that leads to a live control file of this build naming the same process but another
        // device: what a dead owner's link finds in the descriptors of the process reusing its pid.
        final Path memory = directory.resolve("elsewhere");
        final UnsafeBuffer other = new UnsafeBuffer(ShmFiles.createAndMap(memory, ShmDeviceControl.REGION_TABLE_OFFSET));
        other.putInt(ShmDeviceControl.VERSION_OFFSET, ShmDeviceControl.VERSION);
        other.putLong(ShmDeviceControl.OWNER_PID_OFFSET, pid);
        other.putLong(ShmDeviceControl.OWNER_START_TIME_OFFSET, parentStartTime);
        other.putInt(ShmDeviceControl.DEVICE_ID_OFFSET, 3);
        other.putLong(ShmDeviceControl.MAGIC_OFFSET, ShmDeviceControl.MAGIC);
        other.putInt(ShmDeviceControl.STATE_OFFSET, ShmDeviceControl.STATE_OPEN);
        final Path reused = Files.createSymbolicLink(directory.resolve(pid + "-8.ctl"), Files.readSymbolicLink(memory));
        final Path reusedRing = Files.write(directory.resolve(pid + "-8-qp-1.ring"), new byte[64]);

        try (ShmDevice opened = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
        {
            assertFalse(Files.exists(reused, LinkOption.NOFOLLOW_LINKS) || Files.exists(reusedRing),
                "a link to another device's control file is stale: " + files());
            assertTrue(Files.exists(unopenable, LinkOption.NOFOLLOW_LINKS) && Files.exists(unopenableRing),
                "kept: " + files());
            assertTrue(Files.exists(plain) && Files.exists(plainRing), "kept: " + files());
            assertFalse(Files.exists(dangling, LinkOption.NOFOLLOW_LINKS) || Files.exists(danglingRing),
                "a dangling control link is stale: " + files());
        }
        finally
        {
            ShmFiles.deleteQuietly(memory);
        }
    }

    @Test
    void registeringPrivateMemoryWithRemoteAccessIsRefusedWithAnExplanation()
    {
        try (ShmDevice device = ShmDevice.open(ShmSide.config(directory, 2000), RING_BYTES))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final RdmaException refused = assertThrows(RdmaException.class,
                () -> domain.register(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE));
            assertTrue(refused.getMessage().contains("allocateRegion"), refused.getMessage());

            final MemoryRegion local = domain.register(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
            assertEquals(4096, local.length());
            assertEquals(local.lkey(), local.rkey());
        }
    }

    @Test
    void connectingToAMissingPeerFailsWithAClearMessage()
    {
        try (ShmSide side = new ShmSide(ShmSide.config(directory, 2000), RING_BYTES);
            ShmSide other = new ShmSide(ShmSide.config(directory, 2000), RING_BYTES))
        {
            side.queuePair.modifyToInit();
            final String missingDevice = directory.toAbsolutePath() + "|pid=1|dev=424242";
            final RdmaException noDevice = assertThrows(RdmaException.class, () -> side.queuePair.modifyToReadyToReceive(
                new QueuePairEndpoint(5, 0, missingDevice, 4096, QueuePairEndpoint.DEFAULT_PARTITION_KEY)));
            assertTrue(noDevice.getMessage().contains("no shm device at " + missingDevice), noDevice.getMessage());
            assertTrue(noDevice.getMessage().contains(RdmaConfig.SHM_DIRECTORY_PROP), noDevice.getMessage());

            final RdmaException noQueuePair = assertThrows(RdmaException.class, () -> side.queuePair.modifyToReadyToReceive(
                new QueuePairEndpoint(0xABCDE, 0, other.device.address(), 4096, QueuePairEndpoint.DEFAULT_PARTITION_KEY)));
            assertTrue(noQueuePair.getMessage().contains("no shm queue pair 0xabcde"), noQueuePair.getMessage());

            final RdmaException notShm = assertThrows(RdmaException.class, () -> side.queuePair.modifyToReadyToReceive(
                new QueuePairEndpoint(5, 0, "127.0.0.1:4791", 4096, QueuePairEndpoint.DEFAULT_PARTITION_KEY)));
            assertTrue(notShm.getMessage().contains("not an shm device address"), notShm.getMessage());
        }
    }

    @Test
    void aPeerAddressOnTheQueuePairsOwnDeviceOrInAnotherDirectoryIsRefusedBeforeAnythingIsMapped() throws Exception
    {
        try (ShmSide side = new ShmSide(ShmSide.config(directory, 2000), RING_BYTES);
            ShmSide other = new ShmSide(ShmSide.config(directory, 2000), RING_BYTES))
        {
            side.queuePair.modifyToInit();
            // An address from the other side of a handshake names this device: its own ring, its own regions.
            final RdmaException own = assertThrows(RdmaException.class,
                () -> side.queuePair.modifyToReadyToReceive(side.queuePair.localEndpoint()));
            assertTrue(own.getMessage().contains("names this queue pair's own shm device"), own.getMessage());

            // The other device's names, reached through a directory of links the sender chose.
            final Path links = Files.createSymbolicLink(directory.resolve("links"), directory);
            final String elsewhere = links + other.device.address().substring(
                other.device.address().indexOf('|'));
            final RdmaException moved = assertThrows(RdmaException.class, () -> side.queuePair.modifyToReadyToReceive(
                new QueuePairEndpoint(other.queuePair.queuePairNumber(), 0, elsewhere, 4096,
                    QueuePairEndpoint.DEFAULT_PARTITION_KEY)));
            assertTrue(moved.getMessage().contains("not in this host's shm directory"), moved.getMessage());

            side.queuePair.modifyToReadyToReceive(other.queuePair.localEndpoint()); // its own address: taken
        }
    }

    @Test
    void anShmDirectoryIsMadeForItsOwnerAloneAndOneOthersMayWriteIsRefused() throws Exception
    {
        final Path made = directory.resolve("made");
        try (ShmSide side = new ShmSide(ShmSide.config(made, 2000), RING_BYTES))
        {
            assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"),
                Files.getPosixFilePermissions(made));
        }
        final Path open = Files.createDirectory(directory.resolve("open"));
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        final RdmaException refused = assertThrows(RdmaException.class,
            () -> new ShmSide(ShmSide.config(open, 2000), RING_BYTES));
        assertTrue(refused.getMessage().contains("writable by others (mode 777)"), refused.getMessage());
        assertTrue(refused.getMessage().contains(RdmaConfig.SHM_DIRECTORY_PROP), refused.getMessage());
    }

    @Test
    void aSecondQueuePairCannotConnectToAnAlreadyConnectedQueuePair()
    {
        final RdmaConfig config = ShmSide.config(directory, 2000);
        try (ShmSide a = new ShmSide(config, RING_BYTES); ShmSide b = new ShmSide(config, RING_BYTES);
            ShmSide intruder = new ShmSide(config, RING_BYTES))
        {
            ShmSide.connect(a, b);
            intruder.queuePair.modifyToInit();
            final RdmaException refused = assertThrows(RdmaException.class,
                () -> intruder.queuePair.modifyToReadyToReceive(b.queuePair.localEndpoint()));
            assertTrue(refused.getMessage().contains("already connected"), refused.getMessage());
        }
    }

    @Test
    void aPeerControlFileClaimingARegionTableItDoesNotHoldIsRefusedAsCorruptAndTheConnectionCanBeMadeOnceItIsMended()
        throws IOException
    {
        final RdmaConfig config = ShmSide.config(directory, 2000);
        try (ShmSide a = new ShmSide(config, RING_BYTES); ShmSide b = new ShmSide(config, RING_BYTES))
        {
            final MappedByteBuffer control = ShmFiles.mapExisting(b.device.shmAddress().controlFile(),
                ShmDeviceControl.REGION_TABLE_OFFSET);
            try
            {
                final UnsafeBuffer header = new UnsafeBuffer(control);
                a.queuePair.modifyToInit();
                // 0x0800_0001 slots of 32 bytes wrap an int to 32 bytes; -1 makes the file look long enough.
                for (final int capacity : new int[]{ 0x0800_0001, -1, 0 })
                {
                    header.putInt(ShmDeviceControl.REGION_TABLE_CAPACITY_OFFSET, capacity);
                    final RdmaException refused = assertThrows(RdmaException.class,
                        () -> a.queuePair.modifyToReadyToReceive(b.queuePair.localEndpoint()));
                    assertTrue(refused.getMessage().contains("corrupt: a region table of " + capacity + " slots"),
                        refused.getMessage());
                }
                header.putInt(ShmDeviceControl.REGION_TABLE_CAPACITY_OFFSET, ShmDevice.REGION_TABLE_CAPACITY);
            }
            finally
            {
                ShmFiles.unmap(control);
            }
            b.queuePair.modifyToInit();
            a.queuePair.modifyToReadyToReceive(b.queuePair.localEndpoint());
            b.queuePair.modifyToReadyToReceive(a.queuePair.localEndpoint());
        }
    }

    private static int controlFilesDeviceId(final ShmDevice device) throws IOException
    {
        final MappedByteBuffer control = ShmFiles.mapExisting(device.shmAddress().controlFile(),
            ShmDeviceControl.REGION_TABLE_OFFSET);
        try
        {
            return new UnsafeBuffer(control).getInt(ShmDeviceControl.DEVICE_ID_OFFSET);
        }
        finally
        {
            ShmFiles.unmap(control);
        }
    }

    private List<String> files() throws IOException
    {
        try (Stream<Path> entries = Files.list(directory))
        {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static List<String> sorted(final String... names)
    {
        return Stream.of(names).sorted().toList();
    }

    private static long pidOfAFinishedProcess() throws Exception
    {
        final Process process = new ProcessBuilder("true").start();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "'true' did not exit within 10 s");
        final long pid = process.pid();
        assertFalse(ProcessIdentity.isAlive(pid, ProcessIdentity.UNKNOWN_START_TIME),
            "pid " + pid + " was reused already");
        return pid;
    }
}
