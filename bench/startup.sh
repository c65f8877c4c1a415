#!/usr/bin/env bash
# Benchmark: harness load --startup against hyperfine -N on `node hello.js`, alternated ROUNDS times,
# both as plain fork/exec with the same environment (like with like). Prints each median and their
# ratio; then the same series sandboxed (fresh sandbox per run, environment from scratch) for context.
#   bench/startup.sh [ROUNDS] [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-4} runs=${2:-30}
harness=$top/bin/harness
command -v hyperfine >/dev/null || { echo "bench-startup: hyperfine is missing (make deps)" >&2; exit 3; }
command -v node >/dev/null || { echo "bench-startup: node is missing" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo 'console.log("hello")' >"$out/hello.js"
node=$(command -v node)

python3 - "$harness" "$node" "$out" "$rounds" "$runs" <<'PY'
import json, statistics, subprocess, sys
harness, node, out, rounds, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
script = out + "/hello.js"

def hyperfine():
    subprocess.run(["hyperfine", "-N", "--warmup", "5", "--runs", runs, "--export-json", out + "/h.json",
                    f"{node} {script}"], capture_output=True, check=True)
    return json.load(open(out + "/h.json"))["results"][0]["median"] * 1e3

def harness_plain():
    o = subprocess.run([harness, "load", "--startup", "--no-sandbox", "-w", "5", "-r", runs, "--json", "--",
                        node, script], capture_output=True, text=True, check=True).stdout
    return json.loads(o)["wall_ms"]["median"]

def harness_sandboxed():
    o = subprocess.run([harness, "load", "--startup", "-w", "5", "-r", runs, "--json", "--bind",
                        f"{script}:/scenario/hello.js", "--", node, "/scenario/hello.js"],
                       capture_output=True, text=True, check=True).stdout
    return json.loads(o)["wall_ms"]["median"]

res = {"hyperfine": [], "harness": []}
for i in range(rounds):
    order = (("hyperfine", hyperfine), ("harness", harness_plain))
    for name, fn in order if i % 2 == 0 else order[::-1]:
        res[name].append(fn())
        print("round %d %-10s median %7.2f ms" % (i + 1, name, res[name][-1]), flush=True)
h, m = statistics.median(res["hyperfine"]), statistics.median(res["harness"])
print("\nnode hello.js, plain fork/exec, %d rounds of %s runs (this machine's environment):" % (rounds, runs))
print("  hyperfine -N          %7.2f ms" % h)
print("  harness load --startup %7.2f ms   ratio %.3f (%+.1f%%)" % (m, m / h, (m / h - 1) * 100))
try:
    s = harness_sandboxed()
    print("  sandboxed, pinned, environment from scratch: %7.2f ms" % s)
except subprocess.CalledProcessError as e:
    print("  sandboxed: not run (%s)" % (e.stderr or "needs root").strip().splitlines()[-1])
PY
