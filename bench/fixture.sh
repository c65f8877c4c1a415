#!/usr/bin/env bash
# Benchmark: how long the Postgres fixture takes from nothing to a successful login (the trial's
# fixture.ready_ms: sandbox, slice, the overlay of the cached template, postgres's start, a SCRAM login and
# SELECT 1), against the usual way to start a server on the same data, `pg_ctl start -w` (no sandbox, no slice;
# pg_ctl waits with its own ping) on a copy of the same template made beforehand on a tmpfs (the copy not timed:
# the peer gets its data for free), and the moment that postgres logs it is ready, which pg_ctl sees only at
# its next poll (every 100 ms). Rounds alternate, one harness trial then one pg_ctl start. Prints both
# medians, the ratio, and the fixture's stop time.
#   bench/fixture.sh [ROUNDS]   (at least 10)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-10}
harness=$top/bin/harness
[ "$rounds" -ge 10 ] || { echo "bench-fixture: at least 10 rounds (medians)" >&2; exit 2; }
bin=$(dirname "$("$harness" images path postgres15 2>/dev/null || echo /nonexistent/postgres)")
[ -x "$bin/pg_ctl" ] || { echo "bench-fixture: the postgres15 image is missing (harness images pull postgres15)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "bench-fixture: needs root (sandboxes, cgroups)" >&2; exit 3; }
uid=$(awk '/^#define SBX_UID/{print $3}' "$top/harness/sandbox/sbx_userns.h") # the template's owner
out=$(mktemp -d)
peer=/dev/shm/harness-bench-pg-$$ # the peer's data, a copy of the template
as_user=(setpriv --reuid="$uid" --regid="$uid" --clear-groups --)
cleanup() {
	# a peer left running by a failed round is stopped, by its own data folder
	[ ! -f "$peer/postmaster.pid" ] || "${as_user[@]}" "$bin/pg_ctl" -D "$peer" -s -m immediate stop || true
	rm -rf "$out" "$peer" "$peer.log"
}
trap cleanup EXIT

# A postgres scenario that does almost nothing: the trial is the fixture's start and stop.
cp -r "$top/scenarios/postgres" "$out/pg"
python3 - "$out/pg/scenario.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["iterations"] = 100
json.dump(d, open(sys.argv[1], "w"))
PY
harness_once() {
	"$harness" run --cpus 1 --runtimes node20 --repeat 1 --format json --out "$out/r$1.json" "$out/pg" >/dev/null \
		2>"$out/err" || { tail -5 "$out/err" >&2; exit 1; }
}

pg_ctl_once() {
	local data=$peer t0 t1
	cp -a "$tmpl" "$data"
	t0=$(date +%s%N)
	"${as_user[@]}" "$bin/pg_ctl" -D "$data" -s -w -l "$data.log" -o \
		"-c port=55433 -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c log_line_prefix=%n_" start
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) >>"$out/pg_ctl.us"
	# postgres's own moment of readiness (its log's epoch time, %n), which pg_ctl sees only at its next poll
	awk -F_ -v t0="$t0" '/ready to accept connections/ {printf "%d\n", ($1 * 1e6 - t0 / 1e3); exit}' \
		"$data.log" >>"$out/pg_ready.us"
	"${as_user[@]}" "$bin/pg_ctl" -D "$data" -s -m fast stop
	rm -rf "$data" "$data.log"
}

harness_once 0 # makes the template when this harness's layout has none yet; not counted
tmpl=$(ls -dt "${HARNESS_CACHE_DIR:-/var/cache/harness}"/fixtures/postgres15-*/pgdata | head -1)
for i in $(seq "$rounds"); do
	harness_once "$i"
	pg_ctl_once
done

python3 - "$out" "$rounds" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
fx = [t["fixture"] for i in range(1, rounds + 1) for t in json.load(open("%s/r%d.json" % (out, i)))["trials"]
      if t["status"] == "ok"]
ready = statistics.median(f["ready_ms"] for f in fx)
stop = statistics.median(f["stop_ms"] for f in fx)
peer = statistics.median(int(l) / 1e3 for l in open(out + "/pg_ctl.us"))
ready_lines = [int(l) / 1e3 for l in open(out + "/pg_ready.us")] if os.path.exists(out + "/pg_ready.us") else []
own = "%7.1f ms" % statistics.median(ready_lines) if ready_lines else "    n/a (no such line in its log)"
print("Postgres 15 from the cached template to a successful login, medians of %d alternated rounds:" % len(fx))
print("  pg_ctl start -w (a ready tmpfs copy, no sandbox)                  %7.1f ms" % peer)
print("    of which postgres logged \"ready to accept connections\" at      %s (pg_ctl polls every 100 ms)" % own)
print("  harness fixture (sandbox, slice, overlay, SCRAM login + SELECT 1) %7.1f ms   ratio %.2f   (budget 150 ms: %s)"
      % (ready, ready / peer, "met" if ready <= 150 else "NOT met"))
print("  harness fixture fast shutdown                                     %7.1f ms" % stop)
PY
