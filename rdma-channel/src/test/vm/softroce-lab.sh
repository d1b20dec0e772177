#!/usr/bin/env bash
# Soft-RoCE test lab: a throwaway qemu (TCG) guest running Debian's own kernel, which has rdma_rxe,
# so that RingWire can be tested against the kernel's real RoCEv2 stack on machines whose kernel
# has no RDMA. docs/softroce-lab.md describes the recipe and why each part is there.
#
#   softroce-lab.sh prepare
#       Installs the Debian packages the lab needs (apt-get update once, only when something is
#       missing) and builds the guest initramfs into $RINGWIRE_VM_CACHE (default
#       /var/cache/ringwire-vm, outside the repository). `run` rebuilds the initramfs by itself
#       when it is missing or older than this script.
#   softroce-lab.sh run JOB_SCRIPT RESULTS_DIR [TIMEOUT_SECONDS]
#       Boots the guest and runs JOB_SCRIPT (a host path; the guest sees the host's / read-only
#       with a tmpfs overlay, so every host path means the same in the guest). RESULTS_DIR is a
#       writable share at the same path in the guest; the job finds it in $RINGWIRE_VM_RESULTS.
#       Leaves console.log, job.log, exit-code and timing.txt in RESULTS_DIR and exits with the
#       job's exit code (124 when the job timed out, 125 when it never reported one).
#       TIMEOUT_SECONDS (default 300) bounds the whole run; the job gets what the boot leaves of
#       it, less 15 s for powering off. A guest whose heartbeat stops is stopped at once; one that
#       stops before its job starts, or after the job's setup began and before it was done
#       (lib-rxe.sh: setup_begins, setup_done), is booted once more within the same bound when at
#       least MIN_RETRY_SECONDS of it are left (console.log, job.log and timing.txt of the first
#       boot are kept as attempt1-*).
#
# Environment: RINGWIRE_VM_CACHE (initramfs dir), RINGWIRE_VM_KERNEL (guest kernel version, default
# the newest /boot/vmlinuz-*), RINGWIRE_VM_SMP (default 2), RINGWIRE_VM_MEM (MiB, default 2048),
# RINGWIRE_VM_VERBOSE=1 (stream the guest console while it runs), RINGWIRE_VM_QEMU_ARGS (extra qemu
# arguments, split on blanks), RINGWIRE_VM_APPEND (extra guest kernel arguments),
# RINGWIRE_VM_TCG_THREAD (multi, the default: one host thread per vCPU; single: all vCPUs on one),
# RINGWIRE_VM_CONFINE_JVMS=0 (do not confine each guest JVM to one vCPU; see below),
# RINGWIRE_VM_STALL_SECONDS (default 90: a guest silent this long is stopped),
# RINGWIRE_VM_BOOT_SECONDS (default 120: a guest that has not started its job by then is stopped).
# The guest's job sees RINGWIRE_VM_JDK (the JDK it runs, default Temurin 25's Debian path),
# RINGWIRE_VM_DIR and the variables RINGWIRE_VM_PASS_ENV names (e.g. "IBV_ROUNDTRIPS PEER_TIMEOUT"),
# taken from this script's environment into RESULTS_DIR/guest-env; nothing else of it (names stage 2
# sets itself, such as RESULTS or PATH, are refused).
#
# JVMs in the guest: multi-threaded TCG does not keep code coherent when one vCPU rewrites
# instructions that another translates, and HotSpot rewrites the entry of every compiled method it
# retires; a JVM with threads on both vCPUs then dies now and then with SIGSEGV or SIGILL at a
# C1-compiled method's entry (jobs/jit-patching.sh shows it without any RDMA). `run` therefore
# builds jvm-one-cpu.so (gcc, into the cache) and the guest preloads it into every process: each
# JVM runs on one vCPU, a JVM's child JVM on the next one.
set -euo pipefail

CACHE_DIR=${RINGWIRE_VM_CACHE:-/var/cache/ringwire-vm}
SMP=${RINGWIRE_VM_SMP:-2}
MEM_MIB=${RINGWIRE_VM_MEM:-2048}

