#!/usr/bin/env bash
# A two-namespace network lab with kernel-injected faults, for RingWire's system tests.
#
#   netns-lab.sh [--lab ID] up                      create the lab, print its facts as KEY=VALUE lines
#   netns-lab.sh  --lab ID  down                    remove it (always safe; kills what still runs inside)
#   netns-lab.sh  --lab ID  faults on [KINDS]       KINDS: all (default) or a comma list of
#                                                   loss,dup,corrupt,reorder,icrcblind
#   netns-lab.sh  --lab ID  faults off
#   netns-lab.sh  --lab ID  blackout MS             drop everything, both directions, for MS ms
#   netns-lab.sh  --lab ID  stats                   per-namespace fault counters, KEY=VALUE lines
#   netns-lab.sh  --lab ID  reset                   zero the fault counters (`faults on` does too)
#   netns-lab.sh  --lab ID  exec a|b CMD [ARGS]     run a command inside namespace a or b
#   netns-lab.sh  list                              labs (of this script) that exist now
#
# The lab ID defaults to rwl<PID> for `up`; `RW_LAB=ID` may replace --lab. Names derive from the ID
# alone (no state files): namespaces ID-a and ID-b, veths IDa (in ID-a) and IDb (in ID-b), addresses
# 10.200.X.1/30 and 10.200.X.2/30 with X from a hash of the ID. Both namespaces hold only lo and the
# veth end, with no default route and static neighbour entries (no ARP), IPv6 off: nothing can leave
# them, and parallel labs cannot see each other even when their X collides.
#
# Faults (all decided on the SENDING side, in both namespaces, so both directions get them):
#   - loss 2%, duplication 1%, corruption 0.5%, reordering 5%, per packet, each decided by its own
#     `numgen random` draw in a netdev egress chain on the veth (before the qdisc).
#   - Scope: every IPv4 packet (FAULT_PROTO=all, the default) or UDP only (FAULT_PROTO=udp). All
#     IPv4 is the default because the socket provider's data path is TCP, which must see the faults
#     too; the tests switch faults on only after the connection manager's handshake, whose TCP
#     management connection is closed by then (a RoCE data path is UDP either way). ARP is never
#     needed (static neighbours) and IPv6 is off, so nothing else crosses the veth.
#   - duplication: `dup to <veth>` on the egress hook re-enters that same hook; the copy carries a
#     mark that the first rule accepts, so it is never duplicated (or dropped, corrupted, delayed)
#     again. skb marks are scrubbed when a packet crosses into the other namespace.
#   - corruption (UDP only): XOR 0xff into the byte at transport offset 20, the first byte past
#     UDP (8) + RoCE BTH (12), i.e. RETH/AETH/payload; in the same rule the UDP checksum is set to 0
#     ("none" in IPv4) so the receiving kernel delivers it and the application has to notice
#     (RoCE: its ICRC). Over veth the checksum is usually left to offload (CHECKSUM_PARTIAL) and
#     never verified anyway; zeroing it makes the rule independent of that.
#   - icrcblind (UDP only, never part of "all"): XOR 0x0f into the byte at transport offset 101 (bit
#     808), with the UDP checksum set to 0 in the same rule. This error is exactly what a different
#     IPv4 Identification would do to the ICRC, whatever the packet's length and content: the ICRC is
#     affine in the ID bits, so a receiver that solves for the ID finds one that matches. Only a
#     receiver that checks the ID the packet really carried, or accepts only IDs it predicted, drops
#     it. Short datagrams (ACKs, small writes) are left alone, and not counted, by the rule.
#   - reordering: there is no netem here, so an HTB root qdisc has a fast default class (1:10) and a
#     slow class (1:20) whose every packet costs REORDER_DELAY_US of tokens (mpu = 9000 bytes at the
#     matching rate). A token bucket sends the first packet after idle at once, so a selected packet
#     is preceded into the slow class by a copy of itself (the "ballast", DSCP 63) that uses up the
#     tokens; the packet then waits REORDER_DELAY_US while later packets overtake it through 1:10,
#     and the peer's netdev ingress chain drops the ballast. The delay only reorders a flow sending
#     faster than one packet per REORDER_DELAY_US; the slow class carries at most
#     1e6 / REORDER_DELAY_US packets per second (ballast included) and its pfifo holds 64, so a
#     flow above ~ 1e6 / (2 * 5% * REORDER_DELAY_US) packets/s loses some selected packets instead.
#   - blackout: one nft transaction adds a drop rule to the egress and ingress blackout chains of
#     namespace a (so both directions stop at once), sleeps MS from its confirmed commit, and one
#     transaction flushes them; both run in one `nft -i` process started beforehand. It prints the
#     bounds it can prove: at least MS (commit confirmed to flush sent), at most that plus the time
#     of the two transactions (a few ms; more on a heavily loaded machine).
#
# Environment: LOSS_PERMILLE (20), DUP_PERMILLE (10), CORRUPT_PERMILLE (5), ICRC_BLIND_PERMILLE (20),
# REORDER_PERMILLE (50),
# REORDER_DELAY_US (200), FAULT_PROTO (all|udp), LAB_MTU (9000: RoCE path MTU 4096 plus headers).
# Needs root, iproute2 (ip, tc) and nftables (nft). Every external command is bounded by `timeout`.
set -euo pipefail

