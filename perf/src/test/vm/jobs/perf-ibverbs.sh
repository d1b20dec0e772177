#!/bin/bash
# `perf rtt` on the ibverbs provider against kernel Soft-RoCE: runs INSIDE the lab guest
# (rdma-channel/src/test/vm/softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm in perf does that).
# Uses perf/target/classes and perf/target/runtime-classpath.txt from the host build.
#
# rxe0 on the veth end va; both processes' queue pairs are on rxe0 (rxe loops the packets back in
# the driver). In one boot, on the same device and message size:
#   1. perftest's ib_write_lat, rxe0 to rxe0: the floor (C, RDMA WRITE polled in memory);
#   2. ./ringwire perf rtt --provider ibverbs --api both --processes 2: the WRITE WITH IMMEDIATE
#      channel ping-pong, then Publication/Subscription with SBE LatencyProbes, and the table's
#      messaging-over-channel overhead;
#   3. ./ringwire perf compare --pairs ibverbs: the channel again and ib_write_lat, which compare
#      runs itself on the device the ibverbs provider is given, and their ratio.
# Unlike the other lab jobs, the JVMs run with C2: the emulated CPU inflates Java work many times,
# and C1 code would make messaging's overhead over the channel look far larger than it is. C2
# needs a long warm-up here (its compiles are slow under TCG): 200000 round trips per row, then
# 100000 timed.
# Compare the rows with each other and with ib_write_lat, not with a real machine.
# Writes rtt.txt, compare.txt, compare/ (its results directory), ib_write_lat-*.log and
# summary.txt. Exit code non-zero when a run failed or printed no result; never because of a figure.
set -uo pipefail
# RESULTS, SUMMARY, HERE, MODULE (perf), RW_VM_DIR, RW_REPO_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../../../../../rdma-channel/src/test/vm/jobs/lib-rxe.sh"
job_start=$(now)
rc=0
MESSAGES=100000 WARMUP=200000 SIZE=32
. "$(dirname "${BASH_SOURCE[0]}")/lib-perf.sh"   # CP, PERF_FLAGS

section "setup rxe0"
setup_rxe0 || { note result "FAILED: rxe0 setup"; exit 1; }
ulimit -l unlimited
note rxe0_counters_before "$(rxe_counters rxe0)"

section "ib_write_lat rxe0 -> rxe0, $SIZE bytes (the floor)"
started=$(now)
lat_row=$(ib_write_lat_row rxe0 rxe0 "$VA_IP" "$SIZE" "$MESSAGES" 18700)
cat "$RESULTS/ib_write_lat-client.log"
note ib_write_lat_row "$(echo "$lat_row" | awk '{ $1 = $1; print }')"
# ib_write_lat reports half the round trip; the rtt table reports whole round trips.
note ib_write_lat_rtt_typical_usec "$(echo "$lat_row" | awk '$5 ~ /^[0-9.]+$/ { printf "%.2f", 2 * $5 }')"
note ib_write_lat_seconds "$(since "$started")"

section "perf rtt --provider ibverbs --api both --processes 2"
started=$(now)
timeout --kill-after=10 "${PERF_TIMEOUT:-600}" "$JDK/bin/java" "${PERF_FLAGS[@]}" \
  -Dringwire.rdma.ibverbs.device=rxe0 -Dringwire.rdma.ibverbs.gid.index=1 -cp "$CP" io.ringwire.perf.PerfMain \
  rtt --provider ibverbs --api both --processes 2 --size "$SIZE" --messages "$MESSAGES" --warmup "$WARMUP" \
  > "$RESULTS/rtt.txt" 2> "$RESULTS/rtt.log"
prc=$?
cat "$RESULTS/rtt.log" "$RESULTS/rtt.txt"
note rtt_exit "$prc"
note rtt_seconds "$(since "$started")"
[ "$prc" -eq 0 ] || rc=1
for api in channel messaging; do
  row=$(awk -v api="$api" '$1 == "ibverbs" && $2 == api { print; exit }' "$RESULTS/rtt.txt")
  [ -n "$row" ] || { note "rtt_$api" "MISSING"; rc=1; continue; }
  note "rtt_${api}_p50_p90_p99_usec" "$(echo "$row" | awk '{ print $6, $7, $8 }')"
done
lat_rtt=$(sed -n 's/^ib_write_lat_rtt_typical_usec=//p' "$SUMMARY")
channel_p50=$(sed -n 's/^rtt_channel_p50_p90_p99_usec=\([0-9.]*\).*/\1/p' "$SUMMARY")
if [ -n "$lat_rtt" ] && [ -n "$channel_p50" ]; then
  note channel_over_ib_write_lat "$(awk -v a="$channel_p50" -v b="$lat_rtt" 'BEGIN { printf "%.2fx", a / b }')"
fi
note rtt_overhead "$(sed -n "s/^messaging over the channel at p50, same run: //p" "$RESULTS/rtt.txt")"

section "perf compare --pairs ibverbs: the channel beside ib_write_lat, both run by compare"
started=$(now)
timeout --kill-after=10 "${PERF_TIMEOUT:-600}" "$JDK/bin/java" "${PERF_FLAGS[@]}" \
  -Dringwire.rdma.ibverbs.device=rxe0 -Dringwire.rdma.ibverbs.gid.index=1 -cp "$CP" io.ringwire.perf.PerfMain \
  compare --pairs ibverbs --processes 2 --rounds 1 --size "$SIZE" --messages "$MESSAGES" --warmup "$WARMUP" \
  --out "$RESULTS/compare" > "$RESULTS/compare.txt" 2> "$RESULTS/compare.log"
crc=$?
cat "$RESULTS/compare.log" "$RESULTS/compare.txt"
note compare_exit "$crc"
note compare_seconds "$(since "$started")"
ratio=$(awk '$1 == "ibverbs" && $2 == "/" && $3 == "ib_write_lat" { print $4; exit }' "$RESULTS/compare.txt")
note compare_ibverbs_over_ib_write_lat "${ratio:-MISSING}"
[ "$crc" -eq 0 ] && [ -n "$ratio" ] || rc=1

section "rxe counters"
note rxe0_counters_after "$(rxe_counters rxe0)"
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
