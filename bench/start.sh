#!/usr/bin/env bash
# Benchmark: what a harness process pays before its verb does any work, against /bin/true (libc's start).
# harness starts itself often: the load client of every trial, every exec, the noise neighbour. Times, with
# hyperfine -N: `harness --version`, the load client's start (`load --help`, and a one-request load against
# the C hello server), a noise generator's start (`noise --help`, and a 1 ms cpu:1 noise, whose millisecond
# of work is in its figure); prints each median and its ratio to /bin/true, and the libraries bin/harness
# links (ldd).
#   bench/start.sh [RUNS]   (HARNESS=path/to/another/build measures that one)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
harness=${HARNESS:-$top/bin/harness} server=$top/build/helpers/hello-server
runs=${1:-300}
command -v hyperfine >/dev/null || { echo "bench-start: hyperfine is missing (make deps)" >&2; exit 3; }
[ -x "$harness" ] && [ -x "$server" ] || { echo "bench-start: build first (make all build/helpers/hello-server)" >&2; exit 3; }
out=$(mktemp -d)
"$server" >"$out/server" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 100); do grep -q '^port' "$out/server" && break; sleep 0.05; done
url="http://127.0.0.1:$(awk '/^port/{print $2}' "$out/server")/"

hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/h.json" \
	-n true /bin/true \
	-n version "$harness --version" \
	-n load-help "$harness load --help" \
	-n load-1-request "$harness load -c 1 -t 1 -n 1 $url" \
	-n noise-help "$harness noise --help" \
	-n noise-cpu-1ms "$harness noise cpu:1 --duration 0.001s" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }

python3 - "$out/h.json" <<'PY'
import json, statistics, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {k: statistics.median(v["times"]) * 1000 for k, v in res.items()}
print("median wall time per start (hyperfine -N, %d runs each):" % len(res["true"]["times"]))
for k in ("true", "version", "load-help", "load-1-request", "noise-help", "noise-cpu-1ms"):
    print("  %-16s %7.2f ms  %5.2fx /bin/true" % (k, med[k], med[k] / med["true"]))
PY
echo "bin/harness links: $(ldd "$harness" | awk '{print $1}' | tr '\n' ' ')"
