#!/bin/bash
# perftest against the pure-Java roce provider: runs INSIDE the lab guest
# (rdma-channel/src/test/vm/softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm in perf does that).
# Uses perf/target/classes and perf/target/runtime-classpath.txt from the host build.
#
# rxe0 on va (10.201.0.1) in the root namespace; vb (10.201.0.2) moved into namespace rocens, where
# the roce device binds 10.201.0.2:4791 (rxe owns UDP 4791 in the root namespace only). Debian's
# perftest, unmodified, talks to `perf perftest-peer` through its own TCP exchange (no rdma_cm). In
# one boot, on the same message sizes:
#   1. ib_write_lat and ib_write_bw rxe0 to rxe0 (rxe loops the packets back in the driver): the
#      floor, C on both ends;
#   2. ib_write_lat, client on rxe0, against perftest-peer --mode lat in rocens: every packet crosses
#      the veth into the Java provider, which answers each WRITE with its own;
#   3. ib_write_bw, client on rxe0 streaming WRITEs, against perftest-peer --mode bw in rocens.
# The figures are the perftest client's own rows (half round trips for lat). The JVM runs with the
# lab's flags (C1 only); compare rows of one boot with each other, not with a real machine.
# Writes ib_write_*.log, perftest-peer-*.log and summary.txt. Exit code non-zero when a run failed or
# printed no result; never because of a figure.
set -uo pipefail
# RESULTS, SUMMARY, HERE, MODULE (perf), RW_VM_DIR, RW_REPO_DIR
. "$(dirname "${BASH_SOURCE[0]}")/../../../../../rdma-channel/src/test/vm/jobs/lib-rxe.sh"
NS=rocens
job_start=$(now)
rc=0
LAT_SIZE=${LAT_SIZE:-32} LAT_ITERS=${LAT_ITERS:-10000}
BW_SIZE=${BW_SIZE:-65536} BW_ITERS=${BW_ITERS:-5000}
PEER_TIMEOUT=${PEER_TIMEOUT:-300}

. "$(dirname "${BASH_SOURCE[0]}")/lib-perf.sh"   # CP (the peer runs with the lab's JVM_FLAGS, C1 only)

# ib_write_bw: server on device $1, client on $2 reaching it at $3, $4-byte messages, $5 iterations,
# ports above $6. Prints the client's row ("#bytes #iterations BW_peak BW_average MsgRate").
ib_write_bw_row() {
  local server_dev=$1 client_dev=$2 address=$3 size=$4 iterations=$5 port_base=$6 attempt port srv row deadline
  for attempt in 1 2 3; do
    port=$((port_base + attempt))
    timeout --kill-after=5 180 ib_write_bw -d "$server_dev" -x 1 -F -s "$size" -n "$iterations" -p "$port" \
      > "$RESULTS/ib_write_bw-server.log" 2>&1 &
    srv=$!
    deadline=$((SECONDS + 30))
    until ss -Hltn "sport = :$port" | grep -q . || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.1; done
    timeout --kill-after=5 180 ib_write_bw -d "$client_dev" -x 1 -F -s "$size" -n "$iterations" -p "$port" "$address" \
      > "$RESULTS/ib_write_bw-client.log" 2>&1
    wait "$srv"
    row=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' "$RESULTS/ib_write_bw-client.log")
    if echo "$row" | awk '{ exit ($4 ~ /^[0-9.]+$/) ? 0 : 1 }'; then
      echo "$row"
      return 0
    fi
    echo "ib_write_bw attempt $attempt gave no usable row: retrying" >&2
  done
  return 1
}

# perftest's client $1 (ib_write_lat or ib_write_bw) on rxe0 against `perf perftest-peer --mode $2`
# in $NS at VB_IP, $3-byte messages, $4 iterations, ports above $5. Prints the client's row; the
# peer's output goes to perftest-peer-$2.log. Returns 1 when no attempt of three gave a row and a
# peer that exited 0 (ib_write_lat's clock calibration fails now and then under TCG).
java_peer_row() {
  local program=$1 mode=$2 size=$3 iterations=$4 port_base=$5 attempt port peer prc row deadline
  local log=$RESULTS/perftest-peer-$mode.log client_log=$RESULTS/$program-java-client.log
  for attempt in 1 2 3; do
    port=$((port_base + attempt))
    timeout --kill-after=10 $((PEER_TIMEOUT + 60)) ip netns exec "$NS" "$JDK/bin/java" "${JVM_FLAGS[@]}" \
      "-XX:ErrorFile=$RESULTS/hs_err_pid%p.log" -cp "$CP" io.ringwire.perf.PerfMain perftest-peer \
      --mode "$mode" --bind "$VB_IP" --size "$size" --iters "$iterations" --port "$port" --timeout "$PEER_TIMEOUT" \
      > "$log" 2>&1 &
    peer=$!
    deadline=$((SECONDS + 120))
    until ip netns exec "$NS" ss -Hltn "sport = :$port" | grep -q . || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.2; done
    timeout --kill-after=5 $((PEER_TIMEOUT + 30)) taskset -c "$CLIENT_CPU" "$program" -d rxe0 -x 1 -F -s "$size" -n "$iterations" -p "$port" \
      "$VB_IP" > "$client_log" 2>&1
    wait "$peer"
    prc=$?
    row=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' "$client_log")
    if [ "$prc" -eq 0 ] && echo "$row" | awk '{ exit ($4 ~ /^[0-9.]+$/) ? 0 : 1 }'; then
      echo "$row"
      return 0
    fi
    echo "$program against perftest-peer attempt $attempt: peer exit $prc, row '$row': retrying" >&2
    cat "$log" "$client_log" >&2
  done
  return 1
}