# Debian packages: the guest kernel and its modules, qemu, static busybox for the initramfs, and
# the RDMA user space the jobs use (the guest runs the host's binaries over 9p). ibverbs-providers
# carries the rxe provider (librxe) and is only a Recommends of libibverbs1, so it is named here.
# socat carries the host's word to a stuck guest's qemu monitor (an NMI for the guest's backtraces).
PACKAGES=(qemu-system-x86 linux-image-amd64 busybox-static gcc rdma-core ibverbs-utils ibverbs-providers
  perftest libibverbs-dev librdmacm1 rdmacm-utils iproute2 kmod cpio xz-utils zstd tcpdump socat)

# The guest's virtio-9p and overlayfs stack, in load order (dependencies are added if a kernel
# version ever needs more).
MODULES=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs fscache
  9pnet 9pnet_virtio 9p overlay)

# An NMI from the host (its watch, when the guest stopped) panics the guest from its first moment,
# and the panic prints every task's stack and every CPU's backtrace (panic_print bits 0 and 6) to
# the console before qemu ends. The panic prints from NMI context only at its end, out of the
# kernel's log buffer: a large one keeps the start of a long dump.
PANIC_ARGS="unknown_nmi_panic panic_print=65 log_buf_len=4M"

# A guest whose heartbeat stops for STALL_SECONDS, or that has not started its job BOOT_SECONDS
# after booting, is stopped; a second boot needs at least MIN_RETRY_SECONDS of the run's budget left.
STALL_SECONDS=${RINGWIRE_VM_STALL_SECONDS:-90}
BOOT_SECONDS=${RINGWIRE_VM_BOOT_SECONDS:-120}
MIN_RETRY_SECONDS=120

APT_UPDATE_TIMEOUT=600
APT_INSTALL_TIMEOUT=1800

log() { printf 'softroce-lab: %s\n' "$*" >&2; }
die() { printf 'softroce-lab: error: %s\n' "$*" >&2; exit 1; }
usage() {
  sed -n '6,/^# Environment/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The guest kernel version: RINGWIRE_VM_KERNEL, else the newest /boot/vmlinuz-* that has modules.
guest_kernel_version() {
  if [ -n "${RINGWIRE_VM_KERNEL:-}" ]; then
    echo "$RINGWIRE_VM_KERNEL"; return
  fi
  local image version best=""
  for image in /boot/vmlinuz-*; do
    [ -e "$image" ] || continue
    version=${image#/boot/vmlinuz-}
    if [ -f "/lib/modules/$version/modules.dep" ]; then
      best=$(printf '%s\n%s\n' "$best" "$version" | sed '/^$/d' | sort -V | tail -n 1)
    fi
  done
  [ -n "$best" ] || die "no guest kernel: no /boot/vmlinuz-* with /lib/modules/<version>/modules.dep (run: $0 prepare)"
  echo "$best"
}

initramfs_path() { echo "$CACHE_DIR/initramfs-$1.cpio.gz"; }
vmlinux_path() { echo "$CACHE_DIR/vmlinux-$1"; }

# The image qemu boots for kernel $1: the uncompressed vmlinux when prepare could extract one,
# else the compressed /boot/vmlinuz.
kernel_image() {
  local vmlinux
  vmlinux=$(vmlinux_path "$1")
  if [ -f "$vmlinux" ]; then echo "$vmlinux"; else echo "/boot/vmlinuz-$1"; fi
}

# Extracts the uncompressed ELF vmlinux from /boot/vmlinuz-$1 into the cache. Under TCG the
# kernel's own xz decompressor costs seconds of every boot (docs/softroce-lab.md); qemu boots an ELF
# vmlinux directly through its PVH entry point (CONFIG_PVH), so that time goes to prepare, once.
extract_vmlinux() {
  local version=$1 config=/boot/config-$1 magic tool offset out tmp
  out=$(vmlinux_path "$version")
  rm -f "$out"
  if ! grep -q '^CONFIG_PVH=y' "$config" 2>/dev/null; then
    log "kernel $version has no CONFIG_PVH: the guest boots the compressed vmlinuz"
    return
  fi
  if grep -q '^CONFIG_KERNEL_XZ=y' "$config"; then magic='\xFD7zXZ\x00' tool=(xz -dc)
  elif grep -q '^CONFIG_KERNEL_ZSTD=y' "$config"; then magic='\x28\xB5\x2F\xFD' tool=(zstd -dcq)
  elif grep -q '^CONFIG_KERNEL_GZIP=y' "$config"; then magic='\x1F\x8B\x08' tool=(gzip -dc)
  else
    log "kernel $version is compressed in a way this script does not unpack: booting vmlinuz"
    return
  fi
  offset=$(LC_ALL=C grep -obUaP "$magic" "/boot/vmlinuz-$version" | head -n 1 | cut -d: -f1) || true
  if [ -z "$offset" ]; then
    log "no compressed payload found in /boot/vmlinuz-$version: booting vmlinuz"
    return
  fi
  tmp=$(mktemp "$out.XXXXXX")
  # The payload is followed by trailing data the decompressor complains about: judge the result.
  tail -c +"$((offset + 1))" "/boot/vmlinuz-$version" | timeout 120 "${tool[@]}" > "$tmp" 2>/dev/null || true
  if [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
    mv "$tmp" "$out"
    log "vmlinux: $out ($(du -h "$out" | cut -f1), booted through PVH)"
  else
    rm -f "$tmp"
    log "could not unpack vmlinux from /boot/vmlinuz-$version: booting vmlinuz"
  fi
}

install_packages() {
  local p missing=()
  for p in "${PACKAGES[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "Debian packages: all present"
    return
  fi
  log "installing Debian packages: ${missing[*]}"
  timeout "$APT_UPDATE_TIMEOUT" apt-get update -q \
    || die "apt-get update failed or took more than ${APT_UPDATE_TIMEOUT}s"
  DEBIAN_FRONTEND=noninteractive timeout "$APT_INSTALL_TIMEOUT" \
    apt-get install -y -q --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}" \
    || die "apt-get install ${missing[*]} failed or took more than ${APT_INSTALL_TIMEOUT}s"
}

# Copies module $1 (a path from modules.dep, maybe compressed) to $2 as a plain .ko.
copy_module() {
  local src=$1 dst=$2
  case "$src" in
    *.ko)     cp "$src" "$dst" ;;
    *.ko.xz)  timeout 60 xz -dc "$src" > "$dst" ;;
    *.ko.zst) timeout 60 zstd -q -dc "$src" > "$dst" ;;
    *.ko.gz)  timeout 60 gzip -dc "$src" > "$dst" ;;
    *) die "unknown module format: $src" ;;
  esac
}

