#!/bin/sh
# Install every package harness needs to build and test, by distribution (Debian or Ubuntu, from
# /etc/os-release), and the workflow linter into build/tools; a fast no-op when all are present.
# Runtimes and PostgreSQL come from npm as pinned images (harness images pull), not from apt.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

COMMON="build-essential pkg-config git
libseccomp-dev libcap-dev libcurl4-openssl-dev libcjson-dev libarchive-dev libssl-dev
libcmocka-dev bats clang clang-format shellcheck
qemu-system-x86 busybox-static cpio xz-utils zstd
iproute2 python3 util-linux procps openssl hyperfine wrk nghttp2-client bubblewrap"

id=unknown
like=""
# shellcheck disable=SC1091
[ -r /etc/os-release ] && . /etc/os-release && id=${ID:-unknown} && like=${ID_LIKE:-}
case "$id $like" in
debian*)
	# the guest boots Debian's kernel (tests/guest); npm comes with nodejs or as its own package
	# chromium: the HTML report's tests render the page headless
	# postgresql-15: the test of a user's host-sourced fixture manifest (the shipped image is npm's)
	PACKAGES="$COMMON linux-image-amd64 nodejs chromium postgresql-15"
	;;
ubuntu*)
	# the guest boots the runner's own kernel when its 9p modules are there, else it is skipped with the
	# reason; apt's nodejs is 18 on 24.04, enough for npm (the benchmarked runtimes are npm images)
	# Ubuntu's chromium is a snap stub; GitHub's runners have Google Chrome installed
	PACKAGES="$COMMON nodejs"
	;;
*)
	echo "make deps: $id is neither Debian nor Ubuntu; install the equivalents of: $COMMON nodejs npm" >&2
	exit 2
	;;
esac

missing=""
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	"install ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
command -v npm >/dev/null 2>&1 || missing="$missing npm"

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "make deps: missing packages:$missing; run 'sudo make deps' or install them with apt-get" >&2
		exit 2
	fi
	echo "make deps: installing$missing ($id)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

# The workflow and action linter (tests/lint.sh), pinned, from the machine's npm configuration.
validator="@action-validator/cli@0.6.0"
if [ ! -x "$top/build/tools/node_modules/.bin/action-validator" ]; then
	mkdir -p "$top/build/tools"
	npm install --silent --no-audit --no-fund --prefix "$top/build/tools" "$validator" ||
		echo "make deps: could not install $validator (tests/lint.sh will skip the workflow check)" >&2
fi
