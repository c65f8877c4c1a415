#!/usr/bin/env bash
# Runs integration suites inside a qemu guest whose cgroups are real v2 with controllers (the
# development and CI hosts only have controllers on v1). The guest boots Debian's kernel with a
# busybox initramfs and sees the host's /usr, /etc and this checkout read-only over virtio-9p, so
# it runs the same harness binary and bats files. TAP comes back through a writable share.
# Each test's TAP line is printed as the guest writes it; when none came for HARNESS_GUEST_HANG_S seconds (600),
# what every process of the guest waits on is printed and the guest ends.
#   tests/guest/run-guest.sh [BATS_FILE...]   (default: the cgroup suites; HARNESS_GUEST_FILTER: bats -f)
#   tests/guest/run-guest.sh --command 'CMD'  (CMD run by bash in the checkout instead, its output printed as it
#                                             comes and its status the script's: make bench-sandbox-guest)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${HARNESS_BUILD:-$top/build}
work=$build/guest
command=""
if [ "${1:-}" = --command ]; then
	[ $# -eq 2 ] && [ -n "$2" ] || { echo "run-guest.sh: --command takes one non-empty command" >&2; exit 2; }
	command=$2
	shift 2
fi
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(tests/integration/exec.bats tests/integration/sandbox.bats tests/integration/doctor.bats
	tests/integration/fixture-slice.bats tests/integration/isolation.bats)

# HARNESS_GUEST_OPTIONAL=1 (a GitHub runner): a machine that cannot boot the guest skips it with the
# reason even when HARNESS_MUST_WORK=1 requires every other test.
skip_all() {
	if [ -n "$command" ]; then
		echo "run-guest.sh: the cgroup v2 guest cannot start: $1" >&2
		exit 3
	fi
	if [ "${HARNESS_MUST_WORK:-0}" = 1 ] && [ "${HARNESS_GUEST_OPTIONAL:-0}" != 1 ]; then
		echo "not ok 1 cgroup v2 guest # cannot start: $1"
		exit 1
	fi
	echo "1..1"
	echo "ok 1 cgroup v2 guest # skip $1"
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "needs root"
command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86 is not installed (make deps)"
# busybox-static installs a static /bin/busybox; the dynamic busybox package would not run as PID 1.
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' ||
	skip_all "busybox-static is not installed (make deps)"

# The newest installed kernel with 9p (Debian's linux-image-amd64, or the runner's own on Ubuntu), as a
# module or built in.
has_9p() {
	[ -d "/lib/modules/$1/kernel/fs/9p" ] || grep -qs 'fs/9p/9p.ko' "/lib/modules/$1/modules.builtin"
}
kver=""
for k in $(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' 2>/dev/null | sed 's/^vmlinuz-//' | sort -V); do
	[ -r "/boot/vmlinuz-$k" ] && has_9p "$k" && kver=$k
done
[ -n "$kver" ] || skip_all "no readable /boot/vmlinuz-* whose modules have 9p (Debian: install linux-image-amd64; make deps)"

mkdir -p "$work"
# qemu boots an uncompressed ELF vmlinux (PVH) ~2x faster than the bzImage; on Debian it is the xz payload.
# Other kernels (Ubuntu's zstd ones) boot as the bzImage itself.
kernel=/boot/vmlinuz-$kver
vmlinux=$work/vmlinux-$kver
if [ ! -s "$vmlinux" ]; then
	off=$(grep -abo -m1 $'\xfd7zXZ\x00' "/boot/vmlinuz-$kver" | head -1 | cut -d: -f1 || true)
	if [ -n "$off" ]; then
		tail -c +$((off + 1)) "/boot/vmlinuz-$kver" | xz -dc >"$vmlinux.tmp" 2>/dev/null || true
		[ -s "$vmlinux.tmp" ] && mv "$vmlinux.tmp" "$vmlinux"
		rm -f "$vmlinux.tmp"
	fi
fi
[ -s "$vmlinux" ] && kernel=$vmlinux

initrd=$work/initrd-$kver.cpio
if [ ! -s "$initrd" ] || [ "$here/init" -nt "$initrd" ]; then
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,dev,proc,sys,mnt,modules}
	cp /bin/busybox "$root/bin/busybox"
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci 9pnet 9pnet_virtio \
		netfs fscache 9p overlay; do
		# Debian ships .ko, Ubuntu .ko.zst; busybox insmod takes the plain one; built-in ones are absent
		f=$(find "/lib/modules/$kver/kernel" -name "$m.ko" -o -name "$m.ko.zst" -o -name "$m.ko.xz" | head -1)
		case $f in
		*.zst) zstd -dcq "$f" >"$root/modules/$m.ko" ;;
		*.xz) xz -dc "$f" >"$root/modules/$m.ko" ;;
		?*) cp "$f" "$root/modules/" ;;
		esac
	done
	cp "$here/init" "$root/init"
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$initrd.tmp"
	rm -rf "$root"
	mv "$initrd.tmp" "$initrd"