# The guest's first stage: busybox sh as PID 1 in the initramfs.
write_init() {
  cat > "$1" <<'EOF'
#!/bin/busybox sh
# RingWire Soft-RoCE lab, guest stage 1 (generated by softroce-lab.sh prepare).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs devtmpfs /dev 2>/dev/null || mount -t tmpfs tmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

fail() {
  echo "ringwire-vm: stage1: $*"
  echo o > /proc/sysrq-trigger
  while :; do sleep 10; done
}

JOB="" RESULTS="" DEADLINE="" PRELOAD=""
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    ringwire.job=*) JOB=${arg#*=} ;;
    ringwire.preload=*) PRELOAD=${arg#*=} ;;
    ringwire.results=*) RESULTS=${arg#*=} ;;
    ringwire.deadline=*) DEADLINE=${arg#*=} ;;
  esac
done
[ -n "$JOB" ] && [ -n "$RESULTS" ] && [ -n "$DEADLINE" ] \
  || fail "ringwire.job=, ringwire.results= or ringwire.deadline= missing from the kernel command line"

for m in $(cat /modules/order); do
  insmod "/modules/$m.ko" || fail "insmod $m failed"
done

mkdir -p /host /rw /newroot
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /host \
  || fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /rw || fail "cannot mount the overlay tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot \
  || fail "cannot mount the overlay root"
mount -t tmpfs -o mode=0755 tmpfs /newroot/run || fail "cannot mount /run"
mkdir -p /newroot/run/ringwire-vm "/newroot$RESULTS"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "/newroot$RESULTS" \
  || fail "cannot mount the results share at $RESULTS"
cp /stage2 /newroot/run/ringwire-vm/stage2
chmod 0755 /newroot/run/ringwire-vm/stage2
printf 'JOB=%s\nRESULTS=%s\nDEADLINE=%s\nPRELOAD=%s\n' "$JOB" "$RESULTS" "$DEADLINE" "$PRELOAD" > /newroot/run/ringwire-vm/env
# Everything busybox can do happens here: under TCG each exec of a dynamically linked host
# binary over 9p is many times dearer than a busybox builtin (docs/softroce-lab.md).
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
hostname ringwire-vm
ip link set lo up || fail "cannot bring lo up"
for fs in dev proc sys; do
  mount --move "/$fs" "/newroot/$fs" || fail "cannot move /$fs"
done
exec switch_root /newroot /run/ringwire-vm/stage2
EOF
}

