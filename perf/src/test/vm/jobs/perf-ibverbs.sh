#!/bin/bash
# `perf compare --pairs ibverbs` against kernel Soft-RoCE: runs INSIDE the lab guest
# (rdma-channel/src/test/vm/softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm in perf does that).
# Uses perf/target/classes and perf/target/runtime-classpath.txt from the host build.
#
# rxe0 on the veth end va; both processes' queue pairs are on rxe0 (rxe loops the packets back in
# the driver). In one boot, on the same device and message size:
#   1. perftest's ib_write_lat, rxe0 to rxe0: the floor (C, RDMA WRITE polled in memory);
#   2. ./ringwire perf compare --pairs ibverbs --processes 2 --rounds 3: in each round the WRITE
#      WITH IMMEDIATE channel ping-pong, then Publication/Subscription with SBE LatencyProbes, then
#      ib_write_lat, which compare runs itself on the device the ibverbs provider is given; the
#      ratios (ibverbs over ib_write_lat, messaging over its channel) are the medians of the
#      rounds' ratios, since one guest's rows drift by more than messaging's overhead from one
#      minute to the next.
# Unlike the other lab jobs, the JVMs run with C2: the emulated CPU inflates Java work many times,
# and C1 code would make messaging's overhead over the channel look far larger than it is. C2
# needs a long warm-up here (its compiles are slow under TCG): 150000 round trips per row, then
# 50000 timed. The guest's speed varies several times from one host (and one hour) to the next, so
# the compare runs with --budget: no round starts that would end past COMPARE_BUDGET seconds, judged
# by the longest round so far, and a slow guest reports fewer rounds (summary: compare_rounds and the
# compare's note) instead of being killed mid-row at PERF_TIMEOUT and reporting none. The timeout
# stays, above the budget by more than any round's growth, for a compare that hangs.
# rxe drops packets when the emulated CPU is loaded. With the default retry count ("until the peer
# timeout") the ACK timeout is the longest for which seven attempts fit in perf's 10 s peer
# timeout, about a second, so every drop stalls a row that long and a few hundred drops exhaust
# the bound; like the messaging job, the compare retransmits after 134 ms, six times at most.
# Compare the rows with each other and with ib_write_lat, not with a real machine.
# Writes compare.txt, compare/ (its results directory), ib_write_lat-*.log and
# summary.txt. Exit code non-zero when a run failed or printed no result; never because of a figure.
set -uo pipefail
# RESULTS, SUMMARY, HERE, MODULE (perf), RW_VM_DIR, RW_REPO_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../../../../../rdma-channel/src/test/vm/jobs/lib-rxe.sh"
job_start=$(now)
rc=0
MESSAGES=50000 WARMUP=150000 SIZE=32 ROUNDS=3 COMPARE_BUDGET=${COMPARE_BUDGET:-600}
. "$(dirname "${BASH_SOURCE[0]}")/lib-perf.sh"   # CP, PERF_FLAGS

section "setup rxe0"
setup_rxe0 || { note result "FAILED: rxe0 setup"; exit 1; }
ulimit -l unlimited
note rxe0_counters_before "$(rxe_counters rxe0)"
setup_done

section "ib_write_lat rxe0 -> rxe0, $SIZE bytes (the floor)"
started=$(now)
lat_row=$(ib_write_lat_row rxe0 rxe0 "$VA_IP" "$SIZE" "$MESSAGES" 18700) ||
  { note ib_write_lat "FAILED: no row in three attempts"; rc=1; }
cat "$RESULTS/ib_write_lat-client.log"
note ib_write_lat_row "$(echo "$lat_row" | awk '{ $1 = $1; print }')"
# ib_write_lat reports half the round trip; compare's rows are whole round trips.
note ib_write_lat_rtt_typical_usec "$(echo "$lat_row" | awk '$5 ~ /^[0-9.]+$/ { printf "%.2f", 2 * $5 }')"
note ib_write_lat_seconds "$(since "$started")"

section "perf compare --pairs ibverbs --rounds $ROUNDS: channel, messaging and ib_write_lat, interleaved"
started=$(now)
timeout --kill-after=10 "${PERF_TIMEOUT:-780}" "$JDK/bin/java" "${PERF_FLAGS[@]}" \
  -Dringwire.rdma.ibverbs.device=rxe0 -Dringwire.rdma.ibverbs.gid.index=1 \
  -Dringwire.rdma.retry.count=6 -Dringwire.rdma.ack.timeout.us=100000 -cp "$CP" io.ringwire.perf.PerfMain \
  compare --pairs ibverbs --processes 2 --rounds "$ROUNDS" --budget "$COMPARE_BUDGET" --size "$SIZE" \
  --messages "$MESSAGES" --warmup "$WARMUP" --out "$RESULTS/compare" > "$RESULTS/compare.txt" 2> "$RESULTS/compare.log"
crc=$?
cat "$RESULTS/compare.log" "$RESULTS/compare.txt"
note compare_exit "$crc"
note compare_seconds "$(since "$started")"
# The rounds that ran ("compare: 2 round(s), ..."), and why the rest did not where the budget stopped them.
note compare_rounds "$(awk '$1 == "compare:" && $3 == "round(s)," { print $2 " of '"$ROUNDS"'"; exit }' "$RESULTS/compare.txt")"
stopped=$(grep -o 'stopped after .*' "$RESULTS/compare.txt" | head -1)
[ -z "$stopped" ] || note compare_budget "$stopped"
[ "$crc" -eq 0 ] || rc=1
for api in channel messaging; do
  row=$(awk -v api="$api" '$1 == "ibverbs" && $2 == api { print; exit }' "$RESULTS/compare.txt")
  [ -n "$row" ] || { note "compare_$api" "MISSING"; rc=1; continue; }
  note "compare_${api}_p50_p99_usec" "$(echo "$row" | awk '{ printf "%.2f %.2f", $4 / 1000, $5 / 1000 }')"
done
# A pair's line, "ibverbs / ib_write_lat  1.20x  1.21 1.18 1.20": its median, then each round's reading.
ratio_of() {
  awk -v label="$1" 'index($0, label " ") == 1 { sub(/^[^0-9]*/, ""); $1 = $1; print; exit }' "$RESULTS/compare.txt"
}
ratio=$(ratio_of "ibverbs / ib_write_lat")
note compare_ibverbs_over_ib_write_lat "${ratio:-MISSING}"
overhead=$(ratio_of "ibverbs messaging / ibverbs channel")
note compare_messaging_over_channel "${overhead:-MISSING}"
[ -n "$ratio" ] && [ -n "$overhead" ] || rc=1

section "rxe counters"
note rxe0_counters_after "$(rxe_counters rxe0)"
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
