#!/bin/bash
# By hand only (Maven does not run it: it takes about half an hour of guest time): ten million
# round trips of `perf rtt --provider ibverbs --api both --processes 2` on rxe0, to show that the
# ibverbs paths run a 10M-message row without a garbage collection (the rtt table's gc column, and
# gc_collections in summary.json's rows). Runs INSIDE the lab guest:
#   rdma-channel/src/test/vm/softroce-lab.sh run perf/src/test/vm/jobs/perf-ibverbs-gc.sh RESULTS_DIR 3600
# Uses perf/target/classes and perf/target/runtime-classpath.txt from the host build, as perf-ibverbs.sh;
# leaves each JVM's GC log (gc-<pid>.log) beside the results.
# Exit code non-zero when the run fails or a row collected.
set -uo pipefail
# RESULTS, SUMMARY, HERE, MODULE (perf), RW_VM_DIR, RW_REPO_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../../../../../rdma-channel/src/test/vm/jobs/lib-rxe.sh"
job_start=$(now)
MESSAGES=10000000 WARMUP=200000 SIZE=32
. "$(dirname "${BASH_SOURCE[0]}")/lib-perf.sh"   # CP, PERF_FLAGS
# Each JVM's GC log, the pinger's and its child ponger's (which inherits the flag): %p is the pid.
PERF_FLAGS+=("-Xlog:gc:file=$RESULTS/gc-%p.log")

section "setup rxe0"
setup_rxe0 || { note result "FAILED: rxe0 setup"; exit 1; }
ulimit -l unlimited
setup_done

section "perf rtt --provider ibverbs --api both --processes 2, $MESSAGES round trips"
started=$(now)
"$JDK/bin/java" "${PERF_FLAGS[@]}" -Dringwire.rdma.ibverbs.device=rxe0 -Dringwire.rdma.ibverbs.gid.index=1 \
  -cp "$CP" io.ringwire.perf.PerfMain rtt --provider ibverbs --api both --processes 2 --size "$SIZE" \
  --messages "$MESSAGES" --warmup "$WARMUP" --out "$RESULTS/rtt" > "$RESULTS/rtt.txt" 2> "$RESULTS/rtt.log"
prc=$?
tail -5 "$RESULTS/rtt.log"; cat "$RESULTS/rtt.txt"
note rtt_exit "$prc"
note rtt_seconds "$(since "$started")"
rc=$prc
for api in channel messaging; do
  # The last column is the row's garbage collections, in both processes.
  gc=$(awk -v api="$api" '$1 == "ibverbs" && $2 == api { print $NF; exit }' "$RESULTS/rtt.txt")
  note "rtt_${api}_gc" "${gc:-MISSING}"
  [ "${gc:-x}" = 0 ] || rc=1
done
for log in "$RESULTS"/gc-*.log; do
  note "gc_log_$(basename "$log" .log)" "$(grep -c 'Pause' "$log") pauses: $(grep 'Pause' "$log" | tr '\n' ';')"
done
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