# The guest's second stage: the host's bash as PID 1 in the overlay root. Runs the job, records
# its output and exit code in the results share, and powers off.
write_stage2() {
  cat > "$1" <<'EOF'
#!/bin/bash
# RingWire Soft-RoCE lab, guest stage 2 (generated by softroce-lab.sh prepare).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
exec </dev/null >/dev/console 2>&1
. /run/ringwire-vm/env
# The host's RINGWIRE_VM_JDK, RINGWIRE_VM_DIR and RINGWIRE_VM_PASS_ENV variables (softroce-lab.sh run).
[ -r "$RESULTS/guest-env" ] && . "$RESULTS/guest-env"
# jvm-one-cpu.so (see its source): every JVM of the job on one vCPU.
[ -n "$PRELOAD" ] && export LD_PRELOAD=$PRELOAD
# A FIFO nobody writes: a read of it with a timeout is a sleep in builtins, which needs no exec over
# 9p (the heartbeat below, and the wait for the power to go, when the 9p root may be gone).
mkfifo /run/ringwire-vm/tick
poweroff_now() {
  sync
  echo o > /proc/sysrq-trigger
  while :; do read -r -t 10 _ <> /run/ringwire-vm/tick; done
}
read -r uptime _ < /proc/uptime
# The host's deadline (epoch seconds) leaves time to power off; the guest clock starts from the
# host's RTC, so the job gets what remains of the run's budget however long the boot took.
printf -v now '%(%s)T' -1
JOB_TIMEOUT=$((DEADLINE - now))
[ "$JOB_TIMEOUT" -ge 5 ] || JOB_TIMEOUT=5
# The heartbeat tells the host the guest still runs: a guest whose kernel or emulated CPUs stop
# writes none, and the host stops it instead of waiting out the run. Builtins only.
( while :; do
    read -r beat _ < /proc/uptime
    printf '%s\n' "$beat" > "$RESULTS/heartbeat"
    read -r -t 2 _ <> /run/ringwire-vm/tick
  done ) &
echo "$uptime" > "$RESULTS/guest-uptime-at-job-start"
echo "ringwire-vm: kernel $(uname -r), guest up ${uptime}s, running $JOB (timeout ${JOB_TIMEOUT}s)"
if [ -x "$JOB" ]; then run=("$JOB"); else run=(/bin/bash "$JOB"); fi
cd /
RINGWIRE_VM_RESULTS=$RESULTS timeout --kill-after=5 "$JOB_TIMEOUT" "${run[@]}" 2>&1 | tee "$RESULTS/job.log"
code=${PIPESTATUS[0]}
[ "$code" -eq 124 ] && echo "ringwire-vm: job timed out after ${JOB_TIMEOUT}s"
echo "$code" > "$RESULTS/exit-code"
echo "ringwire-vm: job exited with $code"
poweroff_now
EOF
}