fi

# The host's image cache, read-only: the guest has no network, and its runtimes and Postgres are the same
# pinned trees the host runs (the guest links them into a cache of its own).
cache=${HARNESS_CACHE_DIR:-/var/cache/harness}
cache_share=()
# shellcheck disable=SC2054 # qemu's option values are comma-separated
[ -d "$cache/trees" ] && cache_share=(-fsdev "local,id=cache,path=$cache,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=cache,mount_tag=cache)

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
printf '%s\n' "${suites[@]}" >"$results/suites"
echo "${HARNESS_MUST_WORK:-0}" >"$results/must_work"
echo "$build/helpers" >"$results/helpers"
printf '%s' "${HARNESS_GUEST_FILTER:-}" >"$results/filter"
printf '%s' "$command" >"$results/command"
echo "${HARNESS_GUEST_HANG_S:-600}" >"$results/hang_s"
: >"$results/tap"

# -smp 4 gives the allocator room (HARNESS_GUEST_SMP=6 for cpus4.bats: `run --cpus 4` with a client of 2); TCG
# with thread=multi runs vCPUs in parallel (KVM is not usable on the development hosts). 2 GiB is plenty for
# the OOM tests and two runtimes at once. softlockup_panic ends a guest whose kernel locked up (seen here
# once, early in a boot with 6 vCPUs on a loaded 2-CPU host: two tasks spinning in the kernel for 16 minutes)
# within a minute instead of at the 25-minute timeout.
boot() {
	timeout 1500 qemu-system-x86_64 -accel tcg,thread=multi -M q35 -cpu max -smp "${HARNESS_GUEST_SMP:-4}" -m 2048 \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 psi=1 watchdog_thresh=30 softlockup_panic=1 harness.top=$top" \
		-nographic -no-reboot -nodefaults -serial file:"$results/console" \
		-fsdev local,id=usr,path=/usr,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=usr,mount_tag=usr \
		-fsdev local,id=etc,path=/etc,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=etc,mount_tag=etc \
		-fsdev local,id=top,path="$top",security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=top,mount_tag=top \
		"${cache_share[@]}" \
		-fsdev local,id=results,path="$results",security_model=none \
		-device virtio-9p-pci,fsdev=results,mount_tag=results &
	qemu=$!
	# The guest writes its TAP to the shared folder as bats goes: show each line as it comes, but not a line
	# an earlier boot already showed (a second boot runs the suites again from the start).
	tail -n +1 -f --pid="$qemu" "$results/tap" | { grep --line-buffered -Fxv -f "$results/shown" || true; } |
		tee -a "$results/shown" &
	tailer=$!
	wait "$qemu" || true
	wait "$tailer" || true
}

: >"$results/shown"
for attempt in 1 2; do
	rm -f "$results/status" "$results/hang"
	: >"$results/tap"
	boot
	[ ! -f "$results/status" ] || break
	# A kernel that locked up is the emulator's hazard, not a test's verdict: say so, and boot once more.
	if [ "$attempt" = 1 ] && grep -qE 'soft lockup|rcu_preempt self-detected stall|Kernel panic' "$results/console"; then
		echo "# the guest's kernel locked up (emulated CPUs on a loaded host); booting it again. Its console:"
		grep -E 'soft lockup|stall|panic' "$results/console" | head -5 | sed 's/^/#   /'
		continue
	fi
	break
done

if [ ! -f "$results/status" ]; then
	if [ -s "$results/hang" ]; then
		echo "not ok 1 cgroup v2 guest: a test hung; what its processes waited on:"
		sed 's/^/# /' "$results/hang" | head -400
	else
		echo "not ok 1 cgroup v2 guest did not finish; its console:"
		sed 's/^/# /' "$results/console" | tail -40
	fi
	exit 1
fi
exit "$(cat "$results/status")"