readonly STEP_TIMEOUT=10
readonly DUP_MARK=0x5257d0d0
readonly BALLAST_MARK=0x5257ba11
readonly BALLAST_DSCP=0x3f
readonly SLOW_MPU=9000

LOSS_PERMILLE=${LOSS_PERMILLE:-20}
DUP_PERMILLE=${DUP_PERMILLE:-10}
CORRUPT_PERMILLE=${CORRUPT_PERMILLE:-5}
ICRC_BLIND_PERMILLE=${ICRC_BLIND_PERMILLE:-20}
REORDER_PERMILLE=${REORDER_PERMILLE:-50}
REORDER_DELAY_US=${REORDER_DELAY_US:-200}
FAULT_PROTO=${FAULT_PROTO:-all}
LAB_MTU=${LAB_MTU:-9000}

die() { printf 'netns-lab: %s\n' "$*" >&2; exit 1; }
run() { timeout "$STEP_TIMEOUT" "$@"; }
in_ns() { local ns=$1; shift; timeout "$STEP_TIMEOUT" ip netns exec "$ns" "$@"; }

lab_names() {
  [ -n "$LAB" ] || die "no lab: pass --lab ID (or RW_LAB=ID); 'up' prints it"
  [[ "$LAB" =~ ^[a-z][a-z0-9]{1,12}$ ]] || die "lab id '$LAB' must be 2-13 chars of [a-z0-9], starting with a letter"
  NS_A="$LAB-a"; NS_B="$LAB-b"; DEV_A="${LAB}a"; DEV_B="${LAB}b"
  local x=$(( $(printf '%s' "$LAB" | cksum | cut -d' ' -f1) % 254 + 1 ))
  ADDR_A="10.200.$x.1"; ADDR_B="10.200.$x.2"
  MAC_A=$(printf '02:52:57:%02x:00:01' "$x"); MAC_B=$(printf '02:52:57:%02x:00:02' "$x")
}

require_tools() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, nftables, tc)"
  local t
  for t in ip tc nft timeout; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found: apt-get install iproute2 nftables"
  done
}

ns_exists() { ip netns list 2>/dev/null | cut -d' ' -f1 | grep -qx "$1"; }

# ---------------------------------------------------------------------------------------------- up

cmd_up() {
  ns_exists "$NS_A" && die "lab $LAB exists already (namespace $NS_A); run: $0 --lab $LAB down"
  # Any failure below (set -e) leaves through this trap, which removes what was half built.
  trap 'cmd_down >/dev/null 2>&1 || true' EXIT
  run ip netns add "$NS_A"
  run ip netns add "$NS_B"
  run ip link add "$DEV_A" address "$MAC_A" netns "$NS_A" type veth peer name "$DEV_B" address "$MAC_B" netns "$NS_B"
  local side ns dev addr peer_addr peer_mac
  for side in a b; do
    if [ "$side" = a ]; then ns=$NS_A dev=$DEV_A addr=$ADDR_A peer_addr=$ADDR_B peer_mac=$MAC_B
    else ns=$NS_B dev=$DEV_B addr=$ADDR_B peer_addr=$ADDR_A peer_mac=$MAC_A; fi
    # IPv6 off before the links come up: no DAD, router or MLD packets on the veth.
    in_ns "$ns" sh -c 'for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 /proc/sys/net/ipv6/conf/default/disable_ipv6; do [ -w "$f" ] && echo 1 > "$f"; done; true'
    run ip -n "$ns" link set lo up
    # One MSS per skb: TCP (the socket provider) must not hand 64 KiB GSO bursts to the per-packet faults.
    run ip -n "$ns" link set "$dev" mtu "$LAB_MTU" gso_max_segs 1 up
    run ip -n "$ns" addr add "$addr/30" dev "$dev"
    run ip -n "$ns" neigh replace "$peer_addr" lladdr "$peer_mac" dev "$dev" nud permanent
    install_tables "$ns" "$dev"
  done
  trap - EXIT
  printf 'LAB=%s\nNS_A=%s\nNS_B=%s\nDEV_A=%s\nDEV_B=%s\nADDR_A=%s\nADDR_B=%s\nMTU=%s\n' \
    "$LAB" "$NS_A" "$NS_B" "$DEV_A" "$DEV_B" "$ADDR_A" "$ADDR_B" "$LAB_MTU"
}

