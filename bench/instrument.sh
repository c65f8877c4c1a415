#!/usr/bin/env bash
# Benchmark: does harness add noise of its own? Alternates harness's own trial against the bare tool on the same
# pinned setup, ROUNDS times, and compares the run-to-run spread:
#   http:    `harness run http-hello --repeat 1 --cpus 1` (fresh slices, sandboxes, namespace, warm-up, load) against
#            the same runtime serving the same script, started bare with taskset on the CPU harness gave the runtime,
#            warmed up and measured by wrk (1 thread, the scenario's connections) on the CPU harness gave its client;
#   startup: `harness run startup --repeat 1 --cpus 1` against `hyperfine -N` (the scenario's warm-up and runs) on
#            the same script, pinned to the runtime's CPU, in an environment from scratch like the sandbox's.
# One unmeasured round first (both sides: caches, and the CPU sets to pin the bare side to), then the order of the
# two sides swaps every round. Prints each side's median, the CV of the per-round values (the run-to-run spread)
# and a robust one (from the MAD), the ratio of the CVs (target: harness's ≤ 1.1 × the bare tool's), and the
# figures that explain a gap: the order effect, the trend over the rounds, how closely the sides' rounds correlate.
#   bench/instrument.sh [ROUNDS] [PROFILE] [RUNTIME]     (default 10 standard bun; needs root)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-10} profile=${2:-standard} runtime=${3:-bun}
harness=$top/bin/harness
for tool in wrk hyperfine taskset; do
	command -v "$tool" >/dev/null || { echo "bench-instrument: $tool is missing (make deps)" >&2; exit 3; }
done
[ -x "$harness" ] || { echo "bench-instrument: build first (make)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "bench-instrument: needs root (harness run: sandboxes, cgroups)" >&2; exit 3; }
[ "$rounds" -ge 3 ] || { echo "bench-instrument: at least 3 rounds (a CV)" >&2; exit 2; }
bin=$("$harness" images path "$runtime") || { echo "bench-instrument: harness images pull $runtime" >&2; exit 3; }
# the scenario's connections on the bare side too: descriptors for them, and a margin
[ "$(ulimit -n)" -ge 4096 ] || ulimit -n 4096
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp -r "$top/scenarios/http-hello" "$top/scenarios/startup" "$out/"

python3 - "$harness" "$bin" "$runtime" "$profile" "$rounds" "$out" <<'PY'
import json, os, re, signal, socket, statistics, subprocess, sys, time
harness, binary, runtime, profile, rounds, tmp = sys.argv[1:7]
rounds = int(rounds)
# the environment the runtime's sandbox gives it (images/<runtime>.json "env" for bun), nothing of ours
clean_env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8",
             "BUN_INSTALL_CACHE_DIR": tmp + "/bun-install-cache",
             "BUN_RUNTIME_TRANSPILER_CACHE_PATH": tmp + "/bun-transpiler-cache"}
server_script = {"bun": "server-bun.js", "deno": None, "workerd": None}.get(runtime, "server-node.js")
if not server_script:
    sys.exit("bench-instrument: %s: only bun and node serve http-hello with a plain `runtime script` here" % runtime)
placement = {}  # the CPU sets harness gave its slices: where the bare side runs


