#!/bin/bash
# The vm-tagged ibverbs suites against kernel Soft-RoCE: runs INSIDE the lab guest
# (softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm does that). The host build wrote the test
# classpath and the JUnit launcher to rdma-channel/target/vm (RINGWIRE_VM_DIR overrides).
#
# Phase 1, rxe0 on va alone (queue pairs on one device: rxe loops them back in the driver):
#   IbverbsProviderContractTest, IbverbsDeviceRefusedRequestsTest,
#   IbverbsConnectionManagerContractTest, IbverbsTwoProcessContractTest (the child JVM opens the
#   first device, which is rxe0 while it is the only one), IbverbsAllocationContractTest
#   (-Dringwire.test.allocation.roundTrips=IBV_ROUNDTRIPS, default 20000), and
#   doctor.DoctorOnSoftRoceTest (`ringwire doctor` finds rxe0 and recommends ibverbs).
# Phase 2, rxe1 on vb and policy routing: the provider contract with the requester on rxe0 and
#   the responder on rxe1, so every packet crosses the veth (interop.IbverbsCrossDeviceContractTest).
# Phase 3, same boot: ib_write_lat rxe0 -> rxe1 (the floor) and the ibverbs provider's ping-pong
#   (interop.IbverbsPingPong) on the same devices, half-RTT each and the ratio, in
#   latency-summary.txt (IBV_SKIP_PERF=1 skips it; IBV_PERF_ITERATIONS, default 5000).
# JUnit XML goes to $RINGWIRE_VM_RESULTS/junit, per-phase logs and summary.txt next to it.
# Exit code non-zero when any test failed or a phase could not run.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib-rxe.sh"   # RESULTS, SUMMARY, HERE, MODULE, RW_VM_DIR, RW_REPO_DIR
rc=0
job_start=$(now)

section "setup rxe0"
setup_rxe0 || { note result "FAILED: rxe0 setup"; exit 1; }
ulimit -l unlimited
install_icrc_probe || note icrc_probe "could not be installed"
note rxe0_counters_before "$(rxe_counters rxe0)"
setup_done

section "phase 1: ibverbs suites on rxe0"
started=$(now)
RW_JAVA_OPTS=(-Dringwire.rdma.ibverbs.device=rxe0 -Dringwire.rdma.ibverbs.gid.index=1
  "-Dringwire.test.allocation.roundTrips=${IBV_ROUNDTRIPS:-20000}")
RW_TEST_TIMEOUT=${IBV_PHASE1_TIMEOUT:-720} run_tests "$RESULTS/junit" \
  io.ringwire.rdma.ibverbs.IbverbsProviderContractTest \
  io.ringwire.rdma.ibverbs.IbverbsDeviceRefusedRequestsTest \
  io.ringwire.rdma.ibverbs.IbverbsConnectionManagerContractTest \
  io.ringwire.rdma.ibverbs.IbverbsTwoProcessContractTest \
  io.ringwire.rdma.ibverbs.IbverbsAllocationContractTest \
  io.ringwire.rdma.doctor.DoctorOnSoftRoceTest 2>&1 | tee "$RESULTS/phase1.log"
p1=${PIPESTATUS[0]}
note phase1_exit "$p1"
note phase1_seconds "$(since "$started")"
note phase1_summary "$(grep -E 'tests (successful|failed|skipped)' "$RESULTS/phase1.log" | tr -s ' []' ' ' | tr '\n' ';')"
[ "$p1" -eq 0 ] || rc=1

section "setup rxe1 + policy routing"
if setup_rxe1; then
  ip rule; ip route get "$VB_IP" from "$VA_IP" oif va
  section "phase 2: provider contract rxe0 -> rxe1 across the veth"
  started=$(now)
  va_tx=$(cat /sys/class/net/va/statistics/tx_packets) vb_tx=$(cat /sys/class/net/vb/statistics/tx_packets)
  RW_JAVA_OPTS=(-Dringwire.rdma.ibverbs.gid.index=1 -Dringwire.vm.requesterDevice=rxe0 -Dringwire.vm.responderDevice=rxe1)
  RW_TEST_TIMEOUT=${IBV_PHASE2_TIMEOUT:-300} run_tests "$RESULTS/junit" \
    io.ringwire.rdma.interop.IbverbsCrossDeviceContractTest 2>&1 | tee "$RESULTS/phase2.log"
  p2=${PIPESTATUS[0]}
  note phase2_exit "$p2"
  note phase2_seconds "$(since "$started")"
  note phase2_veth_tx_packets "va=$(($(cat /sys/class/net/va/statistics/tx_packets) - va_tx)) vb=$(($(cat /sys/class/net/vb/statistics/tx_packets) - vb_tx))"
  note phase2_summary "$(grep -E 'tests (successful|failed|skipped)' "$RESULTS/phase2.log" | tr -s ' []' ' ' | tr '\n' ';')"
  [ "$p2" -eq 0 ] || rc=1