# The fault table of one namespace: named counters, empty blackout chains, the fault chain (filled by
# `faults on`) and the ingress chain that drops the reorder ballast coming from the peer.
install_tables() {
  local ns=$1 dev=$2
  in_ns "$ns" nft -f - <<EOF
table netdev ringwire_faults {
  counter f_loss {}
  counter f_dup {}
  counter f_corrupt {}
  counter f_icrcblind {}
  counter f_reorder {}
  counter ballast_dropped {}
  counter blackout_out {}
  counter blackout_in {}
  chain blackout_egress { type filter hook egress device "$dev" priority -300; policy accept; }
  chain blackout_ingress { type filter hook ingress device "$dev" priority -300; policy accept; }
  chain faults { type filter hook egress device "$dev" priority 0; policy accept; }
  chain ingress { type filter hook ingress device "$dev" priority -200; policy accept;
    ip dscp $BALLAST_DSCP counter name "ballast_dropped" drop
  }
}
EOF
}

# -------------------------------------------------------------------------------------------- down

cmd_down() {
  local ns pids
  for ns in "$NS_A" "$NS_B"; do
    ns_exists "$ns" || continue
    # Whatever still runs inside the lab was started for it: stop it, or the namespace outlives us.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [ -n "$pids" ]; then
      kill -TERM $pids 2>/dev/null || true
      sleep 0.3
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    fi
    run ip netns del "$ns" || true
  done
  # Deleting the namespaces destroys the veths, their qdiscs and the nftables tables with them.
  ! ns_exists "$NS_A" && ! ns_exists "$NS_B" || die "could not delete the namespaces of lab $LAB"
  echo "lab $LAB down"
}

# ------------------------------------------------------------------------------------------ faults

cmd_faults() {
  local mode=${1:-} kinds=${2:-all}
  ns_exists "$NS_A" || die "lab $LAB is not up"
  case "$mode" in
    on) faults_on "$kinds" ;;
    off) faults_off ;;
    *) die "usage: faults on [all|loss,dup,corrupt,reorder,icrcblind] | faults off" ;;
  esac
}

want() { [ "$KINDS" = all ] || [[ ",$KINDS," == *",$1,"* ]]; }

faults_on() {
  KINDS=$1
  local k
  for k in ${KINDS//,/ }; do
    case "$k" in
      all) [ "$KINDS" = all ] || die "'all' stands alone: faults on all, or a list of the others" ;;
      loss|dup|corrupt|reorder|icrcblind) ;;
      *) die "unknown fault '$k': all, loss, dup, corrupt, reorder, icrcblind" ;;
    esac
  done
  local match
  case "$FAULT_PROTO" in
    all) match="meta protocol ip" ;;
    udp) match="meta l4proto udp" ;;
    *) die "FAULT_PROTO='$FAULT_PROTO': all or udp" ;;
  esac
  faults_off >/dev/null
  local side ns dev
  for side in a b; do
    if [ "$side" = a ]; then ns=$NS_A dev=$DEV_A; else ns=$NS_B dev=$DEV_B; fi
    # Counters start from zero with each `faults on`, so `stats` describes this run only.
    reset_counters "$ns"
    if want reorder; then install_reorder_qdisc "$ns" "$dev"; fi
    {
      echo "flush chain netdev ringwire_faults faults"
      echo "add rule netdev ringwire_faults faults meta mark $DUP_MARK accept"
      echo "add rule netdev ringwire_faults faults meta mark $BALLAST_MARK ip dscp set $BALLAST_DSCP accept"
      want loss && echo "add rule netdev ringwire_faults faults $match numgen random mod 1000 < $LOSS_PERMILLE counter name \"f_loss\" drop"
      want dup && echo "add rule netdev ringwire_faults faults $match numgen random mod 1000 < $DUP_PERMILLE counter name \"f_dup\" meta mark set $DUP_MARK dup to \"$dev\" meta mark set 0"
      # The counter comes last: a datagram too short to mangle leaves the rule before it (not counted).
      want corrupt && echo "add rule netdev ringwire_faults faults meta l4proto udp numgen random mod 1000 < $CORRUPT_PERMILLE @th,160,8 set @th,160,8 ^ 0xff udp checksum set 0 counter name \"f_corrupt\""
      [[ ",$KINDS," == *",icrcblind,"* ]] && echo "add rule netdev ringwire_faults faults meta l4proto udp numgen random mod 1000 < $ICRC_BLIND_PERMILLE @th,808,8 set @th,808,8 ^ 0x0f udp checksum set 0 counter name \"f_icrcblind\""
      want reorder && echo "add rule netdev ringwire_faults faults $match numgen random mod 1000 < $REORDER_PERMILLE counter name \"f_reorder\" meta priority set 1:20 meta mark set $BALLAST_MARK dup to \"$dev\" meta mark set 0"
      true
    } | in_ns "$ns" nft -f -
  done
  echo "faults on ($KINDS) in lab $LAB"
}

