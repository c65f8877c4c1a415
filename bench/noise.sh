#!/usr/bin/env bash
# Benchmark: each noise generator's ops/s alone, and its effect on a pinned victim, a C loop on one CPU
# (tests/helpers/spin-rate: spin, CPU-bound in a register; chase, a random walk over 8 MiB of cache): the
# victim alone, with the noise on another CPU (sharing nothing but what CPUs share: the LLC, memory, the
# disk), and with the noise on its own CPU (sharing the core). Rounds alternate the order; medians.
#   bench/noise.sh [ROUNDS] [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3} secs=${2:-2}
harness=$top/bin/harness
victim=${HARNESS_HELPERS:-$top/build/helpers}/spin-rate
[ -x "$victim" ] || { echo "bench-noise: $victim is missing (make build/helpers/spin-rate)" >&2; exit 3; }
cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
set -- $cpus
[ $# -ge 2 ] || { echo "bench-noise: needs 2 CPUs (this process may use: $cpus)" >&2; exit 3; }
# the victim on the last CPU, the noise apart on the one before it
export BENCH_VICTIM_CPU=${!#} BENCH_OTHER_CPU=$(($# > 1 ? ${@: -2:1} : $1))
io_dir=$(mktemp -d)
trap 'rm -rf "$io_dir"' EXIT

python3 - "$harness" "$victim" "$rounds" "$secs" "$io_dir" <<'PY'
import json, os, statistics, subprocess, sys, time
harness, victim, rounds, secs, io_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
vcpu, ocpu = os.environ["BENCH_VICTIM_CPU"], os.environ["BENCH_OTHER_CPU"]
kinds = ["cpu:1", "cache", "membw", "io", "alloc"]

def noise_cmd(kind, cpu, dur):
    return ["taskset", "-c", cpu, harness, "noise", kind, "--duration", f"{dur}s", "--io-dir", io_dir]

def alone(kind):
    out = subprocess.run(noise_cmd(kind, ocpu, secs), capture_output=True, text=True, check=True).stdout
    return json.loads(out)

def victim_rate(mode, kind=None, cpu=None):
    noise = None
    if kind:
        # the noise runs longer than the victim, which starts once the generator has set up
        noise = subprocess.Popen(noise_cmd(kind, cpu, secs + 1.5), stdout=subprocess.DEVNULL)
        time.sleep(0.5)
    try:
        out = subprocess.run(["taskset", "-c", vcpu, victim, mode, str(secs)], capture_output=True, text=True,
                             check=True).stdout
    finally:
        if noise:
            noise.wait()
    return float(out)

print(f"victim on CPU {vcpu}; noise apart on CPU {ocpu}, or on the victim's CPU; {rounds} rounds of {secs:g} s")
print()
print("%-7s %12s %-7s %-6s %14s %14s %14s %8s %8s" % ("noise", "ops/s alone", "unit", "victim", "victim alone",
      "noise apart", "same CPU", "apart", "same"))
io_fs = "?"
for kind in kinds:
    gen, base, apart, same = [], {"spin": [], "chase": []}, {"spin": [], "chase": []}, {"spin": [], "chase": []}
    for r in range(rounds):
        gen.append(alone(kind))
        for mode in ("spin", "chase"):
            steps = [("base", None), ("apart", ocpu), ("same", vcpu)]
            for name, cpu in (steps if r % 2 == 0 else steps[::-1]):
                v = victim_rate(mode, kind if cpu else None, cpu)
                {"base": base, "apart": apart, "same": same}[name][mode].append(v)
    ops = statistics.median(g["ops_per_s"] for g in gen)
    io_fs = gen[0].get("fs", io_fs)
    for mode in ("spin", "chase"):
        b, a, s = (statistics.median(x[mode]) for x in (base, apart, same))
        print("%-7s %12s %-7s %-6s %14.3g %14.3g %14.3g %7.2fx %7.2fx" % (
            kind if mode == "spin" else "", "%.3g" % ops if mode == "spin" else "",
            gen[0]["unit"] if mode == "spin" else "", mode, b, a, s, a / b, s / b))
print()
print("apart, same: the victim's rate with the noise on another CPU, or on its own, over its rate alone.")
print("io wrote to a file in %s (%s)" % (io_dir, io_fs))
PY
