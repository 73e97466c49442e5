#!/usr/bin/env bash
# scripts/fresh_debian_check.sh: tries the README on a fresh Debian 12 the way a new user would,
# in a chroot: a minimal bookworm, `apt-get install git make`, a clone of this repository's HEAD,
# `make test`, then the web conformance subset benchmark (bench/web_subset_bench.sh) N times.
# Needs root (debootstrap, chroot, mounts). Logs land in RUN_DIR/root/*.log; the summary on stdout.
#
#   scripts/fresh_debian_check.sh RUN_DIR [BENCH_RUNS]      e.g. /srv/parity-run2 1
#
# A minimal base is made once with debootstrap into $PARITY_CHROOT_BASE (default
# /srv/parity-base) and copied for every run, so each run starts from the same untouched system.
# The host's apt sources, apt registry settings and ~/.npmrc are copied in so the chroot reaches
# the same package registries the host does; nothing else of the host is shared.
set -euo pipefail
run=${1:?usage: scripts/fresh_debian_check.sh RUN_DIR [BENCH_RUNS]}
bench_runs=${2:-1}
base=${PARITY_CHROOT_BASE:-/srv/parity-base}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "fresh_debian_check: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
[ ! -e "$run" ] || { echo "fresh_debian_check: $run exists; pick a new RUN_DIR" >&2; exit 2; }

if [ ! -x "$base/bin/bash" ]; then
  echo "fresh_debian_check: debootstrap bookworm into $base"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian
fi
cp -a "$base" "$run"
cp /etc/resolv.conf "$run/etc/resolv.conf"
cp /etc/apt/sources.list.d/*.sources "$run/etc/apt/sources.list.d/" 2>/dev/null || true
cp /etc/apt/apt.conf.d/99* "$run/etc/apt/apt.conf.d/" 2>/dev/null || true
[ -f "$HOME/.npmrc" ] && cp "$HOME/.npmrc" "$run/root/.npmrc"

mounts=(proc sys dev dev/pts dev/shm)
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "$run/${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount -t proc proc "$run/proc"
mount -t sysfs sysfs "$run/sys"
mount --bind /dev "$run/dev"
mount --bind /dev/pts "$run/dev/pts"
mount -t tmpfs tmpfs "$run/dev/shm"  # Chromium's shared memory

git clone --quiet --no-local "$repo" "$run/root/parity"
echo "fresh_debian_check: $(git -C "$run/root/parity" log --oneline -1)"

in_chroot() { chroot "$run" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb "$@"; }
start=$(date +%s)
in_chroot bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git make' \
  >"$run/root/prereq.log" 2>&1
rc=0
in_chroot bash -c 'cd /root/parity && PARITY_CI=1 make test' >"$run/root/make-test.log" 2>&1 || rc=$?
echo "fresh_debian_check: make test exit $rc after $(( $(date +%s) - start )) s"
grep -E "tests passed|tests failed" "$run/root/make-test.log" || tail -20 "$run/root/make-test.log"
[ "$rc" = 0 ] || exit 1
status=0
for ((i = 1; i <= bench_runs; i++)); do
  in_chroot bash -c 'cd /root/parity && bench/web_subset_bench.sh build 1' >"$run/root/bench-$i.log" 2>&1 || status=1
  echo "fresh_debian_check: bench run $i: $(tail -1 "$run/root/bench-$i.log")"
done
exit $status
