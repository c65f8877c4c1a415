#!/bin/sh
# Install every Debian package harness needs to build and test; a fast no-op when all are present.
set -eu

PACKAGES="build-essential pkg-config git
libseccomp-dev libcap-dev libcurl4-openssl-dev libcjson-dev libarchive-dev libssl-dev
libcmocka-dev bats clang clang-format
qemu-system-x86 linux-image-amd64 busybox-static
iproute2 python3 nodejs postgresql-15 cpio xz-utils util-linux procps openssl hyperfine wrk bubblewrap chromium"

missing=""
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	"install ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
# npm ships inside the nodejs package on some machines and as its own package on others.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "make deps: missing packages:$missing; run 'sudo make deps' or install them with apt-get" >&2
	exit 2
fi
echo "make deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