else
  note phase2 "FAILED: rxe1/policy routing setup"
  rc=1
fi

section "phase 3: ib_write_lat floor vs the ibverbs provider's ping-pong, rxe0 -> rxe1"
# Same devices, same boot: perftest's ib_write_lat (the floor: C, RDMA WRITE polled in memory)
# and the ibverbs provider's WRITE_WITH_IMM ping-pong (interop.IbverbsPingPong), both half-RTT.
if [ "${IBV_SKIP_PERF:-0}" != 1 ] && [ -d /sys/class/infiniband/rxe1 ]; then
  PERF_ITERATIONS=${IBV_PERF_ITERATIONS:-5000}
  started=$(now)
  lat_row=$(ib_write_lat_row rxe1 rxe0 "$VB_IP" 2 "$PERF_ITERATIONS" 18600) ||
    { note phase3_floor "FAILED: ib_write_lat gave no row in three attempts"; rc=1; }
  cat "$RESULTS/ib_write_lat-client.log"
  note ib_write_lat_row "$(echo "$lat_row" | awk '{ $1 = $1; print }')"
  lat_typ=$(echo "$lat_row" | awk '{ print $5 }') lat_avg=$(echo "$lat_row" | awk '{ print $6 }')
  note ib_write_lat_typical_usec "$lat_typ"
  note ib_write_lat_avg_usec "$lat_avg"
  note ib_write_lat_seconds "$(since "$started")"
  started=$(now)
  cp=$(test_classpath)
  # Its pinger and responder are two spinning threads of one JVM: confined to one vCPU (the lab's
  # jvm-one-cpu.so) each round trip would wait for the scheduler, so this short run stays on both
  # vCPUs and accepts the emulator's JIT-patching hazard (see jvm-one-cpu.c; docs/softroce-lab.md
  # has the record of this run under it).
  # perf's lab job measures the two-process ping-pong with each JVM confined.
  RINGWIRE_JVM_ONE_CPU=0 timeout --kill-after=5 "${IBV_PINGPONG_TIMEOUT:-240}" "$JDK/bin/java" "${JVM_FLAGS[@]}" -Dringwire.rdma.ibverbs.gid.index=1 \
    -cp "$cp" io.ringwire.rdma.interop.IbverbsPingPong "$PERF_ITERATIONS" "${IBV_PERF_WARMUP:-3000}" rxe0 rxe1 2>&1 | tee "$RESULTS/pingpong.log"
  pp=$(grep '^PINGPONG' "$RESULTS/pingpong.log" | tail -n 1)
  note ibverbs_pingpong "${pp#PINGPONG }"
  [ -n "$pp" ] || { note phase3 "FAILED: the ibverbs ping-pong printed no result"; rc=1; }
  note ibverbs_pingpong_seconds "$(since "$started")"
  pp_typ=$(echo "$pp" | tr ' ' '\n' | sed -n 's/^half_rtt_typical_usec=//p')
  pp_avg=$(echo "$pp" | tr ' ' '\n' | sed -n 's/^half_rtt_avg_usec=//p')
  if [ -n "$pp_typ" ] && [ -n "$lat_typ" ]; then
    note ratio_typical "$(awk -v a="$pp_typ" -v b="$lat_typ" 'BEGIN { printf "%.2f", a / b }')"
    note ratio_avg "$(awk -v a="$pp_avg" -v b="$lat_avg" 'BEGIN { printf "%.2f", a / b }')"
  fi
  { echo "# ib_write_lat (perftest, floor) vs ibverbs provider ping-pong, rxe0 -> rxe1 across the veth, half-RTT usec"
    grep -E '^(ib_write_lat|ibverbs_pingpong|ratio)' "$SUMMARY"; } > "$RESULTS/latency-summary.txt"
  section "latency summary"; cat "$RESULTS/latency-summary.txt"
else
  note phase3 "skipped"
fi

section "rxe counters"
note rxe0_counters_after "$(rxe_counters rxe0)"
[ -d /sys/class/infiniband/rxe1 ] && note rxe1_counters_after "$(rxe_counters rxe1)"
note icrc_failures "$(icrc_failures)"
rdma statistic show > "$RESULTS/rdma-statistic.txt" 2>&1
note junit_files "$(ls "$RESULTS/junit" 2>/dev/null | tr '\n' ' ')"
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
