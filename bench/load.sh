#!/usr/bin/env bash
# Benchmark: harness load (each engine: epoll, io_uring) against wrk and h2load on the same server. The C
# hello server is pinned to one CPU (fast enough that the client, not the server, is the limit); every
# client is pinned to another with 1 thread and the same connections, the order rotated each round. Prints
# each one's median req/s, p99, CPU µs per request (from the children's rusage: user + system) and requests
# per client-CPU-second, and the ratios to wrk; then the same with BIG connections (RLIMIT_NOFILE raised to
# fit, or the case is skipped with the reason).
#   bench/load.sh [ROUNDS] [SECONDS] [CONNS] [BIG]
# BASELINE=path/to/an/older/harness adds it as one more client ("before": its default engine), to show a
# change against the build it replaces.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5} secs=${2:-5} conns=${3:-50} big=${4:-10000}
harness=$top/bin/harness server=$top/build/helpers/hello-server
command -v wrk >/dev/null || { echo "bench-load: wrk is missing (make deps)" >&2; exit 3; }
[ -x "$harness" ] && [ -x "$server" ] || { echo "bench-load: build first (make all build/helpers/hello-server)" >&2; exit 3; }
[ "$(nproc)" -ge 2 ] || { echo "bench-load: needs 2 CPUs (server and client pinned apart)" >&2; exit 3; }
command -v h2load >/dev/null || echo "bench-load: h2load is missing (make deps): measured without it" >&2

# descriptors for BIG connections on each side, and a margin
need=$((big + 64))
[ "$(ulimit -n)" -ge "$need" ] || ulimit -n "$need" 2>/dev/null || true

out=$(mktemp -d)
taskset -c 1 "$server" >"$out/server" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 100); do grep -q '^port' "$out/server" && break; sleep 0.05; done
url="http://127.0.0.1:$(awk '/^port/{print $2}' "$out/server")/"

python3 - "$url" "$rounds" "$secs" "$conns" "$big" "$harness" "$out" "${BASELINE:-}" <<'PY'
import json, os, re, resource, shutil, statistics, subprocess, sys
url, rounds, secs, conns, big, harness, tmp, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8]

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def unit(v, u):
    return float(v) * {"us": 1, "ms": 1e3, "s": 1e6}[u]

def timed(argv):
    c0 = cpu()
    out = subprocess.run(["taskset", "-c", "0"] + argv, capture_output=True, text=True, check=True).stdout
    return out, cpu() - c0

def run_wrk(c):
    out, used = timed(["wrk", "-t1", f"-c{c}", f"-d{secs}s", "--latency", url])
    reqs = int(re.search(r"(\d+) requests in", out).group(1))
    return (float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            unit(*re.search(r"99%\s+([\d.]+)(us|ms|s)", out).groups()), used * 1e6 / reqs)

def run_h2load(c):
    # h2load prints no percentiles: its per-request log (duration in µs, third column) gives p99
    log = os.path.join(tmp, "h2load.log")
    out, used = timed(["h2load", "--h1", "-t1", f"-c{c}", f"-D{secs}", f"--log-file={log}", url])
    reqs = int(re.search(r"requests: \d+ total, \d+ started, (\d+) done", out).group(1))
    with open(log) as f:
        d = sorted(int(l.split("\t")[2]) for l in f if l.strip())
    os.unlink(log)
    return (float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out).group(1)),
            float(d[min(len(d) - 1, int(0.99 * len(d)))]) if d else float("nan"), used * 1e6 / reqs)

def run_harness(engine, binary=harness):
    def run(c):
        out, used = timed([binary, "load", url] + (["--engine", engine] if engine else []) +
                          ["-t", "1", "-c", str(c), "-d", f"{secs}s", "--json"])
        d = json.loads(out)
        assert not engine or d["engine"] == engine, d["engine"]
        return d["rps"], d["latency_us"]["p99"], used * 1e6 / d["requests"]
    return run

tools = [("wrk", run_wrk), ("epoll", run_harness("epoll")), ("io_uring", run_harness("io_uring"))]
if shutil.which("h2load"):
    tools.append(("h2load", run_h2load))
if baseline:
    tools.append(("before", run_harness(None, baseline)))

def case(c, nrounds):
    res = {name: [] for name, _ in tools}
    for i in range(nrounds):
        order = tools[i % len(tools):] + tools[:i % len(tools)]
        for name, fn in order:
            try:
                res[name].append(fn(c))
            except (subprocess.CalledProcessError, AttributeError, ValueError, AssertionError) as e:
                print("round %d %-8s failed: %s" % (i + 1, name, e), flush=True)
                continue
            print("round %d %-8s %10.0f req/s  p99 %8.0f us  %5.2f us CPU/request" % ((i + 1, name) + res[name][-1]), flush=True)
    med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in res.items() if v}
    print("\nmedians over %d rounds of %ss, 1 thread, %d connections, server and client on separate CPUs:" % (nrounds, secs, c))
    print("  %-10s %10s %10s %12s %14s" % ("client", "req/s", "p99 us", "CPU us/req", "req/CPU-s"))
    for k in med:
        print("  %-10s %10.0f %10.0f %12.2f %14.0f" % (k, med[k][0], med[k][1], med[k][2], 1e6 / med[k][2]))
    if "wrk" in med:
        w = med["wrk"]
        for k in med:
            if k != "wrk":
                print("ratio %s/wrk: req/s %.3f, p99 %.3f, CPU per request %.3f, requests per CPU-second %.2f"
                      % (k, med[k][0] / w[0], med[k][1] / w[1], med[k][2] / w[2], w[2] / med[k][2]))
    print(flush=True)

case(conns, rounds)
soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
if big <= 0:
    pass
elif soft < big + 64:
    print("%d connections: skipped, RLIMIT_NOFILE is %d and cannot be raised here (ulimit -Hn)" % (big, soft))
else:
    case(big, max(1, (rounds + 1) // 2))
PY