install_reorder_qdisc() {
  local ns=$1 dev=$2
  [ "$REORDER_DELAY_US" -ge 10 ] || die "REORDER_DELAY_US must be >= 10"
  local slow_kbit=$(( SLOW_MPU * 8 * 1000 / REORDER_DELAY_US ))
  run ip -n "$ns" link set "$dev" txqueuelen 1000
  run tc -n "$ns" qdisc replace dev "$dev" root handle 1: htb default 10
  run tc -n "$ns" class add dev "$dev" parent 1: classid 1:10 htb rate 40gbit ceil 40gbit quantum 65536
  # Every packet costs SLOW_MPU bytes of tokens, whatever its size, so every wait is REORDER_DELAY_US.
  run tc -n "$ns" class add dev "$dev" parent 1: classid 1:20 htb rate "${slow_kbit}kbit" ceil "${slow_kbit}kbit" \
    burst 1 cburst 1 mpu "$SLOW_MPU" mtu 9216 quantum 65536
  run tc -n "$ns" qdisc add dev "$dev" parent 1:20 handle 20: pfifo limit 64
}

faults_off() {
  local side ns dev
  for side in a b; do
    if [ "$side" = a ]; then ns=$NS_A dev=$DEV_A; else ns=$NS_B dev=$DEV_B; fi
    in_ns "$ns" nft flush chain netdev ringwire_faults faults
    run tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
  done
  echo "faults off in lab $LAB"
}

# ---------------------------------------------------------------------------------------- blackout

cmd_blackout() {
  local ms=${1:-}
  [[ "$ms" =~ ^[0-9]+$ ]] && [ "$ms" -ge 1 ] && [ "$ms" -le 60000 ] || die "usage: blackout MS (1 to 60000)"
  ns_exists "$NS_A" || die "lab $LAB is not up"
  # One nft process, started before the clock runs, takes both transactions from a pipe (nft -i),
  # so the blackout's length is not blurred by process start-up. Each transaction is followed by a
  # `list` whose answer confirms it was committed.
  coproc NFT_SHELL { timeout $(( STEP_TIMEOUT + ms / 1000 + 1 )) ip netns exec "$NS_A" nft -i 2>&1; }
  local to_nft=${NFT_SHELL[1]} from_nft=${NFT_SHELL[0]} pause_fd
  exec {pause_fd}<> <(:) # never readable: `read -t` on it sleeps without forking
  trap 'in_ns "$NS_A" nft "flush chain netdev ringwire_faults blackout_egress; flush chain netdev ringwire_faults blackout_ingress" || true' EXIT
  nft_confirm "$to_nft" "$from_nft" ""
  local t0 t1 t2 t3 pause
  now_us t0
  nft_confirm "$to_nft" "$from_nft" "add rule netdev ringwire_faults blackout_egress counter name \"blackout_out\" drop; add rule netdev ringwire_faults blackout_ingress counter name \"blackout_in\" drop"
  now_us t1
  # Count from the confirmation: the drop rules are surely in force from t1 on.
  printf -v pause '%d.%06d' $((ms / 1000)) $(((ms % 1000) * 1000))
  read -r -t "$pause" -u "$pause_fd" || true
  now_us t2
  nft_confirm "$to_nft" "$from_nft" "flush chain netdev ringwire_faults blackout_egress; flush chain netdev ringwire_faults blackout_ingress"
  now_us t3
  trap - EXIT
  exec {to_nft}>&-
  wait "$NFT_SHELL_PID" 2>/dev/null || true
  # The drop rules were committed in [t0, t1] and removed in [t2, t3]: the blackout lasted at least
  # t2 - t1 (about MS) and at most t3 - t0.
  printf 'BLACKOUT_REQUESTED_MS=%d\nBLACKOUT_AT_LEAST_MS=%d.%03d\nBLACKOUT_AT_MOST_MS=%d.%03d\n' "$ms" \
    $(( (t2 - t1) / 1000 )) $(( (t2 - t1) % 1000 )) $(( (t3 - t0) / 1000 )) $(( (t3 - t0) % 1000 ))
}

