#!/bin/bash
# Shared by the lab jobs (sourced, runs INSIDE the guest): the veth pair, rxe devices, policy
# routing, the ICRC-failure kretprobe, rxe counters and the JVM command line for the host-built
# test classes. See rxe-smoke.sh for the why of each step (and docs/softroce-lab.md).
#
# Sourced first thing by a job at <module>/src/test/vm/jobs/<job>.sh, it sets what every job uses:
# RESULTS (the results share), SUMMARY (RESULTS/summary.txt, emptied), HERE (the job's directory),
# MODULE (the job's module), RW_VM_DIR (MODULE/target/vm, or RINGWIRE_VM_DIR: classpath.txt and
# launcher/ written by the vm profile) and RW_REPO_DIR (the repository).
RESULTS=${RINGWIRE_VM_RESULTS:?run me with softroce-lab.sh run}
HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
MODULE=$(cd "$HERE/../../../.." && pwd)
RW_VM_DIR=${RINGWIRE_VM_DIR:-$MODULE/target/vm}
RW_REPO_DIR=$(dirname "$MODULE")
SUMMARY=$RESULTS/summary.txt
: > "$SUMMARY"

JDK=${RINGWIRE_VM_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
VA_IP=10.201.0.1 VB_IP=10.201.0.2
TRACING=/sys/kernel/tracing
# The parent pom's ringwire.jvm.flags, plus C1 only: the guest's JIT time is the bottleneck.
JVM_FLAGS=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
  --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1 -Xshare:auto)

