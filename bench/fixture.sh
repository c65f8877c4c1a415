#!/usr/bin/env bash
# Benchmark: how long the Postgres fixture takes from nothing to a successful login, against the usual
# way to start a server, `pg_ctl start -w` on a fresh copy of the same template cluster on a tmpfs
# (no sandbox, no slice; pg_ctl waits with its own ping). Both copy the ~28 MB cluster first. Prints
# both medians and the ratio, then the fixture's stop time.
#   bench/fixture.sh [TRIALS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
trials=${1:-7}
harness=$top/bin/harness
bin=$(dirname "$("$harness" images path postgres15 2>/dev/null || echo /nonexistent/postgres)")
[ -x "$bin/pg_ctl" ] || { echo "bench-fixture: the postgres15 image is missing (harness images pull postgres15)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "bench-fixture: needs root (sandboxes, cgroups)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A postgres scenario that does almost nothing: the trial is the fixture's start and stop.
cp -r "$top/scenarios/postgres" "$out/pg"
python3 - "$out/pg/scenario.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["iterations"] = 100
json.dump(d, open(sys.argv[1], "w"))
PY
"$harness" run --cpus 1 --runtimes node20 --repeat "$trials" --format json --out "$out/r.json" "$out/pg" >/dev/null 2>"$out/err" ||
	{ tail -5 "$out/err" >&2; exit 1; }
tmpl=$(ls -d "${HARNESS_CACHE_DIR:-/var/cache/harness}"/fixtures/postgres15-*/pgdata | head -1)

python3 - "$out" "$tmpl" "$bin" "$trials" <<'PY'
import json, os, statistics, subprocess, sys, time
out, tmpl, bin_, trials = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fx = [t["fixture"] for t in json.load(open(out + "/r.json"))["trials"] if t["status"] == "ok"]
ready = statistics.median(f["ready_ms"] for f in fx)
stop = statistics.median(f["stop_ms"] for f in fx)

def pg_ctl_once(i):
    data = "/dev/shm/harness-bench-pg-%d-%d" % (os.getpid(), i)
    as_user = ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", "--"]
    t0 = time.monotonic()
    subprocess.run(["cp", "-a", tmpl, data], check=True)
    subprocess.run(as_user + [bin_ + "/pg_ctl", "-D", data, "-s", "-w", "-l", data + ".log", "-o",
                    "-c port=55433 -c listen_addresses=127.0.0.1 -c unix_socket_directories=/dev/shm -c fsync=off",
                    "start"], check=True)
    ms = (time.monotonic() - t0) * 1e3
    subprocess.run(as_user + [bin_ + "/pg_ctl", "-D", data, "-s", "-m", "fast", "stop"], check=True)
    subprocess.run(["rm", "-rf", data, data + ".log"], check=True)
    return ms

peer = statistics.median(pg_ctl_once(i) for i in range(trials))
print("Postgres 15 from a copy of the template to a successful login, median of %d:" % len(fx))
print("  pg_ctl start -w (tmpfs copy, no sandbox)   %7.1f ms" % peer)
print("  harness fixture (sandbox, slice, tmpfs copy, SCRAM login + SELECT 1)  %7.1f ms   ratio %.2f" %
      (ready, ready / peer))
print("  harness fixture fast shutdown              %7.1f ms" % stop)
PY