def harness_trial(scenario):
    path = "%s/%s.json" % (tmp, scenario)
    subprocess.run([harness, "run", scenario, "--runtimes", runtime, "--repeat", "1", "--cpus", "1", "--mode",
                    "pinned", "--profile", profile, "--format", "json", "--out", path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    t = json.load(open(path))["trials"][0]
    assert t["status"] == "ok", t.get("error")
    placement.setdefault("sut", t["cpus"]["sut"])
    placement.setdefault("client", t["cpus"]["client"])
    if scenario == "startup":
        placement.setdefault("runs", t["startup"]["wall_ms"]["n"])
        return t["startup"]["wall_ms"]["median"], t.get("noisy", [])
    placement["connections"] = t["load"]["config"]["connections"]
    placement.setdefault("seconds", max(1, round(t["load"]["duration_s"])))
    return t["load"]["rps"], t.get("noisy", [])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, deadline_s=20):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("the server exited with %d" % proc.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.005)
    raise RuntimeError("the server did not listen within %ds" % deadline_s)


def wrk(port, seconds):
    o = subprocess.run(["taskset", "-c", placement["client"], "wrk", "-t1", "-c%d" % placement["connections"],
                        "-d%ds" % seconds, "http://127.0.0.1:%d/" % port], capture_output=True, text=True,
                       check=True).stdout
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors: .*", o)
    if bad:
        print("  wrk: %s" % bad.group(0).strip(), flush=True)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", o).group(1))


def bare_http():
    # a fresh server each round, as harness starts one per trial; warmed up, then measured as long as harness's load
    port = free_port()
    env = dict(clean_env, PORT=str(port))
    srv = subprocess.Popen(["taskset", "-c", placement["sut"], binary, server_script], cwd=tmp + "/http-hello",
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, srv)
        wrk(port, 1)
        return wrk(port, placement["seconds"]), []
    finally:
        srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(timeout=5)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


def bare_startup():
    path = tmp + "/hyperfine.json"
    warmup = json.load(open(tmp + "/startup/scenario.json"))["warmup"]
    subprocess.run(["taskset", "-c", placement["sut"], "hyperfine", "-N", "--warmup", str(warmup), "--runs",
                    str(placement["runs"]), "--export-json", path, "%s hello.js" % binary],
                   cwd=tmp + "/startup", env=clean_env, capture_output=True, check=True)
    return json.load(open(path))["results"][0]["median"] * 1e3, []


def cv(v):
    return statistics.stdev(v) / statistics.mean(v) if len(v) > 1 and statistics.mean(v) else float("nan")


def robust_cv(v):
    # 1.4826 MAD / median: the spread of the bulk of the rounds, which one disturbed round does not decide
    m = statistics.median(v)
    return 1.4826 * statistics.median(abs(x - m) for x in v) / m


def pearson(a, b):
    ma, mb = statistics.mean(a), statistics.mean(b)
    d = (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / d if d else float("nan")


def spearman(v):
    # rank correlation of the values with the round: a trend over the run (ties are rare in real figures)
    n = len(v)
    rank = {i: r for r, i in enumerate(sorted(range(n), key=lambda i: v[i]))}
    d2 = sum((rank[i] - i) ** 2 for i in range(n))
    return 1 - 6 * d2 / (n * (n * n - 1)) if n > 2 else float("nan")


def case(name, unit, sides):
    got = {s: [] for s, _ in sides}
    by_round = {s: {} for s, _ in sides}
    first = {s: [] for s, _ in sides}
    noisy = {s: 0 for s, _ in sides}
    for i in range(rounds + 1):
        order = sides if i % 2 == 0 else sides[::-1]
        for pos, (side, fn) in enumerate(order):
            try:
                v, flags = fn()
            except (subprocess.CalledProcessError, RuntimeError, AssertionError, AttributeError, KeyError) as e:
                why = getattr(e, "stderr", None) or str(e)
                print("%s round %d %-9s failed: %s" % (name, i, side, str(why).strip().splitlines()[-1:]), flush=True)
                continue
            if i == 0:
                print("%s round 0 %-9s %10.2f %s (not counted: caches, CPU sets)" % (name, side, v, unit), flush=True)
                continue
            got[side].append(v)
            by_round[side][i] = v
            first[side].append(pos == 0)
            noisy[side] += bool(flags)
            print("%s round %d %-9s %10.2f %s%s%s" % (name, i, side, v, unit, "  (first)" if pos == 0 else "",
                                                      "  noisy: " + ",".join(flags) if flags else ""), flush=True)
    print("\n%s, %s on CPU %s, client CPU %s, %d rounds:" % (name, runtime, placement["sut"], placement["client"], rounds))
    for side, _ in sides:
        v = got[side]
        if len(v) < 3:
            print("  %-9s too few rounds (%d)" % (side, len(v)))
            return
        a = [x for x, f in zip(v, first[side]) if f]
        b = [x for x, f in zip(v, first[side]) if not f]
        print("  %-9s median %10.2f %s  CV %5.1f%% (robust, from the MAD: %4.1f%%)  min %.2f max %.2f  first/second "
              "in the round: %.2f / %.2f  trend (Spearman rho over rounds) %+.2f%s"
              % (side, statistics.median(v), unit, 100 * cv(v), 100 * robust_cv(v), min(v), max(v),
                 statistics.median(a), statistics.median(b), spearman(v),
                 "  %d noisy trials" % noisy[side] if noisy[side] else ""))
    h, w = got[sides[0][0]], got[sides[1][0]]
    both = sorted(set(by_round[sides[0][0]]) & set(by_round[sides[1][0]]))
    ratio = lambda x, y: x / y if y else float("inf") if x else 1.0  # a side with no spread at all
    r = ratio(cv(h), cv(w))
    print("  ratio of medians harness/%s %.3f; ratio of CVs %.2f (target ≤ 1.10: %s), of the robust CVs %.2f; "
          "the two sides' rounds correlate r = %.2f (near 1: the host moved both)\n"
          % (sides[1][0], statistics.median(h) / statistics.median(w), r, "met" if r <= 1.10 else "NOT met",
             ratio(robust_cv(h), robust_cv(w)), pearson([by_round[sides[0][0]][i] for i in both],
                                                  [by_round[sides[1][0]][i] for i in both])), flush=True)


case("http-hello req/s", "req/s", [("harness", lambda: harness_trial("http-hello")), ("wrk", bare_http)])
case("startup ms", "ms", [("harness", lambda: harness_trial("startup")), ("hyperfine", bare_startup)])
PY
