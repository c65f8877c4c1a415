#!/usr/bin/env bash
# Benchmark: what the load client's timeline costs. The C hello server pinned to one CPU, harness load pinned to
# the other with 1 thread, with the timeline (the default with --json) and without (--no-timeline), alternated
# round by round so drift hits both alike. Prints each side's median req/s and client CPU µs per request, and
# the paired ratios' medians with their distribution-free 95% CIs (many short rounds: the host's noise here comes
# in seconds, which a pair of short rounds shares) and their spread over the rounds. With MODE duet the two
# loads of a round run at once, both clients on the one CPU and the server on the other, so that every moment of
# the host is shared: the CPU splits evenly between them and each one's req/s is that share over its own cost
# per request (which sides starts first alternates).
#   bench/timeline.sh [ROUNDS] [SECONDS] [CONNS] [MODE: alternate|duet]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-10} secs=${2:-3} conns=${3:-50} mode=${4:-alternate}
case $mode in alternate | duet) ;; *) echo "bench-timeline: MODE is alternate or duet" >&2; exit 2 ;; esac
harness=$top/bin/harness server=$top/build/helpers/hello-server
[ -x "$harness" ] && [ -x "$server" ] || { echo "bench-timeline: build first (make all build/helpers/hello-server)" >&2; exit 3; }
[ "$(nproc)" -ge 2 ] || { echo "bench-timeline: needs 2 CPUs (server and client pinned apart)" >&2; exit 3; }
out=$(mktemp -d)
taskset -c 1 "$server" >"$out/server" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 100); do grep -q '^port' "$out/server" && break; sleep 0.05; done
url="http://127.0.0.1:$(awk '/^port/{print $2}' "$out/server")/"

/usr/bin/python3 - "$url" "$rounds" "$secs" "$conns" "$harness" "$mode" <<'PY'
import json, statistics, subprocess, sys
url, rounds, secs, conns, harness, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
res = {"timeline": [], "none": []}


def start(side):
    argv = ["taskset", "-c", "0", harness, "load", url, "-c", conns, "-t", "1", "-d", secs + "s", "--json"]
    if side == "none":
        argv.append("--no-timeline")
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)


def record(side, p):
    out, _ = p.communicate()
    assert p.returncode == 0, (side, p.returncode)
    d = json.loads(out)
    assert (side == "timeline") == ("timeline" in d)
    if side == "timeline":
        assert sum(d["timeline"]["requests"]) == d["requests"]
    res[side].append((d["rps"], d["client"]["cpu_us_per_request"]))


for r in range(rounds):
    order = ["timeline", "none"] if r % 2 == 0 else ["none", "timeline"]
    if mode == "duet":
        procs = [(side, start(side)) for side in order]
        for side, p in procs:
            record(side, p)
    else:
        for side in order:
            record(side, start(side))
ratios = [a[0] / b[0] for a, b in zip(res["timeline"], res["none"])]
costs = [a[1] / b[1] for a, b in zip(res["timeline"], res["none"])]


def median_ci(v):
    # the distribution-free 95% CI of a median: the order statistics the sign test's binomial(n, 1/2) puts
    # 2.5% beyond on each side
    from math import comb
    s, n = sorted(v), len(v)
    k, tail = 0, 0.0
    while k < n and tail + comb(n, k) / 2**n <= 0.025:
        tail += comb(n, k) / 2**n
        k += 1
    return (s[k - 1], s[n - k]) if k else (float("nan"), float("nan"))


for side, v in res.items():
    print(f"{side:9s} median {statistics.median(x[0] for x in v):10.0f} req/s, "
          f"{statistics.median(x[1] for x in v):.3f} client CPU us/request over {len(v)} rounds")
lo, hi = median_ci(ratios)
print(f"{mode}: timeline / none, req/s: median {statistics.median(ratios):.4f} (95% CI {lo:.4f}-{hi:.4f}; "
      f"rounds {min(ratios):.4f} .. {max(ratios):.4f})")
lo, hi = median_ci(costs)
print(f"timeline / none, client CPU per request: median {statistics.median(costs):.4f} (95% CI {lo:.4f}-{hi:.4f})")
PY
