#!/usr/bin/env bash
# Benchmark: harness load against wrk on the same server. The C hello server is pinned to one CPU
# (fast enough that the client, not the server, is the limit); wrk and harness load are pinned to
# another with the same threads and connections, alternated ROUNDS times. Prints each one's median
# req/s, p99, and CPU µs per request (from the children's rusage), and the ratios.
#   bench/load.sh [ROUNDS] [SECONDS] [CONNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5} secs=${2:-5} conns=${3:-50}
harness=$top/bin/harness server=$top/build/helpers/hello-server
command -v wrk >/dev/null || { echo "bench-load: wrk is missing (make deps)" >&2; exit 3; }
[ -x "$harness" ] && [ -x "$server" ] || { echo "bench-load: build first (make all build/helpers/hello-server)" >&2; exit 3; }
[ "$(nproc)" -ge 2 ] || { echo "bench-load: needs 2 CPUs (server and client pinned apart)" >&2; exit 3; }

out=$(mktemp -d)
taskset -c 1 "$server" >"$out/server" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 100); do grep -q '^port' "$out/server" && break; sleep 0.05; done
url="http://127.0.0.1:$(awk '/^port/{print $2}' "$out/server")/"

python3 - "$url" "$rounds" "$secs" "$conns" "$harness" <<'PY'
import json, re, resource, statistics, subprocess, sys
url, rounds, secs, conns, harness = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def unit(v, u):
    return float(v) * {"us": 1, "ms": 1e3, "s": 1e6}[u]

def run_wrk():
    c0 = cpu()
    out = subprocess.run(["taskset", "-c", "0", "wrk", "-t1", f"-c{conns}", f"-d{secs}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    c = cpu() - c0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    reqs = int(re.search(r"(\d+) requests in", out).group(1))
    p99 = unit(*re.search(r"99%\s+([\d.]+)(us|ms|s)", out).groups())
    return rps, p99, c * 1e6 / reqs

def run_harness():
    c0 = cpu()
    out = subprocess.run(["taskset", "-c", "0", harness, "load", url, "-t", "1", "-c", conns, "-d", f"{secs}s",
                          "--json"], capture_output=True, text=True, check=True).stdout
    c = cpu() - c0
    d = json.loads(out)
    return d["rps"], d["latency_us"]["p99"], c * 1e6 / d["requests"]

res = {"wrk": [], "harness": []}
for i in range(rounds):
    for name, fn in (("wrk", run_wrk), ("harness", run_harness)) if i % 2 == 0 else (("harness", run_harness), ("wrk", run_wrk)):
        res[name].append(fn())
        print("round %d %-8s %10.0f req/s  p99 %7.0f us  %5.2f us CPU/request" % ((i + 1, name) + res[name][-1]), flush=True)
med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in res.items()}
print("\nmedians over %d rounds of %ss, 1 thread, %s connections, server and client on separate CPUs:" % (rounds, secs, conns))
for k in ("wrk", "harness"):
    print("  %-8s %10.0f req/s  p99 %7.0f us  %5.2f us CPU per request" % ((k,) + tuple(med[k])))
print("ratio harness/wrk: req/s %.3f, p99 %.3f, CPU per request %.3f"
      % (med["harness"][0] / med["wrk"][0], med["harness"][1] / med["wrk"][1], med["harness"][2] / med["wrk"][2]))
PY