# Builds the initramfs for guest kernel $1 (static busybox, the modules, init and stage2), then
# unpacks its vmlinux.
build_initramfs() {
  local version=$1 work
  [ "$(id -u)" -eq 0 ] || die "building the initramfs needs root (mknod)"
  [ -r "/boot/vmlinuz-$version" ] || die "/boot/vmlinuz-$version is not readable"
  command -v cpio >/dev/null || die "cpio missing (run: $0 prepare)"
  [ -x /bin/busybox ] || die "/bin/busybox missing (busybox-static)"
  [ "$(dpkg-query -S /bin/busybox 2>/dev/null | cut -d: -f1)" = busybox-static ] \
    || die "/bin/busybox is not from busybox-static (the initramfs needs the static build)"
  log "guest kernel $version (host kernel $(uname -r))"

  mkdir -p "$CACHE_DIR"
  work=$(mktemp -d "$CACHE_DIR/build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work"/{bin,dev,proc,sys,modules}
  cp /bin/busybox "$work/bin/busybox"
  mknod -m 600 "$work/dev/console" c 5 1
  mknod -m 666 "$work/dev/null" c 1 3

  # Each listed module with whatever it depends on, in dependency order, without repeats.
  local module line path name seen=" " order=()
  for module in "${MODULES[@]}"; do
    local deps
    deps=$(timeout 30 modprobe --set-version "$version" --show-depends "$module" 2>&1) \
      || die "module $module not found for kernel $version: $deps"
    while read -r line; do
      case "$line" in
        builtin\ *) continue ;;
        insmod\ *) path=${line#insmod }; path=${path%% *} ;;
        *) die "unexpected modprobe output for $module: $line" ;;
      esac
      name=$(basename "$path"); name=${name%%.ko*}
      case "$seen" in *" $name "*) continue ;; esac
      seen="$seen$name "
      copy_module "$path" "$work/modules/$name.ko"
      order+=("$name")
    done <<< "$deps"
  done
  printf '%s\n' "${order[@]}" > "$work/modules/order"
  log "initramfs modules: ${order[*]}"

  write_init "$work/init"
  write_stage2 "$work/stage2"
  chmod 0755 "$work/init" "$work/stage2"

  local out
  out=$(initramfs_path "$version")
  (cd "$work" && find . -mindepth 1 | LC_ALL=C sort | timeout 120 cpio -o -H newc -R 0:0 --quiet) \
    | gzip -1 > "$work.cpio.gz" || die "building the initramfs failed"
  mv "$work.cpio.gz" "$out"
  rm -rf "$work"; trap - EXIT
  log "initramfs: $out ($(du -h "$out" | cut -f1))"
  extract_vmlinux "$version"
}

# Builds jvm-one-cpu.so (every guest JVM on one vCPU: see jvm-one-cpu.c) into the cache when it is
# missing or older than its source, and prints its path. The guest sees the host's files, so the
# host's gcc builds it.
build_jvm_one_cpu() {
  local src out
  src="$(dirname "$(realpath "${BASH_SOURCE[0]}")")/jvm-one-cpu.c"
  out="$CACHE_DIR/jvm-one-cpu.so"
  if [ ! -f "$out" ] || [ "$src" -nt "$out" ]; then
    command -v gcc >/dev/null || die "gcc missing: it builds $out (apt-get install gcc), or set RINGWIRE_VM_CONFINE_JVMS=0"
    mkdir -p "$CACHE_DIR"
    timeout 120 gcc -O2 -Wall -Werror -shared -fPIC -o "$out.tmp" "$src" >&2 || die "building $out failed"
    mv "$out.tmp" "$out"
    log "built $out"
  fi
  echo "$out"
}

# The host variables the guest's job may read: the guest boots with no environment of its own, so
# run writes them to $1 in the results share and stage 2 sources it before the job.
write_guest_env() {
  local name names pass=${RINGWIRE_VM_PASS_ENV:-}
  read -ra names <<< "${pass//$'\n'/ }"
  : > "$1"
  for name in RINGWIRE_VM_JDK RINGWIRE_VM_DIR "${names[@]}"; do
    [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "RINGWIRE_VM_PASS_ENV: '$name' is not a variable name"
    case " JOB RESULTS DEADLINE PRELOAD PATH HOME LANG TERM LD_PRELOAD RINGWIRE_VM_RESULTS " in
      *" $name "*) die "RINGWIRE_VM_PASS_ENV: $name is the guest's own" ;;
    esac
    if [ -n "${!name+x}" ]; then
      printf 'export %s=%q\n' "$name" "${!name}" >> "$1"
    fi
  done
}

prepare() {
  local start
  start=$(now)
  [ "$(id -u)" -eq 0 ] || die "prepare needs root (apt-get, mknod)"
  install_packages
  build_initramfs "$(guest_kernel_version)"
  log "prepare done in $(elapsed "$start")s"
}

