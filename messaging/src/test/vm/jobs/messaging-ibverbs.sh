#!/bin/bash
# Messaging over the ibverbs provider against kernel Soft-RoCE: runs INSIDE the lab guest
# (rdma-channel/src/test/vm/softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm in messaging does
# that). The host build wrote the messaging test classpath and the JUnit launcher to
# messaging/target/vm (RINGWIRE_VM_DIR overrides).
#
# rxe0 on the veth end va; every queue pair of every process is on rxe0, which loops their packets
# back in the driver (the kernel's RoCEv2 stack end to end: rkeys, PSNs, ACKs, retries). The tests
# run with -Dringwire.test.providers=ibverbs (io.ringwire.messaging.TestProviders) and hand the
# device properties on to their child processes: publication/subscription in one process, both
# directions, the subscription's limit on publications (rxe's completion queues hold 32767), a
# handler that closes or throws mid-batch (the completions polled with its frame are kept), the
# owner's cut of a slow subscriber, and the system tests across processes (a million messages, slow subscriber, late subscriber, 16 MiB
# messages, restart, fan-out and fan-in, a publisher killed mid-message; the zero-allocation test
# only on request, see below). A file RESULTS_DIR/tests.txt, written before the run, names a subset
# (class names, blank-separated; the guest gets no environment from the host).
# JUnit XML goes to $RINGWIRE_VM_RESULTS/junit, the log and summary.txt next to it.
# A JVM crash leaves its hs_err file there too (docs/softroce-lab.md explains the emulator's code
# patching hazard, which the lab's one-vCPU confinement avoids).
# Exit code non-zero when any test failed or the device could not be set up.
set -uo pipefail
# RESULTS, SUMMARY, HERE, MODULE (messaging), RW_VM_DIR, RW_REPO_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../../../../../rdma-channel/src/test/vm/jobs/lib-rxe.sh"
job_start=$(now)

DEFAULT_TESTS="io.ringwire.messaging.PublicationSubscriptionTest
  io.ringwire.messaging.SubscriptionCapacityTest
  io.ringwire.messaging.ReceiveCreditTest
  io.ringwire.messaging.BothWaysConnectionTest
  io.ringwire.messaging.CloseFromHandlerTest
  io.ringwire.messaging.SlowSubscriberTest
  io.ringwire.messaging.system.CrossProcessDeliverySystemTest
  io.ringwire.messaging.system.SlowSubscriberSystemTest
  io.ringwire.messaging.system.FanOutLateSubscriberTest
  io.ringwire.messaging.system.LargeMessageReassemblySystemTest
  io.ringwire.messaging.system.SubscriberRestartSystemTest
  io.ringwire.messaging.system.FanOutFanInSystemTest
  io.ringwire.messaging.system.PublisherKilledMidMessageSystemTest"
# ZeroAllocationSystemTest is not in the default list: its steady state needs half a million
# messages and a quiet JIT within its fixed time limit, which an emulated CPU on a busy host does not
# reliably give. The ibverbs provider's own post and poll path is proven allocation-free on rxe by
# ibverbs-suite's IbverbsAllocationContractTest. Name it in tests.txt to run it.
selected=$DEFAULT_TESTS
[ -s "$RESULTS/tests.txt" ] && selected=$(cat "$RESULTS/tests.txt")
read -r -a TESTS <<< "$(echo $selected)"

section "setup rxe0"
setup_rxe0 || { note result "FAILED: rxe0 setup"; exit 1; }
ulimit -l unlimited
install_icrc_probe || note icrc_probe "could not be installed"
note rxe0_counters_before "$(rxe_counters rxe0)"
setup_done

section "messaging tests on ibverbs (rxe0)"
started=$(now)
# Every JVM here is confined to one vCPU (the lab's jvm-one-cpu.so). The test JVM mostly waits for
# its children, so its children take the vCPUs in turn from the other one: a subscriber and a
# publisher each get one.
export RINGWIRE_JVM_CHILD_CPUS=spread
# Fast retransmission: rxe drops packets under the emulated CPU's load, and with the default retry
# count (7: "until the peer timeout") the ACK timeout is the longest for which seven tries fit in
# the peer timeout, so each drop stalls a stream for a large fraction of a second. Retry count 6
# with a 100 ms ACK timeout retransmits several times sooner and still reports a dead peer within a
# second. The volume tests send a quarter of their messages (ringwire.test.volume) against limits
# made for real machines, and the tests wait three times as long for their child processes
# (ringwire.test.wait.scale): a JVM takes seconds to start under the emulator.
RW_JAVA_OPTS=(-Dringwire.test.providers=ibverbs -Dringwire.rdma.ibverbs.device=rxe0
  -Dringwire.rdma.ibverbs.gid.index=1 -Dringwire.rdma.retry.count=6 -Dringwire.rdma.ack.timeout.us=100000
  -Dringwire.test.volume=0.25 -Dringwire.test.wait.scale=3 "-XX:ErrorFile=$RESULTS/hs_err_pid%p.log")
RW_TEST_TIMEOUT=${MESSAGING_TIMEOUT:-1300} run_tests "$RESULTS/junit" "${TESTS[@]}" 2>&1 | tee "$RESULTS/messaging.log"
rc=${PIPESTATUS[0]}
note messaging_exit "$rc"
note messaging_seconds "$(since "$started")"
note messaging_summary "$(grep -E 'tests (successful|failed|skipped)' "$RESULTS/messaging.log" | tr -s ' []' ' ' | tr '\n' ';')"
grep -E '^\[ibverbs\]' "$RESULTS/messaging.log" > "$RESULTS/figures.txt"

section "rxe counters"
note rxe0_counters_after "$(rxe_counters rxe0)"
note icrc_failures "$(icrc_failures)"
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
