#!/usr/bin/env bash
# The figures the shm and exchange targets ask of a many-core server, in one run: shm's hop on one
# thread, shm beside Aeron IPC (round trip and flood), the matching engine alone, the exchange end
# to end at 1 M and 100 k orders a second, and the 1 M run again profiled. Each step has a time
# limit of its own (some 11 minutes in all, were every step to run to its limit). Every step's table goes to OUT/summary.txt
# as it finishes, and all results so far into OUT/server-figures.tgz (replaced whole, never half
# written), so a lease that ends early still returns what was done.
#
# usage: server-figures.sh OUT [LAUNCHER]
#   OUT       where summary.txt and server-figures.tgz go, nothing else (a leased machine returns a
#             few files at most); the results directories are built in a temporary one
#   LAUNCHER  what runs `perf ...`: ./ringwire on a machine with JDK 25 and the build (default; it
#             builds first, outside the steps' limits, where the sources are newer than the jars),
#             or a bundle's launcher such as .devrun/rw
# A step that fails or runs past its limit is noted in the summary and the run goes on; the exit
# code is the number of such steps (0: every figure taken).
set -u
out=${1:?usage: server-figures.sh OUT [LAUNCHER]}
# The clone's own launcher by default, wherever the script is run from.
launcher=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)/ringwire}
work=$(mktemp -d) || exit 1
running=""
# An interrupt stops the step's benchmark too: timeout runs it in a process group of its own, which
# a terminal's signal does not reach, so the signal is passed on to timeout, which passes it on.
trap '[ -n "$running" ] && kill -TERM "$running" 2>/dev/null; exit 130' INT TERM
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/results" || exit 1
summary=$out/summary.txt
: > "$summary"
failed=0

say() { printf '%s\n' "$*" | tee -a "$summary"; }

# step NAME LIMIT_SECONDS perf-args...: runs `perf args` (its log results/NAME.log; a benchmark that
# writes a results directory is given --out results/NAME), its table into the summary.
step() {
  local name=$1 limit=$2; shift 2
  say ""; say "== $name: perf $* ($(date -u +%H:%M:%S))"
  local dir=()
  [ "$1" = path ] || dir=(--out "$work/results/$name")
  timeout --kill-after=10 "$limit" bash "$launcher" perf "$@" ${dir[@]+"${dir[@]}"} \
    > "$work/results/$name.log" 2>&1 &
  running=$!
  wait "$running"
  local rc=$?
  running=""
  # The table and its notes, without the progress lines (rounds, rows, seconds) before them.
  grep -v -E -e 'round trips \(|flooding for|msgs in |: results in ' \
    -e '^(rtt: |compare: round|matching: (warm-up|round))' \
    -e '^exchange [a-z]+ (warm-up|measured) [0-9]+/' -e '^\[[0-9.]+s\]\[info\]\[jfr' "$work/results/$name.log" |
    tail -n 45 >> "$summary"
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    say "-- $name: FAILED, exit $rc$([ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo " (past its ${limit} s)")"
  fi
  tar czf "$out/.server-figures.tgz.part" -C "$work" results && mv -f "$out/.server-figures.tgz.part" \
    "$out/server-figures.tgz"
}

say "server figures, $(date -u +%Y-%m-%dT%H:%M:%SZ), launcher $launcher"
say "machine: $(nproc) online CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say "kernel: $(uname -r); memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
if [ "$(basename "$launcher")" = ringwire ]; then
  if ! bash "$launcher" build > "$work/build.log" 2>&1; then
    say "the build failed:"; tail -n 30 "$work/build.log" | tee -a "$summary"; exit 1
  fi
fi

step path 45 path --provider shm
step compare-shm 150 compare --pairs shm --processes 2 --rounds 5
step throughput-shm 150 throughput --provider shm --baseline aeron-ipc --sizes 36,256 --rounds 5 --seconds 2 \
  --sweep-steps 0
step matching 150 matching --rounds 3
step exchange-1m 60 exchange --provider shm --rate 1000000 --clients 16 --seconds 10 --warmup 5
step exchange-100k 60 exchange --provider shm --rate 100000 --clients 4 --seconds 10 --warmup 5
# The 1 M/s run again under JFR's sampling profiler (results/exchange-1m.jfr): which frames each
# role's thread spends its time in where the rate is not held (`jfr print --events
# jdk.ExecutionSample`, grouped by sampledThread).
RINGWIRE_JAVA_OPTS="${RINGWIRE_JAVA_OPTS:-} -XX:StartFlightRecording=filename=$work/results/exchange-1m.jfr,settings=profile" \
  step exchange-1m-profiled 60 exchange --provider shm --rate 1000000 --clients 16 --seconds 10 --warmup 5

say ""; say "done $(date -u +%H:%M:%S): $failed step(s) failed"
exit "$failed"