run() {
  [ $# -ge 2 ] && [ $# -le 3 ] || usage
  local job results timeout_s=${3:-300}
  [[ "$timeout_s" =~ ^[0-9]+$ ]] && [ "$timeout_s" -ge 60 ] || die "TIMEOUT_SECONDS must be a whole number >= 60, got '$timeout_s'"
  [[ "$STALL_SECONDS" =~ ^[0-9]+$ ]] && [ "$STALL_SECONDS" -ge 10 ] \
    || die "RINGWIRE_VM_STALL_SECONDS must be a whole number >= 10, got '$STALL_SECONDS'"
  [[ "$BOOT_SECONDS" =~ ^[0-9]+$ ]] && [ "$BOOT_SECONDS" -ge 30 ] \
    || die "RINGWIRE_VM_BOOT_SECONDS must be a whole number >= 30, got '$BOOT_SECONDS'"
  [ -f "$1" ] || die "job script $1 does not exist"
  job=$(realpath "$1")
  results=$(realpath -m "$2")
  case "$job$results" in *[[:space:]]*) die "job and results paths must not contain whitespace (they travel on the kernel command line)" ;; esac
  local path
  for path in "$job" "$results"; do
    case "$path/" in
      /proc/*|/sys/*|/dev/*|/run/*) die "$path is under /proc, /sys, /dev or /run, which the guest mounts anew: use another path" ;;
    esac
  done
  [ "$results" != / ] || die "RESULTS_DIR must not be /"
  mkdir -p "$results" || die "cannot create results dir $results"
  write_guest_env "$results/guest-env"
  command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run: $0 prepare)"

  local version initramfs kernel
  version=$(guest_kernel_version)
  initramfs=$(initramfs_path "$version")
  # The initramfs carries this script's init and stage2 and the kernel's modules: rebuild it when
  # this script or the kernel package is newer.
  if [ ! -f "$initramfs" ] || [ "${BASH_SOURCE[0]}" -nt "$initramfs" ] \
      || [ "/boot/vmlinuz-$version" -nt "$initramfs" ]; then
    [ -x /bin/busybox ] || die "no initramfs for kernel $version and no busybox to build one (run: $0 prepare)"
    log "initramfs for $version missing or older than this script or the kernel: rebuilding"
    build_initramfs "$version"
  fi
  kernel=$(kernel_image "$version")
  local preload=""
  [ "${RINGWIRE_VM_CONFINE_JVMS:-1}" = 0 ] || preload=$(build_jvm_one_cpu)

  # The guest must have the job's exit code written by then; the rest is for powering off. A second
  # boot keeps the first one's deadline.
  local deadline=$(($(date +%s) + timeout_s - 15))
  # A guest that stops before the job's setup is done (the kernel, the emulator or the setup's own
  # steps stuck) gets one more boot: the job has not run yet, so nothing of it is hidden. A guest
  # that stops in the job's own work is not booted again.
  local attempt outcome left f
  rm -f "$results"/attempt1-*
  for attempt in 1 2; do
    boot_guest "$version" "$kernel" "$initramfs" "$preload" "$job" "$results" "$deadline" "$attempt"
    case "$outcome" in
      boot-stuck|setup-stuck) ;;
      hung) [ -s "$results/setup-bound" ] && [ ! -e "$results/setup-done" ] || break ;;
      *) break ;;
    esac
    [ "$attempt" -eq 1 ] || break
    left=$((deadline - $(date +%s)))
    if [ "$left" -lt "$MIN_RETRY_SECONDS" ]; then
      log "not booting again: ${left}s of the run's budget left"
      break
    fi
    for f in console.log job.log timing.txt; do
      if [ -e "$results/$f" ]; then mv -f "$results/$f" "$results/attempt1-$f"; fi
    done
    log "booting once more (${left}s left): the guest stopped before the job's setup was done"
  done

  if [ ! -s "$results/exit-code" ]; then
    log "the job never reported an exit code"
    exit 125
  fi
  local code
  code=$(cat "$results/exit-code")
  [[ "$code" =~ ^[0-9]+$ ]] || { log "bad exit code '$code' in $results/exit-code"; exit 125; }
  log "job exit code $code (log: $results/job.log)"
  [ "$code" -eq 0 ] || report_failure "$results"
  exit "$code"
}

# What failed, for a log that keeps only the console's tail (CI deletes the results): the job's
# summary lines that are not figures, and each JUnit test case that failed or erred.
report_failure() {
  local results=$1 xml
  if [ -s "$results/summary.txt" ]; then
    log "the job's summary lines naming a phase, a failure or the result:"
    grep -E '(^phase|_exit=|_summary=|FAILED|MISSING|^result=)' "$results/summary.txt" >&2 || true
  fi
  for xml in "$results"/junit/*.xml "$results"/*/junit/*.xml; do
    [ -f "$xml" ] || continue
    grep -q -E '<(failure|error)[ >]' "$xml" || continue
    log "failed in $(basename "$xml"):"
    awk '/<testcase /{ match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7) }
         /<(failure|error)[ >]/{ line = $0; sub(/^[ \t]*/, "", line); print "  " name ": " substr(line, 1, 300) }' \
      "$xml" >&2
  done
}