section() { printf '\n===== %s =====   (%s, job +%ss)\n' "$*" "$(date +%T)" "$SECONDS"; }
note() { printf '%s=%s\n' "$1" "$2" | tee -a "${SUMMARY:-/dev/null}"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
bounded() { local s=$1; shift; printf '$ %s\n' "$*"; timeout --kill-after=5 "$s" "$@"; }

# The test classpath the host build wrote, with the launcher in front.
test_classpath() {
  local cp_file=$RW_VM_DIR/classpath.txt
  [ -s "$cp_file" ] || { echo "no $cp_file: build with mvn -Pvm (it writes it after test-compile)" >&2; return 1; }
  printf '%s:%s' "$RW_VM_DIR/launcher" "$(head -n 1 "$cp_file")"
}

wait_gid() {
  local gid_file=/sys/class/infiniband/$1/ports/1/gids/1 deadline=$((SECONDS + 20))
  until [ -r "$gid_file" ] && [ "$(cat "$gid_file")" != 0000:0000:0000:0000:0000:0000:0000:0000 ]; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# A job that sets up rxe calls setup_done when its setup is over, within RW_SETUP_SECONDS of its
# start: setup_rxe0 declares that bound in the results share (setup_begins), and the lab's host side
# stops a guest whose setup has not reported done by then, or whose heartbeat stops before then, and
# boots it once more (softroce-lab.sh run). The setup takes well under a minute; a guest kernel or
# emulator stuck in it never ends.
RW_SETUP_SECONDS=${RW_SETUP_SECONDS:-180}
setup_begins() { echo "$RW_SETUP_SECONDS" > "$RESULTS/setup-bound"; }
setup_done() {
  echo "$SECONDS" > "$RESULTS/setup-done"
  note setup_seconds "$SECONDS"
}

# modules, the veth pair va (10.201.0.1) / vb (10.201.0.2) and rxe0 on va.
setup_rxe0() {
  setup_begins
  bounded 60 modprobe rdma_rxe || return 1
  bounded 60 modprobe veth || return 1
  ip link add va type veth peer name vb || return 1
  ip addr add "$VA_IP/24" dev va && ip link set va up || return 1
  if [ "${1:-}" != novb ]; then
    ip addr add "$VB_IP/24" dev vb && ip link set vb up || return 1
  fi
  bounded 30 rdma link add rxe0 type rxe netdev va || return 1
  wait_gid rxe0 || { echo "rxe0 never got GID index 1"; return 1; }
  note rxe0_gid1 "$(cat /sys/class/infiniband/rxe0/ports/1/gids/1) $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1)"
}

# rxe1 on vb, with the policy routing that makes rxe0 <-> rxe1 traffic cross the veth.
setup_rxe1() {
  local dev
  for dev in all va vb; do
    sysctl -qw "net.ipv4.conf.$dev.accept_local=1" "net.ipv4.conf.$dev.rp_filter=0" || return 1
  done
  ip rule add pref 100 iif va lookup local && ip rule add pref 101 iif vb lookup local \
    && ip route add "$VB_IP" dev va src "$VA_IP" table 201 && ip route add "$VA_IP" dev vb src "$VB_IP" table 202 \
    && ip rule add pref 200 from "$VA_IP" lookup 201 && ip rule add pref 201 from "$VB_IP" lookup 202 \
    && ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local || return 1
  bounded 30 rdma link add rxe1 type rxe netdev vb || return 1
  wait_gid rxe1 || { echo "rxe1 never got GID index 1"; return 1; }
  note rxe1_gid1 "$(cat /sys/class/infiniband/rxe1/ports/1/gids/1) $(cat /sys/class/infiniband/rxe1/ports/1/gid_attrs/types/1)"
}

# The kretprobe counting rxe_icrc_check failures (rxe drops a bad ICRC silently otherwise).
install_icrc_probe() {
  [ -d "$TRACING/events" ] || mount -t tracefs tracefs "$TRACING" 2>/dev/null
  local ev=$TRACING/events/kprobes/rxe_icrc_fail
  [ -d "$ev" ] && return 0
  echo 'r:rxe_icrc_fail rdma_rxe:rxe_icrc_check ret=$retval:s32' >> "$TRACING/kprobe_events" \
    && echo 'ret != 0' > "$ev/filter" && echo 1 > "$ev/enable"
}
icrc_failures() { local n; n=$(grep -c 'rxe_icrc_fail:' "$TRACING/trace" 2>/dev/null); echo "${n:-0}"; }

# "name=value ..." of every hw counter of rxe device $1.
rxe_counters() {
  local d=/sys/class/infiniband/$1/ports/1/hw_counters f out=""
  for f in "$d"/*; do out="$out$(basename "$f")=$(cat "$f") "; done
  echo "${out% }"
}

# perftest's ib_write_lat: server on device $1, client on device $2 reaching it at $3, $4-byte
# messages, $5 iterations, ports above $6; logs ib_write_lat-{server,client}.log in $RESULTS.
# Prints the client's result row ("#bytes #iterations t_min t_max t_typical t_avg ...", half
# round trips in usec); returns 1 when none of three attempts gave one (its clock calibration
# fails now and then under TCG).
ib_write_lat_row() {
  local server_dev=$1 client_dev=$2 address=$3 size=$4 iterations=$5 port_base=$6 attempt port srv row deadline
  for attempt in 1 2 3; do
    port=$((port_base + attempt))
    timeout --kill-after=5 120 ib_write_lat -d "$server_dev" -x 1 -F -s "$size" -n "$iterations" -p "$port" \
      > "$RESULTS/ib_write_lat-server.log" 2>&1 &
    srv=$!
    deadline=$((SECONDS + 30))
    until ss -Hltn "sport = :$port" | grep -q . || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.1; done
    timeout --kill-after=5 120 ib_write_lat -d "$client_dev" -x 1 -F -s "$size" -n "$iterations" -p "$port" "$address" \
      > "$RESULTS/ib_write_lat-client.log" 2>&1
    wait "$srv"
    row=$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { print; exit }' "$RESULTS/ib_write_lat-client.log")
    if echo "$row" | awk '{ exit ($5 ~ /^[0-9.]+$/) ? 0 : 1 }'; then
      echo "$row"
      return 0
    fi
    echo "ib_write_lat attempt $attempt gave no usable row (clock calibration on TCG?): retrying" >&2
  done
  return 1
}

# Runs the launcher on test classes $2.. writing XML into $1, bounded by RW_TEST_TIMEOUT seconds.
# Extra JVM -D options come from RW_JAVA_OPTS (an array).
run_tests() {
  local reports=$1; shift
  local cp; cp=$(test_classpath) || return 1
  mkdir -p "$reports"
  printf '$ java ... VmTestLauncher %s %s\n' "$reports" "$*"
  timeout --kill-after=10 "${RW_TEST_TIMEOUT:-600}" "$JDK/bin/java" "${JVM_FLAGS[@]}" "${RW_JAVA_OPTS[@]}" \
    -Dringwire.repo.dir="$RW_REPO_DIR" -cp "$cp" VmTestLauncher "$reports" "$@"
}
