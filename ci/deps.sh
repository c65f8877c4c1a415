#!/bin/sh
# Install the Debian (or Ubuntu) packages of one dependency set; a fast no-op when all are present.
#   ci/deps.sh run    what building harness and `harness run` need (make deps; make run)
#   ci/deps.sh test   the run set and what the tests need: the guest's kernel and qemu, bats, linters, the
#                     peer tools of the benchmarks, chromium, scipy, and the workflow linter (make test-deps)
# Runtimes and PostgreSQL come from npm as pinned images (harness images pull), not from apt. Run as root
# (sudo) in a checkout owned by someone else, it leaves no root-owned file in the work tree.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
set_name=${1:-run}

# build: compiler, headers of the five libraries and OpenSSL; run: npm names the registry images come from,
# iproute2 and procps for the network namespace and process reads, uidmap for a rootless run's role ids
RUN="build-essential pkg-config git ca-certificates
libseccomp-dev libcap-dev libcurl4-openssl-dev libcjson-dev libarchive-dev libssl-dev
iproute2 util-linux procps openssl uidmap nodejs"
TEST="libcmocka-dev bats clang clang-format shellcheck
qemu-system-x86 busybox-static cpio xz-utils zstd python3 python3-numpy python3-scipy
hyperfine wrk nghttp2-client bubblewrap strace patch"

id=unknown
like=""
# shellcheck disable=SC1091
[ -r /etc/os-release ] && . /etc/os-release && id=${ID:-unknown} && like=${ID_LIKE:-}
case "$id $like" in
debian*)
	# the guest boots Debian's kernel (tests/guest); chromium renders the HTML report's tests headless;
	# postgresql-15: the test of a user's host-sourced fixture manifest (the shipped image is npm's); its
	# service is never started (below)
	TEST="$TEST linux-image-amd64 chromium postgresql-15"
	;;
ubuntu*)
	# the guest boots the runner's own kernel when its 9p modules are there, else it is skipped with the
	# reason; Ubuntu's chromium is a snap stub: GitHub's runners have Google Chrome installed
	;;
*)
	echo "make deps: $id is neither Debian nor Ubuntu; install the equivalents of: $RUN" >&2
	exit 2
	;;
esac
case "$set_name" in
run) PACKAGES=$RUN target=deps ;;
test) PACKAGES="$RUN $TEST" target=test-deps ;;
*)
	echo "ci/deps.sh: unknown set '$set_name' (run or test)" >&2
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
# Debian's npm is a package of its own; a nodejs from elsewhere brings npm and conflicts with it
command -v npm >/dev/null 2>&1 || missing="$missing npm"

# A package whose install would start a service is installed with service starts refused (policy-rc.d, the
# Debian way), unless the machine already has a policy of its own; then the service is disabled.
no_services() {
	policy=/usr/sbin/policy-rc.d
	[ -e "$policy" ] && return 1
	printf '#!/bin/sh\nexit 101\n' >"$policy.harness-deps"
	chmod 0755 "$policy.harness-deps"
	mv "$policy.harness-deps" "$policy"
	return 0
}
disable_postgres() {
	[ -e /etc/init.d/postgresql ] || [ -e /lib/systemd/system/postgresql.service ] || return 0
	if [ -d /run/systemd/system ]; then
		systemctl disable --now postgresql.service >/dev/null 2>&1 || true
	elif command -v update-rc.d >/dev/null 2>&1; then
		update-rc.d postgresql disable >/dev/null 2>&1 || true
	fi
}

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "make $target: missing packages:$missing; run 'sudo make $target' or install them with apt-get" >&2
		exit 2
	fi
	echo "make $target: installing$missing ($id)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	ours=0
	no_services && ours=1
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing || {
		[ "$ours" = 1 ] && rm -f /usr/sbin/policy-rc.d
		exit 1
	}
	[ "$ours" = 1 ] && rm -f /usr/sbin/policy-rc.d
	case " $missing " in *" postgresql-15 "*) disable_postgres ;; esac
fi

[ "$set_name" = test ] || exit 0
# The workflow and action linter (tests/lint.sh), pinned, from the machine's npm configuration, into
# build/tools, owned like the checkout (a root install must not make the work tree root's).
validator="@action-validator/cli@0.6.0"
if [ ! -x "$top/build/tools/node_modules/.bin/action-validator" ]; then
	made=""
	[ -d "$top/build" ] || made="$top/build"
	mkdir -p "$top/build/tools"
	npm install --silent --no-audit --no-fund --prefix "$top/build/tools" "$validator" ||
		echo "make $target: could not install $validator (tests/lint.sh will skip the workflow check)" >&2
	owner=$(stat -c %u:%g "$top")
	if [ "$(id -u)" -eq 0 ] && [ "$owner" != "0:0" ]; then
		chown -R "$owner" "$top/build/tools"
		[ -z "$made" ] || chown "$owner" "$made"
	fi
fi
