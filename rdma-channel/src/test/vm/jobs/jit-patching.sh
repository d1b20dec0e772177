#!/bin/bash
# JIT-patching job, INSIDE the lab guest (softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm runs it
# first): checks that the lab's JVMs are safe from qemu's multi-threaded TCG, which does not keep
# code coherent when one vCPU rewrites instructions another is translating (see jvm-one-cpu.c).
#
# Runs vm.JitPatchingChurn (no RDMA: HotSpot retiring compiled methods while two threads call
# them) twice:
#   1. as every lab JVM runs, confined to one vCPU by jvm-one-cpu.so: must live to the end
#      (JIT_CHURN_SECONDS, default 60); the job fails when it does not;
#   2. the control, without the confinement (threads on both vCPUs), for at most
#      JIT_CONTROL_SECONDS (default 30): expected to die within seconds. Its outcome is reported,
#      not judged: it shows the hazard the confinement exists for is still there.
# A crashing JVM's hs_err file is kept in the results.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib-rxe.sh"   # RESULTS, SUMMARY, HERE, MODULE, RW_VM_DIR, RW_REPO_DIR
SECONDS_CONFINED=${JIT_CHURN_SECONDS:-60}
SECONDS_CONTROL=${JIT_CONTROL_SECONDS:-30}
cp=$(test_classpath) || { note result "FAILED: no test classpath"; exit 1; }
note vcpus "$(nproc)"
note confinement "${LD_PRELOAD:-none}"

# $1 label, $2 seconds; the rest of the environment decides the confinement.
churn() {
  local label=$1 seconds=$2 started rc
  started=$(now)
  RINGWIRE_JVM_CPU_LOG=1 timeout --kill-after=10 $((seconds + 120)) "$JDK/bin/java" -XX:ErrorFile="$RESULTS/hs_err_${label}_%p.log" \
    -XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,io.ringwire.rdma.vm.JitPatchingChurn$Hot::*' \
    -cp "$cp" io.ringwire.rdma.vm.JitPatchingChurn "$seconds" 2 50 > "$RESULTS/churn-$label.log" 2>&1
  rc=$?
  grep -E 'churn_|jvm-one-cpu' "$RESULTS/churn-$label.log" | head -n 4
  note "${label}_exit" "$rc"
  note "${label}_seconds" "$(since "$started")"
  note "${label}_crash" "$( { grep -m 1 -E '^# +SIG' "$RESULTS/churn-$label.log"; grep -m 1 -A1 'Problematic frame' "$RESULTS/churn-$label.log" | tail -n 1; } | tr -s ' \n' ' ' | cut -c1-300)"
  return "$rc"
}

section "confined: every JVM on one vCPU, ${SECONDS_CONFINED}s"
if [ -z "${LD_PRELOAD:-}" ]; then
  note result "FAILED: no confinement preload (RINGWIRE_VM_CONFINE_JVMS=0?)"
  exit 1
fi
churn confined "$SECONDS_CONFINED"
confined=$?

section "control: threads on both vCPUs, at most ${SECONDS_CONTROL}s"
LD_PRELOAD= churn control "$SECONDS_CONTROL"
control=$?
if [ "$control" -eq 0 ]; then
  note control_outcome "lived ${SECONDS_CONTROL}s: the hazard did not show this time"
else
  note control_outcome "died (exit $control): the hazard the confinement avoids"
fi

if [ "$confined" -ne 0 ]; then
  note result "FAILED: the confined JVM died (exit $confined)"
  exit 1
fi
note result PASSED