# Asks the guest stopped by the watch (qemu $1, its monitor's socket $2) where it stands before it
# goes: an NMI, which the kernel's command line (PANIC_ARGS) made a panic that prints every CPU's
# backtrace and every task's stack to the console (console.log); the panic ends qemu. A guest whose
# emulator itself stopped prints nothing, which says so too.
dump_guest() {
  local qemu_pid=$1 socket=$2 i
  if ! command -v socat >/dev/null; then
    log "no socat: the stopped guest's backtraces are not asked for"
    return
  fi
  printf 'nmi\n' | timeout 5 socat - "UNIX-CONNECT:$socket" >/dev/null 2>&1 \
    || { log "the guest's qemu monitor did not take the NMI"; return; }
  log "sent the guest an NMI: its backtraces, if it can still print them, are in the console log"
  for i in $(seq 50); do
    kill -0 "$qemu_pid" 2>/dev/null || return 0
    sleep 0.2
  done
}

# One boot of the guest for `run`: $1 kernel version, $2 kernel image, $3 initramfs, $4 preload,
# $5 job, $6 results dir, $7 deadline (epoch seconds), $8 attempt. Sets outcome: exited (qemu
# ended by itself or by its timeout), boot-stuck (the job never started), hung (no heartbeat), or
# setup-stuck (the job's setup did not report done within the bound it declared).
boot_guest() {
  local version=$1 kernel=$2 initramfs=$3 preload=$4 job=$5 results=$6 deadline=$7 attempt=$8
  rm -f "$results"/{console.log,job.log,exit-code,guest-uptime-at-job-start,timing.txt,heartbeat,setup-bound,setup-done}
  local timeout_s=$((deadline + 15 - $(date +%s)))
  local console="$results/console.log"
  local start start_s boot_to_job="" qemu_pid rc=0 monitor_dir
  # The monitor's socket lives in a short path of its own (a unix socket's name has 107 bytes at most).
  monitor_dir=$(mktemp -d /tmp/ringwire-vm-monitor.XXXXXX)
  start=$(now)
  start_s=${start%.*}
  outcome=exited
  log "booting guest kernel $version (TCG, smp $SMP, ${MEM_MIB} MiB) for $job, timeout ${timeout_s}s$([ "$attempt" -eq 1 ] || echo ", attempt $attempt")"
  # The guest powers itself off after the job; timeout is the backstop when it does not.
  # RINGWIRE_VM_QEMU_ARGS is split on blanks on purpose.
  # shellcheck disable=SC2086
  timeout --kill-after=10 "$timeout_s" qemu-system-x86_64 \
    -accel tcg,thread="${RINGWIRE_VM_TCG_THREAD:-multi}" -cpu max -smp "$SMP" -m "$MEM_MIB" \
    -nographic -no-reboot -nic none \
    -kernel "$kernel" -initrd "$initramfs" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 mitigations=off $PANIC_ARGS ${RINGWIRE_VM_APPEND:-} ringwire.job=$job ringwire.results=$results ringwire.deadline=$deadline${preload:+ ringwire.preload=$preload}" \
    -fsdev local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev local,id=results,path="$results",security_model=none,multidevs=remap \
    -device virtio-9p-pci,fsdev=results,mount_tag=results \
    -monitor "unix:$monitor_dir/monitor.sock,server=on,wait=off" \
    ${RINGWIRE_VM_QEMU_ARGS:-} \
    </dev/null >"$console" 2>&1 &
  qemu_pid=$!
  # Background jobs of a script ignore SIGINT: stop qemu ourselves when we are interrupted.
  trap 'kill "$qemu_pid" 2>/dev/null; rm -rf "$monitor_dir"; die "interrupted: stopped qemu"' INT TERM
  local tail_pid=""
  if [ "${RINGWIRE_VM_VERBOSE:-0}" = 1 ]; then
    tail -n +1 -f "$console" --pid="$qemu_pid" >&2 &
    tail_pid=$!
  fi
  # The watch: the job's start, the guest's heartbeat (its last change, in host seconds) and the
  # job's setup bound, read from the results share a few times a second.
  local t job_start_s="" beat="" last_beat="" beat_s=$start_s bound=""
  while kill -0 "$qemu_pid" 2>/dev/null; do
    printf -v t '%(%s)T' -1
    if [ -z "$boot_to_job" ]; then
      if [ -f "$results/guest-uptime-at-job-start" ]; then
        boot_to_job=$(elapsed "$start")
        job_start_s=$t
        beat_s=$t
      elif [ $((t - start_s)) -ge "$BOOT_SECONDS" ]; then
        outcome=boot-stuck
        log "the guest did not start the job within ${BOOT_SECONDS}s of booting: stopping it"
        break
      fi
    else
      beat=$(cat "$results/heartbeat" 2>/dev/null || true)
      if [ "$beat" != "$last_beat" ]; then
        last_beat=$beat
        beat_s=$t
      elif [ $((t - beat_s)) -ge "$STALL_SECONDS" ]; then
        outcome=hung
        log "no heartbeat from the guest for ${STALL_SECONDS}s (its kernel or emulated CPUs stopped): stopping it"
        break
      fi
      if [ -z "$bound" ] && [ -s "$results/setup-bound" ]; then
        bound=$(cat "$results/setup-bound" 2>/dev/null || true)
        [[ "$bound" =~ ^[0-9]+$ ]] || bound=""
      fi
      if [ -n "$bound" ] && [ ! -e "$results/setup-done" ] && [ $((t - job_start_s)) -ge "$bound" ]; then
        outcome=setup-stuck
        log "the job's setup did not finish within the ${bound}s it declared: stopping the guest"
        break
      fi
    fi
    sleep 0.2
  done
  if [ "$outcome" != exited ]; then
    dump_guest "$qemu_pid" "$monitor_dir/monitor.sock"
    kill "$qemu_pid" 2>/dev/null || true
  fi
  rm -rf "$monitor_dir"
  wait "$qemu_pid" || rc=$?
  trap - INT TERM
  [ -n "$tail_pid" ] && wait "$tail_pid" 2>/dev/null || true
  local total
  total=$(elapsed "$start")
  {
    echo "guest_kernel=$version"
    echo "attempt=$attempt"
    echo "outcome=$outcome"
    echo "boot_to_job_seconds=${boot_to_job:-none}"
    echo "guest_uptime_at_job_start=$(cat "$results/guest-uptime-at-job-start" 2>/dev/null || echo none)"
    echo "run_wall_seconds=$total"
    echo "qemu_exit=$rc"
  } > "$results/timing.txt"

  if [ "${RINGWIRE_VM_VERBOSE:-0}" != 1 ]; then
    log "guest console (last 40 lines of $console):"
    tail -n 40 "$console" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >&2 || true
  fi
  log "boot to job ${boot_to_job:-never}${boot_to_job:+s}, run ${total}s, qemu exit $rc"
  if [ "$outcome" = exited ]; then
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      log "qemu killed after ${timeout_s}s: the guest did not power off in time"
    elif [ "$rc" -ne 0 ]; then
      log "qemu failed with exit code $rc (see $console)"
    fi
  fi
}

case "${1:-}" in
  prepare) [ $# -eq 1 ] || usage; prepare ;;
  run) shift; run "$@" ;;
  *) usage ;;
esac
