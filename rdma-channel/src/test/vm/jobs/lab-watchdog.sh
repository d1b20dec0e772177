#!/bin/bash
# The lab's own watchdog, INSIDE the guest (softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm runs it
# twice, before the other jobs): a guest that stops during a job's setup is stopped by the host and
# booted once more, instead of holding the run until its timeout. The results directory's name
# picks the way the first boot gets stuck (the name needs no variable passed to the guest):
#   watchdog-hung:  every task of the guest starved by a real-time spinner on each vCPU, as if its
#                   kernel or emulated CPUs had stopped: no heartbeat (the host runs this one with
#                   RINGWIRE_VM_STALL_SECONDS=20; the setup's bound, 150 s, stays out of the way).
#                   It relies on RT throttling off starving every fair task, as on the lab's 6.1
#                   guest kernel (from 6.12 a deadline server keeps a little time for them);
#   watchdog-setup: the setup waits for ever while the guest runs on (bound 20 s).
# The second boot passes when the host recorded the first one's outcome as that way
# (attempt1-timing.txt in the results share); a host that never stopped the first boot fails the
# run (no second boot, no exit code).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib-rxe.sh"   # RESULTS, SUMMARY, HERE, MODULE, RW_VM_DIR, RW_REPO_DIR
case "$(basename "$RESULTS")" in
  *hung*) mode=hung RW_SETUP_SECONDS=150 ;;
  *setup*) mode=setup RW_SETUP_SECONDS=20 ;;
  *) note result "FAILED: results directory $RESULTS names neither hung nor setup"; exit 1 ;;
esac
note mode "$mode"

section "setup"
setup_begins
if [ ! -e "$RESULTS/attempt1-timing.txt" ]; then
  note boot first
  case "$mode" in
    hung)
      # Real-time tasks get every cycle once the kernel's throttling is off: nothing else runs,
      # the heartbeat included.
      sysctl -qw kernel.sched_rt_runtime_us=-1 || { note result "FAILED: cannot lift RT throttling"; exit 1; }
      for cpu in $(seq 0 $(($(nproc) - 1))); do
        chrt -f 50 taskset -c "$cpu" bash -c 'while :; do :; done' &
      done
      ;;
  esac
  while :; do sleep 1000; done
fi
note boot second
first=$(grep -E '^outcome=' "$RESULTS/attempt1-timing.txt" | cut -d= -f2)
note first_boot_outcome "$first"
expected=$([ "$mode" = hung ] && echo hung || echo setup-stuck)
setup_done
if [ "$first" = "$expected" ]; then
  note result passed
  exit 0
fi
note result "FAILED: the first boot ended as '$first', not '$expected'"
exit 1