# Sets variable $1 to the wall clock in microseconds, without forking.
now_us() { local t=$EPOCHREALTIME; printf -v "$1" '%s' "${t/[.,]/}"; }

# Sends a command line (possibly empty) to the nft -i coprocess, then waits for the answer to a
# list command sent after it: when it arrives, the command has been committed.
nft_confirm() {
  local to=$1 from=$2 command=$3 line
  [ -z "$command" ] || printf '%s\n' "$command" >&"$to"
  printf 'list counter netdev ringwire_faults blackout_out\n' >&"$to"
  while IFS= read -r -t "$STEP_TIMEOUT" -u "$from" line; do
    case "$line" in *Error*) die "nft: $line" ;; *packets*) return 0 ;; esac
  done
  die "nft did not answer within ${STEP_TIMEOUT}s"
}

# ------------------------------------------------------------------------------------------- stats

cmd_stats() {
  ns_exists "$NS_A" || die "lab $LAB is not up"
  local side ns dev name line
  for side in a b; do
    if [ "$side" = a ]; then ns=$NS_A dev=$DEV_A; else ns=$NS_B dev=$DEV_B; fi
    for name in f_loss f_dup f_corrupt f_icrcblind f_reorder ballast_dropped blackout_out blackout_in; do
      line=$(in_ns "$ns" nft list counter netdev ringwire_faults "$name" | grep -o 'packets [0-9]*' | head -n 1)
      printf '%s_%s=%s\n' "$side" "${name#f_}" "${line#packets }"
    done
    # Slow-class overflow: selected-for-reorder packets lost to the pfifo limit (0 when reorder is off).
    line=$(run tc -n "$ns" -s class show dev "$dev" classid 1:20 2>/dev/null | grep -o 'dropped [0-9]*' | head -n 1 || true)
    line=${line:-dropped 0}; printf "%s_reorder_overflow=%s\n" "$side" "${line#dropped }"
    line=$(run ip -n "$ns" -s -o link show dev "$dev" | head -n 1)
    printf '%s_link=%s\n' "$side" "$(echo "$line" | tr -s ' \\' ' ')"
  done
}

reset_counters() { in_ns "$1" nft reset counters table netdev ringwire_faults >/dev/null; }

cmd_reset() {
  ns_exists "$NS_A" || die "lab $LAB is not up"
  reset_counters "$NS_A"
  reset_counters "$NS_B"
  echo "counters reset in lab $LAB"
}

cmd_exec() {
  local side=${1:-}; shift || true
  case "$side" in
    a) exec ip netns exec "$NS_A" "$@" ;;
    b) exec ip netns exec "$NS_B" "$@" ;;
    *) die "usage: exec a|b CMD [ARGS]" ;;
  esac
}

# -------------------------------------------------------------------------------------------- main

LAB=${RW_LAB:-}
if [ "${1:-}" = --lab ]; then
  [ $# -ge 2 ] || die "--lab needs an ID"
  LAB=$2; shift 2
fi
command=${1:-}; shift || true
case "$command" in
  up) LAB=${LAB:-rwl$$}; require_tools; lab_names; cmd_up ;;
  down) require_tools; lab_names; cmd_down ;;
  faults) require_tools; lab_names; cmd_faults "$@" ;;
  blackout) require_tools; lab_names; cmd_blackout "$@" ;;
  stats) require_tools; lab_names; cmd_stats ;;
  reset) require_tools; lab_names; cmd_reset ;;
  exec) require_tools; lab_names; cmd_exec "$@" ;;
  list) ip netns list 2>/dev/null | cut -d' ' -f1 | sed -n 's/^\(rwl[a-z0-9]*\)-a$/\1/p' ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$command" ] || exit 2 ;;
esac
