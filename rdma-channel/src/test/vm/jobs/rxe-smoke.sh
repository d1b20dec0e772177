#!/bin/bash
# Soft-RoCE smoke job: runs INSIDE the lab guest (softroce-lab.sh run <this> RESULTS_DIR).
#
# Brings up kernel rxe on a veth pair, shows the devices and their GIDs, measures ib_write_lat on
# one rxe device talking to itself (loopback) and between two rxe devices across the veth, reads
# the rxe counters, shows how rxe treats a bad ICRC, checks netem (and ib_write_lat under 1% loss),
# rsocket and the JDK, and writes key=value lines to $RINGWIRE_VM_RESULTS/summary.txt (each
# ib_write_lat's output goes to <key>-client.log / <key>-server.log there). Exits non-zero when the
# RDMA part fails; the checks after it are reported in the summary but do not fail the job.
# RXE_SMOKE_ITERATIONS (default 1000) sets the ib_write_lat iterations.
#
# Addresses are private to the guest: va 10.201.0.1/24 <-> vb 10.201.0.2/24.
set -uo pipefail

RESULTS=${RINGWIRE_VM_RESULTS:?run me with softroce-lab.sh run}
SUMMARY=$RESULTS/summary.txt
ITERATIONS=${RXE_SMOKE_ITERATIONS:-1000}
JDK=${RINGWIRE_VM_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
VA_IP=10.201.0.1 VB_IP=10.201.0.2
: > "$SUMMARY"

section() { printf '\n===== %s =====\n' "$*"; }
note() { printf '%s=%s\n' "$1" "$2" | tee -a "$SUMMARY"; }
die() { printf 'rxe-smoke: FAILED: %s\n' "$*"; note result "FAILED: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# Runs a command bounded by $1 seconds, echoing it first.
bounded() { local s=$1; shift; printf '$ %s\n' "$*"; timeout --kill-after=5 "$s" "$@"; }

# Waits (at most $2 seconds, and only while process $3 lives) until something listens on TCP
# port $1.
wait_listening() {
  local port=$1 deadline=$((SECONDS + $2)) pid=$3
  until ss -Hltn "sport = :$port" | grep -q .; do
    [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
}

# Waits (at most 20 s) until GID index 1 of rxe device $1 holds its IPv4 RoCEv2 GID.
wait_gid() {
  local gid_file=/sys/class/infiniband/$1/ports/1/gids/1 deadline=$((SECONDS + 20))
  until [ -r "$gid_file" ] && [ "$(cat "$gid_file")" != 0000:0000:0000:0000:0000:0000:0000:0000 ]; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# One ib_write_lat run between server device $2 and client device $3 (client connects to $4 on
# port $5), both sides' output in $RESULTS/$1-{client,server}.log.
write_lat_once() {
  local key=$1 server_dev=$2 client_dev=$3 server_ip=$4 port=$5
  local opts=(-x 1 -F -n "$ITERATIONS" -p "$port")
  local server_log=$RESULTS/$key-server.log client_log=$RESULTS/$key-client.log
  timeout --kill-after=5 90 ib_write_lat -d "$server_dev" "${opts[@]}" > "$server_log" 2>&1 &
  local server_pid=$!
  if ! wait_listening "$port" 30 "$server_pid"; then
    kill "$server_pid" 2>/dev/null; wait "$server_pid"
    cat "$server_log"
    return 1
  fi
  local client_rc=0 server_rc=0
  bounded 90 ib_write_lat -d "$client_dev" "${opts[@]}" "$server_ip" > "$client_log" 2>&1 || client_rc=$?
  wait "$server_pid" || server_rc=$?
  echo "--- client ($client_dev, exit $client_rc)"; cat "$client_log"
  echo "--- server ($server_dev, exit $server_rc)"; tail -n 4 "$server_log"
  [ "$client_rc" -eq 0 ] && [ "$server_rc" -eq 0 ]
}

# ib_write_lat as write_lat_once, recording the client's result row under key $1. perftest
# calibrates the TSC against gettimeofday at start; on a loaded TCG guest that fit can fail
# ("Correlation coefficient r^2 < 0.9") and every figure comes out inf, so such a run is repeated
# (at most 3 runs).
write_lat() {
  local key=$1 started row attempt
  started=$(now)
  for attempt in 1 2 3; do
    # A fresh port each time: the previous server's socket may linger in TIME_WAIT.
    write_lat_once "$1" "$2" "$3" "$4" "$(($5 + 10 * (attempt - 1)))" || return 1
    # Columns: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% (usec).
    row=$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { print; exit }' "$RESULTS/$key-client.log")
    [ -n "$row" ] || return 1
    echo "$row" | awk '{ exit ($5 ~ /^[0-9.]+$/) ? 0 : 1 }' && break
    echo "rxe-smoke: ib_write_lat could not calibrate its clock (attempt $attempt), running it again"
  done
  note "${key}_seconds" "$(since "$started")"
  note "${key}_attempts" "$attempt"
  note "${key}_row" "$(echo "$row" | awk '{ $1 = $1; print }')"
  note "${key}_typical_usec" "$(echo "$row" | awk '{ print $5 }')"
  note "${key}_avg_usec" "$(echo "$row" | awk '{ print $6 }')"
  note "${key}_p99_usec" "$(echo "$row" | awk '{ print $8 }')"
}

tx_packets() { cat "/sys/class/net/$1/statistics/tx_packets"; }

job_start=$(now)
section "guest"
uname -a
note guest_kernel "$(uname -r)"
note guest_cpus "$(nproc)"
note guest_uptime_at_job_start "$(cut -d' ' -f1 /proc/uptime)"

section "modules"
started=$(now)
bounded 60 modprobe rdma_rxe || die "modprobe rdma_rxe"
bounded 60 modprobe veth || die "modprobe veth"
note modprobe_seconds "$(since "$started")"

section "veth pair va/vb"
bounded 10 ip link add va type veth peer name vb || die "ip link add veth"
bounded 10 ip addr add "$VA_IP/24" dev va || die "address on va"
bounded 10 ip addr add "$VB_IP/24" dev vb || die "address on vb"
bounded 10 ip link set va up && bounded 10 ip link set vb up || die "link up"
ip -br addr

section "rxe0 on va"
bounded 30 rdma link add rxe0 type rxe netdev va || die "rdma link add rxe0"
wait_gid rxe0 || die "rxe0 never got GID index 1"
bounded 10 rdma link
bounded 10 ibv_devices
bounded 30 ibv_devinfo -v -d rxe0 || die "ibv_devinfo rxe0"
note rxe0_gid1 "$(cat /sys/class/infiniband/rxe0/ports/1/gids/1) $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1)"

section "ib_write_lat loopback on rxe0 ($ITERATIONS iterations)"
# One device talking to itself: rxe sees its own MAC as the destination and loops the packets
# back inside the driver, so this needs no routing. Run it before the policy routing below,
# which would send traffic to 10.201.0.1 out of va and into rxe1.
write_lat lat_loopback rxe0 rxe0 "$VA_IP" 18515 || die "ib_write_lat loopback on rxe0"

section "rxe1 on vb and policy routing"
# Both ends of one veth are in this namespace, so by default the kernel delivers rxe0 -> rxe1
# traffic over lo. Make it cross the veth: accept packets from our own addresses, look up the
# local table only for packets arriving on va/vb, send each rxe's traffic to its peer through its
# own veth end, and move the catch-all local rule behind those.
for dev in all va vb; do
  sysctl -qw "net.ipv4.conf.$dev.accept_local=1" "net.ipv4.conf.$dev.rp_filter=0" || die "sysctl $dev"
done
bounded 10 ip rule add pref 100 iif va lookup local || die "rule iif va"
bounded 10 ip rule add pref 101 iif vb lookup local || die "rule iif vb"
bounded 10 ip route add "$VB_IP" dev va src "$VA_IP" table 201 || die "route table 201"
bounded 10 ip route add "$VA_IP" dev vb src "$VB_IP" table 202 || die "route table 202"
bounded 10 ip rule add pref 200 from "$VA_IP" lookup 201 || die "rule from va"
bounded 10 ip rule add pref 201 from "$VB_IP" lookup 202 || die "rule from vb"
bounded 10 ip rule add pref 1000 lookup local || die "rule local 1000"
bounded 10 ip rule del pref 0 lookup local || die "rule del local 0"
ip rule
ip route get "$VB_IP" from "$VA_IP" oif va
ip route get "$VA_IP" from "$VB_IP" oif vb
bounded 30 rdma link add rxe1 type rxe netdev vb || die "rdma link add rxe1"
wait_gid rxe1 || die "rxe1 never got GID index 1"
note rxe1_gid1 "$(cat /sys/class/infiniband/rxe1/ports/1/gids/1) $(cat /sys/class/infiniband/rxe1/ports/1/gid_attrs/types/1)"
bounded 10 rdma link
bounded 10 ibv_devices

section "ib_write_lat rxe0 -> rxe1 across the veth ($ITERATIONS iterations)"
va_tx_before=$(tx_packets va) vb_tx_before=$(tx_packets vb)
write_lat lat_veth rxe1 rxe0 "$VB_IP" 18516 || die "ib_write_lat rxe0 -> rxe1 across the veth"
va_tx=$(($(tx_packets va) - va_tx_before)) vb_tx=$(($(tx_packets vb) - vb_tx_before))
note lat_veth_tx_packets "va=$va_tx vb=$vb_tx"
# Each iteration is one RDMA WRITE each way: fewer packets than iterations means it went over lo.
[ "$va_tx" -ge "$ITERATIONS" ] && [ "$vb_tx" -ge "$ITERATIONS" ] \
  || die "ib_write_lat traffic did not cross the veth (va tx $va_tx, vb tx $vb_tx)"

section "rdma statistic"
bounded 10 rdma statistic show
bounded 10 rdma statistic show link rxe0/1
for dev in rxe0 rxe1; do
  echo "--- /sys/class/infiniband/$dev/ports/1/hw_counters"
  grep -H . "/sys/class/infiniband/$dev/ports/1/hw_counters/"* | sed 's:.*/hw_counters/::'
done
note rxe_counter_names "$(ls /sys/class/infiniband/rxe0/ports/1/hw_counters | tr '\n' ' ' | sed 's/ $//')"
rdma statistic show > "$RESULTS/rdma-statistic.txt" 2>&1
result=passed

section "ICRC probe: hand-made RoCEv2 packets to rxe0, one good ICRC and one bad"
# Two UD SEND ONLY packets to QP1 (the GSI QP every port has; it passes rxe's header checks) from
# a plain UDP socket with DF set, so the IP ID is 0 and the ICRC is computable as the roce section
# of docs/architecture.md says. rxe counts the good one in rcvd_pkts and drops the bad one without
# a counter or a log line, so a kretprobe on rxe_icrc_check counts the failures.
tracing=/sys/kernel/tracing
[ -d "$tracing/events" ] || mount -t tracefs tracefs "$tracing"
icrc_event=$tracing/events/kprobes/rxe_icrc_fail
if echo 'r:rxe_icrc_fail rdma_rxe:rxe_icrc_check ret=$retval:s32' >> "$tracing/kprobe_events" \
    && echo 'ret != 0' > "$icrc_event/filter" && echo 1 > "$icrc_event/enable"; then
  note icrc_failure_probe "kretprobe 'r:rxe_icrc_fail rdma_rxe:rxe_icrc_check ret=\$retval:s32' with filter 'ret != 0'"
else
  note icrc_failure_probe "could not install a kretprobe on rxe_icrc_check"
fi
rcvd_pkts() { cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts; }
icrc_failures() { grep -c 'rxe_icrc_fail:' "$tracing/trace" 2>/dev/null || true; }
if [ -x /usr/bin/python3 ]; then
  for icrc in good bad; do
    before=$(rcvd_pkts) failures_before=$(icrc_failures)
    bounded 20 /usr/bin/python3 - "$VB_IP" "$VA_IP" "$icrc" <<'PY'
import socket, struct, sys, zlib
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
IP_MTU_DISCOVER, IP_PMTUDISC_DO = 10, 2            # DF on an unconnected socket: IP ID 0
bth = struct.pack(">BBHII", 0x64, 0x00, 0xFFFF, 1, 0)   # UD SEND ONLY, P_Key, dest QP 1, PSN 0
deth = struct.pack(">II", 0x80010000, 1)                 # GSI Q_Key, source QP 1
payload = bytes(256)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
s.bind((src, 0))
udp_len = 8 + len(bth) + len(deth) + len(payload) + 4
# ICRC input: 8 x 0xFF, IP header with TOS/TTL/checksum 0xFF, UDP checksum 0xFFFF, BTH byte 4 0xFF.
ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0xFF, 20 + udp_len, 0, 0x4000, 0xFF, 17, 0xFFFF,
                 socket.inet_aton(src), socket.inet_aton(dst))
udp = struct.pack(">HHHH", s.getsockname()[1], 4791, udp_len, 0xFFFF)
crc = zlib.crc32(b"\xff" * 8 + ip + udp + bth[:4] + b"\xff" + bth[5:] + deth + payload)
icrc = struct.pack("<I", crc) if mode == "good" else struct.pack("<I", crc ^ 1)
s.sendto(bth + deth + payload + icrc, (dst, 4791))
print("sent a", mode, "ICRC packet", src, "->", dst, "udp/4791")
PY
    # The receive runs in softirq context before sendto returns on veth, but allow a moment.
    deadline=$((SECONDS + 5))
    while [ "$(rcvd_pkts)" = "$before" ] && [ "$(icrc_failures)" = "$failures_before" ] && [ "$SECONDS" -lt "$deadline" ]; do
      sleep 0.1
    done
    note "icrc_probe_${icrc}" "rcvd_pkts +$(($(rcvd_pkts) - before)), rxe_icrc_check failures +$(($(icrc_failures) - failures_before))"
  done
  grep 'rxe_icrc_fail:' "$tracing/trace" | tail -n 3
  icrc_log=$(dmesg | grep -i icrc | tail -n 1)
  note icrc_probe_kernel_log "${icrc_log:-nothing logged}"
else
  note icrc_probe "not run (no /usr/bin/python3)"
fi

section "netem (sch_netem) on va"
if bounded 30 modprobe sch_netem && bounded 10 tc qdisc add dev va root netem loss 1%; then
  tc qdisc show dev va
  note netem "loads; 'tc qdisc add dev va root netem loss 1%' works"
  # rxe under loss: the requester retransmits after its ACK timeout (perftest's default 14,
  # about 67 ms), so a few hundred iterations finish well inside the bound.
  saved_iterations=$ITERATIONS ITERATIONS=300
  if write_lat lat_veth_loss1pct rxe1 rxe0 "$VB_IP" 18517; then
    note netem_loss_write_lat passed
  else
    note netem_loss_write_lat failed
  fi
  ITERATIONS=$saved_iterations
  grep -H . /sys/class/infiniband/rxe0/ports/1/hw_counters/* | sed 's:.*/hw_counters/::' | tr '\n' ' '; echo
  note rxe0_counters_after_loss "$(cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep . * | grep -v ':0$' | tr '\n' ' ')"
  tc qdisc del dev va root
else
  note netem "FAILED to load or to add a netem qdisc"
fi

section "rsocket (librdmacm1)"
rspreload=$(ls /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so* 2>/dev/null | head -n 1)
note librspreload "${rspreload:-missing}"
# rstream (rdmacm-utils) talks rsockets over rdma_cm: a quick check that rdma_cm works over rxe,
# which the LD_PRELOAD shim relies on. Its listener is an rdma_cm id, not a TCP socket.
if command -v rstream >/dev/null && bounded 30 modprobe rdma_ucm; then
  timeout --kill-after=5 60 rstream -b "$VB_IP" -S 64 -C 1000 > "$RESULTS/rstream-server.log" 2>&1 &
  rstream_server=$!
  deadline=$((SECONDS + 20))
  until rdma resource show cm_id 2>/dev/null | grep -q LISTEN || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.1; done
  if bounded 60 rstream -s "$VB_IP" -b "$VA_IP" -S 64 -C 1000 > "$RESULTS/rstream-client.log" 2>&1; then
    cat "$RESULTS/rstream-client.log"
    note rstream "$(tail -n 1 "$RESULTS/rstream-client.log" | tr -s ' ')"
  else
    cat "$RESULTS/rstream-client.log" "$RESULTS/rstream-server.log"
    note rstream failed
  fi
  kill "$rstream_server" 2>/dev/null; wait "$rstream_server" 2>/dev/null
else
  note rstream "not run (rstream or rdma_ucm missing)"
fi

section "JDK 25 in the guest"
if [ -x "$JDK/bin/java" ]; then
  for run in cold warm; do
    started=$(now)
    bounded 120 "$JDK/bin/java" -version || note "java_version_$run" failed
    note "java_version_${run}_seconds" "$(since "$started")"
  done
else
  note java "no JDK at $JDK"
fi

section "kernel messages"
dmesg | grep -iE 'rxe|rdma|icrc|netem|9p|overlay' | tail -n 30

note job_seconds "$(since "$job_start")"
note result "$result"
