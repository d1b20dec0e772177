#!/bin/bash
# Interop job, INSIDE the lab guest (softroce-lab.sh run <this> RESULTS_DIR; mvn -Pvm runs it):
# the kernel's rxe (through the ibverbs provider) against RingWire's pure-Java roce provider.
#
# rxe0 on va (10.201.0.1) in the root namespace; vb (10.201.0.2) moved into network namespace
# "rocens", where the roce endpoint binds 10.201.0.2:4791 (rxe owns UDP 4791 in the root
# namespace only on this kernel). interop.RxeRoceInteropTest runs here, starts
# interop.RoceInteropPeer in rocens with `ip netns exec`, connects through the connection
# manager, and exchanges INTEROP_WRITES (default 10000) WRITE_WITH_IMM and INTEROP_SENDS (default
# 1000) SENDs each way, byte-exact; it reads rxe0's counters and the rxe_icrc_check kretprobe
# (installed here) before and after. JUnit XML in $RINGWIRE_VM_RESULTS/junit, the counter report
# in interop-report.txt, summary.txt next to them. A packet capture of the first 200 packets on
# va goes to interop.pcap when tcpdump is present.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib-rxe.sh"   # RESULTS, SUMMARY, HERE, MODULE, RW_VM_DIR, RW_REPO_DIR
NS=rocens
job_start=$(now)

section "setup: rxe0 on va, vb in namespace $NS"
setup_rxe0 novb || { note result "FAILED: rxe0 setup"; exit 1; }
ip netns add "$NS" && ip link set vb netns "$NS" \
  && ip -n "$NS" addr add "$VB_IP/24" dev vb && ip -n "$NS" link set vb up && ip -n "$NS" link set lo up \
  || { note result "FAILED: namespace setup"; exit 1; }
ip -br addr; ip -n "$NS" -br addr
ulimit -l unlimited
install_icrc_probe && note icrc_probe installed || note icrc_probe "could not be installed"
cat /proc/net/udp | awk 'NR == 1 || $2 ~ /:12B7$/'   # who holds 4791 in the root namespace
pcap_pid=""
if command -v tcpdump >/dev/null; then
  timeout 600 tcpdump -i va -c 200 -w "$RESULTS/interop.pcap" udp port 4791 >/dev/null 2>&1 &
  pcap_pid=$!
fi
setup_done

section "RxeRoceInteropTest"
started=$(now)
RW_JAVA_OPTS=(-Dringwire.rdma.ibverbs.device=rxe0 -Dringwire.rdma.ibverbs.gid.index=1
  -Dringwire.vm.interop.netns="$NS" -Dringwire.vm.interop.peerIp="$VB_IP"
  -Dringwire.vm.interop.writes="${INTEROP_WRITES:-10000}" -Dringwire.vm.interop.sends="${INTEROP_SENDS:-1000}"
  -Dringwire.vm.interop.timeoutSeconds="${INTEROP_TIMEOUT:-400}"
  -Dringwire.vm.interop.report="$RESULTS/interop-report.txt")
RW_TEST_TIMEOUT=$((${INTEROP_TIMEOUT:-400} + 240)) run_tests "$RESULTS/junit" \
  io.ringwire.rdma.interop.RxeRoceInteropTest 2>&1 | tee "$RESULTS/interop.log"
rc=${PIPESTATUS[0]}
note interop_exit "$rc"
note interop_seconds "$(since "$started")"
note interop_summary "$(grep -E 'tests (successful|failed|skipped)' "$RESULTS/interop.log" | tr -s ' []' ' ' | tr '\n' ';')"
if [ -n "$pcap_pid" ]; then
  kill "$pcap_pid" 2>/dev/null; wait "$pcap_pid" 2>/dev/null
  # Both sides number their IP IDs (rxe per destination; roce per connected socket, ID 0 only with
  # ringwire.rdma.roce.connected.send=false): rxe checks the real header, so its ICRC drops prove roce's count.
  note pcap_ip_ids "$(timeout 60 tcpdump -nn -v -r "$RESULTS/interop.pcap" 2>/dev/null | paste - - \
    | awk '{ for (i = 1; i <= NF; i++) { if ($i == "id") id = $(i + 1); if ($i == ">") src = $(i - 1) }
             split(src, a, "."); k = a[1] "." a[2] "." a[3] "." a[4] (id == "0," ? " id=0" : " id!=0"); n[k]++ }
           END { for (k in n) printf "%s: %d packets; ", k, n[k] }')"
fi

section "counters"
note rxe0_counters_after "$(rxe_counters rxe0)"
note icrc_failures_total "$(icrc_failures)"
[ -f "$RESULTS/interop-report.txt" ] && cat "$RESULTS/interop-report.txt"
rdma statistic show > "$RESULTS/rdma-statistic.txt" 2>&1
note job_seconds "$(since "$job_start")"
note result "$([ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"
