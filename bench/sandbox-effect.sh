#!/usr/bin/env bash
# Benchmark: does the sandbox change what it measures? The same trials (http-hello req/s and startup, bun and
# node24, one pinned CPU) in the sandbox and out of it (`harness run --no-sandbox`: same slice, CPU set, network
# namespace, environment and user; no namespaces, root or seccomp filter of its own), alternated ALTS times, the
# order flipped each time. Prints each arm's median over the alternations, the ratio in/out with its bootstrap
# CI and Mann-Whitney p (harness compare, out as A, in as B), the verdict against the 2% target, and the runtime
# slice's system-time share in each arm (where a filter or a namespace would show); then the seccomp filter's
# own cost per system call, cached and argument-checked (tests/helpers/syscall-cost.c, in and out of a sandbox).
#   bench/sandbox-effect.sh [ALTS] [PROFILE]      (defaults: 6 alternations, profile standard)
# HARNESS_SANDBOX_EFFECT_RUNTIMES and _SCENARIOS change what runs (default bun,node24 and http-hello startup).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
alts=${1:-6} profile=${2:-standard}
harness=${HARNESS:-$top/bin/harness}
runtimes=${HARNESS_SANDBOX_EFFECT_RUNTIMES:-bun,node24}
read -r -a scenarios <<<"${HARNESS_SANDBOX_EFFECT_SCENARIOS:-http-hello startup}"
[ "$(id -u)" = 0 ] || { echo "bench-sandbox-effect: harness run needs root here" >&2; exit 3; }
helper=${HARNESS_HELPERS:-$top/build/helpers}/syscall-cost
[ -x "$helper" ] || { echo "bench-sandbox-effect: $helper is missing (make build/helpers/syscall-cost)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for ((i = 0; i < alts; i++)); do
	arms=(in out)
	((i % 2 == 0)) || arms=(out in)
	for arm in "${arms[@]}"; do
		flag=()
		[ "$arm" = in ] || flag=(--no-sandbox)
		if ! "$harness" run --cpus 1 --mode pinned --runtimes "$runtimes" --repeat 1 --profile "$profile" \
			"${flag[@]}" --out "$out/$arm-$i.json" --format json "${scenarios[@]}" >/dev/null 2>"$out/err"; then
			cat "$out/err" >&2
			exit 1
		fi
		python3 - "$out/$arm-$i.json" "$((i + 1))" "$arm" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = []
for t in d["trials"]:
    v = "%.0f req/s" % t["load"]["rps"] if "load" in t else "%.2f ms" % t["startup"]["wall_ms"]["median"]
    cells.append("%s %s %s%s" % (t["scenario"], t["runtime"], v, " (noisy)" if t.get("noisy") else ""))
print("alternation %s %-3s  %s" % (sys.argv[2], sys.argv[3], ", ".join(cells)), flush=True)
PY
	done
done

# Each arm's trials in one file (trial = the alternation), for harness compare.
python3 - "$out" "$alts" <<'PY'
import json, sys
out, alts = sys.argv[1], int(sys.argv[2])
for arm in ("in", "out"):
    docs = [json.load(open("%s/%s-%d.json" % (out, arm, i))) for i in range(alts)]
    trials = []
    for i, d in enumerate(docs):
        for t in d["trials"]:
            trials.append(dict(t, trial=i + 1, order=len(trials) + 1))
    head = {k: v for k, v in docs[0].items() if k not in ("trials", "summaries")}
    json.dump(dict(head, trials=trials), open("%s/%s.json" % (out, arm), "w"))
PY
rc=0
"$harness" compare --format json --fail-on none "$out/out.json" "$out/in.json" >"$out/cmp.json" 2>"$out/err" || rc=$?
[ $rc -eq 0 ] || { cat "$out/err" >&2; exit 1; }

python3 - "$out" "$alts" "$profile" <<'PY'
import json, statistics, sys
out, alts, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cmp = json.load(open(out + "/cmp.json"))
docs = {arm: json.load(open("%s/%s.json" % (out, arm))) for arm in ("in", "out")}

def sys_share(arm, scenario, runtime):
    v = [t["slices"]["sut"]["cpu_system_usec"] / max(1, t["slices"]["sut"]["cpu_system_usec"] + t["slices"]["sut"]["cpu_user_usec"])
         for t in docs[arm]["trials"] if t["scenario"] == scenario and t["runtime"] == runtime and "slices" in t]
    return "%.1f" % (100 * statistics.median(v)) if v else "–"

print("\nin the sandbox (in) against out of it (out, run --no-sandbox): %d alternations, profile %s, one pinned CPU"
      % (alts, profile))
print("what differs: %s" % ", ".join("%s %s → %s" % (d["field"], d["a"], d["b"]) for d in cmp["differences"]))
print("%-11s %-7s %-11s %10s %10s %8s %15s %7s  %-26s %s" % (
    "scenario", "runtime", "metric", "out", "in", "in/out", "95% CI", "p", "verdict (2% target)", "sys% out/in"))
for r in cmp["rows"]:
    if r["metric"] not in ("rps", "startup_median_ms"):
        continue
    # a row with too few trials for any verdict has no CI (docs/statistics.md)
    ratio, lo, hi = r["ratio"], r.get("ci_low", float("nan")), r.get("ci_high", float("nan"))
    # what the sandbox costs, as a share of the bare figure: its estimate and 95% CI
    to_cost = (lambda x: 1 / x - 1) if r["higher_is_better"] else (lambda x: x - 1)
    cost = to_cost(ratio)
    c_lo, c_hi = sorted((to_cost(lo), to_cost(hi)))
    if min(r["a"]["n"], r["b"]["n"]) < 6:
        verdict = "%+.1f%%, too few to say (n=%d)" % (100 * cost, min(r["a"]["n"], r["b"]["n"]))
    elif -0.02 <= c_lo and c_hi <= 0.02:
        verdict = "within 2%% (%+.1f%%)" % (100 * cost)
    elif c_lo > 0.02:
        verdict = "sandbox costs %.1f%%" % (100 * cost)
    elif c_hi < -0.02:
        verdict = "out costs %.1f%%" % (-100 * cost)
    else:
        verdict = "%+.1f%%, CI %+.1f..%+.1f%%" % (100 * cost, 100 * c_lo, 100 * c_hi)
    fmt = "%10.0f %10.0f" if r["metric"] == "rps" else "%10.2f %10.2f"
    print("%-11s %-7s %-11s %s %8.3f %15s %7.3f  %-26s %s/%s" % (
        r["scenario"], r["runtime"], "req/s" if r["metric"] == "rps" else "startup ms",
        fmt % (r["a"]["median"], r["b"]["median"]), ratio, "%.3f–%.3f" % (lo, hi), r["p"], verdict,
        sys_share("out", r["scenario"], r["runtime"]), sys_share("in", r["scenario"], r["runtime"])))
noisy = {arm: sum(1 for t in docs[arm]["trials"] if t.get("noisy")) for arm in docs}
print("noisy trials (counted, not dropped): in %d, out %d of %d each" % (noisy["in"], noisy["out"], len(docs["in"]["trials"])))
PY

# The filter's part: ns per call of a syscall it lets the kernel's cache answer (getppid) and of one whose
# arguments it checks (ioctl), in a sandbox and bare (harness exec --no-sandbox), alternated, same pinned CPU.
for ((i = 0; i < alts; i++)); do
	"$harness" exec --cpus 1 --bind "$helper:/opt/syscall-cost" -- /opt/syscall-cost | sed 's/^/in /'
	"$harness" exec --cpus 1 --no-sandbox -- "$helper" | sed 's/^/out /'
done >"$out/calls"
python3 - "$out/calls" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    arm, call, ns = line.split()
    v.setdefault((call, arm), []).append(float(ns))
print("\nthe seccomp filter's cost per call (median ns over %d alternations, pinned):" % len(v[("getppid", "in")]))
for call, what in (("getppid", "answered from the kernel's cache"), ("ioctl", "arguments checked: the whole filter runs")):
    a, b = statistics.median(v[(call, "in")]), statistics.median(v[(call, "out")])
    print("  %-8s in %7.1f  out %7.1f  filter %+6.1f ns  (%s)" % (call, a, b, a - b, what))
PY
