/*
 * Soft-RoCE lab: keeps every JVM in the guest on one vCPU. Loaded into every guest process by
 * LD_PRELOAD (softroce-lab.sh builds it on the host and stage 2 sets it); it does nothing in a
 * process whose executable is not named "java".
 *
 * Why: the guest runs under qemu's multi-threaded TCG, which does not keep code coherent when one
 * vCPU rewrites instructions that another vCPU is translating. HotSpot (JDK 25) rewrites the first
 * instruction of a compiled method whenever it retires it (tier-up, deoptimization, class loading
 * that breaks an inlining assumption), so a JVM whose threads run on both vCPUs at times executes
 * half-rewritten code: SIGSEGV or SIGILL at the very entry of a C1-compiled method. The lab job
 * jit-patching.sh shows it without any RDMA: a JVM doing nothing but retiring compiled methods while
 * two threads call them dies within seconds on two vCPUs, and runs for minutes on one. One vCPU per
 * JVM serializes a process's code writes with its own execution; two JVMs on two vCPUs still run in
 * parallel (each has its own code cache).
 *
 * Which vCPU: a JVM started by something other than a confined JVM gets vCPU 0. A JVM started by a
 * confined JVM (RINGWIRE_JVM_CPU in its environment, inherited) gets the next vCPU, so a parent and
 * the peer it spawns (perf rtt's pinger and ponger, a test and its echo peer) run side by side;
 * with RINGWIRE_JVM_CHILD_CPUS=spread, successive children of one JVM take successive vCPUs after
 * the parent's instead (a test JVM that mostly waits, with a publisher and a subscriber child).
 * A thread the application pins elsewhere (perf pins its pinger to the last-but-one online CPU and
 * its ponger to the last: with two vCPUs that is 0 and 1, as here) leaves the confinement.
 *
 * RINGWIRE_JVM_ONE_CPU=0 leaves a JVM (and the JVMs it starts) unconfined, for a run that needs
 * two spinning threads in one JVM on two vCPUs and accepts the hazard; RINGWIRE_JVM_CPU_LOG=1
 * prints the choice on stderr.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The how-manieth child of JVM process parentPid this is (0, 1, ...): a counter in /dev/shm. */
static int child_index(const char *parentPid)
{
    char path[128];
    snprintf(path, sizeof path, "/dev/shm/ringwire-jvm-%s.children", parentPid);
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
    {
        return 0;
    }
    int index = 0;
    if (flock(fd, LOCK_EX) == 0)
    {
        char text[32] = {0};
        const ssize_t n = pread(fd, text, sizeof text - 1, 0);
        index = n > 0 ? atoi(text) : 0;
        const int length = snprintf(text, sizeof text, "%d\n", index + 1);
        if (pwrite(fd, text, (size_t)length, 0) != length)
        {
            index = 0;
        }
        flock(fd, LOCK_UN);
    }
    close(fd);
    return index;
}

__attribute__((constructor)) static void ringwire_jvm_one_cpu(void)
{
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
    {
        return;
    }
    exe[n] = '\0';
    const char *name = strrchr(exe, '/');
    name = NULL == name ? exe : name + 1;
    const char *enabled = getenv("RINGWIRE_JVM_ONE_CPU");
    if (0 != strcmp(name, "java") || (NULL != enabled && 0 == strcmp(enabled, "0")))
    {
        return;
    }
    char self[32];
    snprintf(self, sizeof self, "%d", (int)getpid());
    const char *owner = getenv("RINGWIRE_JVM_CPU_PID");
    if (NULL != owner && 0 == strcmp(owner, self))
    {
        return; /* the launcher executed itself again: already confined */
    }
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2)
    {
        return;
    }
    const char *parentCpu = getenv("RINGWIRE_JVM_CPU");
    long cpu = 0;
    if (NULL != parentCpu && NULL != owner)
    {
        const char *policy = getenv("RINGWIRE_JVM_CHILD_CPUS");
        const int spread = NULL != policy && 0 == strcmp(policy, "spread");
        cpu = (atol(parentCpu) + 1 + (spread ? child_index(owner) : 0)) % cpus;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (0 != sched_setaffinity(0, sizeof set, &set))
    {
        perror("jvm-one-cpu: sched_setaffinity");
        return;
    }
    char value[32];
    snprintf(value, sizeof value, "%ld", cpu);
    setenv("RINGWIRE_JVM_CPU", value, 1);
    setenv("RINGWIRE_JVM_CPU_PID", self, 1);
    if (NULL != getenv("RINGWIRE_JVM_CPU_LOG"))
    {
        fprintf(stderr, "jvm-one-cpu: java pid %s on vCPU %ld of %ld\n", self, cpu, cpus);
    }
}