# The lab confines a JVM to vCPU 0; perftest's client, which busy-polls too, goes on the last vCPU
# so that the two never take turns on one.
CLIENT_CPU=$(( $(nproc) - 1 ))

lat_figures() { echo "$1" | awk '{ print $5, $6, $8 }'; }   # t_typical t_avg 99%, usec
bw_figures() { echo "$1" | awk '{ print $4, $5 }'; }        # BW average MB/sec, MsgRate Mpps

section "setup: rxe0 on va, vb in namespace $NS"
setup_rxe0 novb || { note result "FAILED: rxe0 setup"; exit 1; }
ip netns add "$NS" && ip link set vb netns "$NS" \
  && ip -n "$NS" addr add "$VB_IP/24" dev vb && ip -n "$NS" link set vb up && ip -n "$NS" link set lo up \
  || { note result "FAILED: namespace setup"; exit 1; }
ip -br addr; ip -n "$NS" -br addr
ulimit -l unlimited
# roce receives in a user process, which must queue what ib_write_bw's window puts in flight (its
# default send queue of 128 messages, each of many packets) while it is busy: the kernel's default
# socket queue overflows, and every drop costs a go-back-N retransmission. The limits are global, so
# the rxe runs get them too.
sysctl -qw net.core.rmem_max=16777216 net.core.rmem_default=16777216 || { note result "FAILED: socket buffer sysctls"; exit 1; }
install_icrc_probe && note icrc_probe installed || note icrc_probe "could not be installed"
note perftest_version "$(dpkg-query -W -f '${Version}' perftest 2>/dev/null) ($(ib_write_lat --version 2>&1 | head -n 1))"
note rxe0_counters_before "$(rxe_counters rxe0)"
setup_done

section "ib_write_lat rxe0 -> rxe0, $LAT_SIZE bytes x $LAT_ITERS (the floor)"
started=$(now)
if row=$(ib_write_lat_row rxe0 rxe0 "$VA_IP" "$LAT_SIZE" "$LAT_ITERS" 18600); then
  note ib_write_lat_rxe_row "$(echo "$row" | awk '{ $1 = $1; print }')"
  note ib_write_lat_rxe_typical_avg_p99_usec "$(lat_figures "$row")"
else
  note ib_write_lat_rxe FAILED; rc=1
fi
cat "$RESULTS/ib_write_lat-client.log"
note ib_write_lat_rxe_seconds "$(since "$started")"

section "ib_write_bw rxe0 -> rxe0, $BW_SIZE bytes x $BW_ITERS (the floor)"
started=$(now)
if row=$(ib_write_bw_row rxe0 rxe0 "$VA_IP" "$BW_SIZE" "$BW_ITERS" 18700); then
  note ib_write_bw_rxe_row "$(echo "$row" | awk '{ $1 = $1; print }')"
  note ib_write_bw_rxe_MBps_Mpps "$(bw_figures "$row")"
else
  note ib_write_bw_rxe FAILED; rc=1
fi
cat "$RESULTS/ib_write_bw-client.log"
note ib_write_bw_rxe_seconds "$(since "$started")"

section "ib_write_lat rxe0 -> perftest-peer (roce, $NS), $LAT_SIZE bytes x $LAT_ITERS"
started=$(now)
if row=$(java_peer_row ib_write_lat lat "$LAT_SIZE" "$LAT_ITERS" 18800); then
  note ib_write_lat_java_row "$(echo "$row" | awk '{ $1 = $1; print }')"
  note ib_write_lat_java_typical_avg_p99_usec "$(lat_figures "$row")"
  note perftest_peer_lat "$(grep '^perftest-peer lat' "$RESULTS/perftest-peer-lat.log")"
else
  note ib_write_lat_java FAILED; rc=1
fi
cat "$RESULTS/perftest-peer-lat.log" "$RESULTS/ib_write_lat-java-client.log"
note ib_write_lat_java_seconds "$(since "$started")"

section "ib_write_bw rxe0 -> perftest-peer (roce, $NS), $BW_SIZE bytes x $BW_ITERS"
started=$(now)
if row=$(java_peer_row ib_write_bw bw "$BW_SIZE" "$BW_ITERS" 18900); then
  note ib_write_bw_java_row "$(echo "$row" | awk '{ $1 = $1; print }')"
  note ib_write_bw_java_MBps_Mpps "$(bw_figures "$row")"
  note perftest_peer_bw "$(grep '^perftest-peer bw' "$RESULTS/perftest-peer-bw.log")"
else
  note ib_write_bw_java FAILED; rc=1
fi
cat "$RESULTS/perftest-peer-bw.log" "$RESULTS/ib_write_bw-java-client.log"
note ib_write_bw_java_seconds "$(since "$started")"

section "counters"
note rxe0_counters_after "$(rxe_counters rxe0)"
note icrc_failures_total "$(icrc_failures)"
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
