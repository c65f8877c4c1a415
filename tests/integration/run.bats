#!/usr/bin/env bats
# harness run end to end on this machine: real runtimes, slices, sandboxes, the load client.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

check_results() {
	python3 - "$1" "$BATS_TEST_DIRNAME" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from overhead import check_overhead
d = json.load(open(sys.argv[1]))
assert d["schema"] == "harness-results/1" and d["harness"]["commit"]
assert d["host"]["cgroup"]["mode"] and d["seccomp"]["eperm"] and d["images"]
for t in d["trials"]:
    assert t["status"] == "ok", t
    if "chat" in t:
        assert t["server"]["cpus"] == t["cpus"]["sut"], t
        assert t["chat"]["invariant_ok"] and t["chat"]["lost"] == 0 and t["chat"]["deliveries"] > 0, t
    elif "server" in t:  # the CPU sets the processes really had are the slices' sets
        assert t["server"]["cpus"] == t["cpus"]["sut"], t
        assert t["load"]["client"]["cpus"] == t["cpus"]["client"], t
        assert t["load"]["errors"]["total"] == 0 and t["load"]["requests"] > 0
        assert t["slices"]["sut"]["cpu_user_usec"] > 0
    else:
        assert t["startup"]["wall_ms"]["median"] > 0 and t["startup"]["failed_runs"] == 0
for g in d["summaries"]:
    assert g["trials"] >= 1 and not g["failed"]
assert d["verdict"] == "ok" and sorted(t["order"] for t in d["trials"]) == list(range(1, len(d["trials"]) + 1))
check_overhead(d)
PY
}



@test "run --cpus 1 --runtimes node20 --profile quick startup http-hello: a table, valid results, real CPU sets" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --profile quick --out r.json startup http-hello
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"== startup"* && "$output" == *"== http-hello"* ]]
	grep -E '^node20 +pinned +[0-9.]+ ' <<<"$output"
	# the footer: the share of the run spent measuring, the median fixed cost of a trial
	grep -E '^measuring: [0-9]+% of the run.s [0-9.]+ s \([0-9.]+ s of measured phases\); fixed cost per trial: median [0-9.]+ ms over 6 trials' <<<"$output"
	[[ "$stderr" == *"harness: results: r.json"* ]]
	check_results r.json
	[ "$(python3 -c 'import json; print(len(json.load(open("r.json"))["trials"]))')" = 6 ]
	# the client's sandbox lets its io_uring engine run where this host allows io_uring (a forced engine is
	# checked before any connection: exit 3 when the kernel refuses it, else 2 for the closed port); the
	# runtime's sandbox refuses io_uring (sandbox.bats checks the refusal itself)
	run "$HARNESS" load --engine io_uring http://127.0.0.1:1/ -n 1
	expect=io_uring
	[ "$status" -ne 3 ] || expect=epoll
	python3 - "$expect" <<'PY'
import json, sys
d = json.load(open("r.json"))
engines = {t["load"]["engine"] for t in d["trials"] if "load" in t}
assert engines == {sys.argv[1]}, engines
assert d["seccomp"]["io_uring_allowed"] is False
PY
}

@test "run --engine epoll, then io_uring: every http trial's client ran the engine asked, and config.engine says so" {
	# HARNESS_LOAD_URING=coop below needs a kernel with COOP_TASKRUN (5.19), which every kernel with the
	# multishot receive the engine needs (6.0) has
	engine_run() {
		run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --profile quick --repeat 2 --requests 3000 \
			--engine "$1" --out "$1.json" http-hello
		echo "$output"
		echo "$stderr" | tail -3
	}
	check_engine() {
		python3 - "$1.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["engine"] == sys.argv[2], d["config"]
trials = [t for t in d["trials"] if "load" in t]
assert len(trials) == 2 and all(t["status"] == "ok" for t in trials), trials
assert {t["load"]["engine"] for t in trials} == {sys.argv[2]}, [t["load"]["engine"] for t in trials]
# what each trial's client got from the kernel: epoll has no ring; io_uring was capped at COOP_TASKRUN by
# HARNESS_LOAD_URING, which reaches the client in its sandbox, and its record names that fallback
setups = [t["load"]["engine_setup"] for t in trials]
if sys.argv[2] == "epoll":
    assert all(s["ring_flags"] == [] and not s["buffer_ring"] and s["fallback"] == "none" for s in setups), setups
else:
    assert all(s["ring_flags"] == ["coop_taskrun"] and s["buffer_ring"] and s["multishot_recv"]
               and s["fallback"] == "coop_taskrun" and "HARNESS_LOAD_URING=coop" in s["why"] for s in setups), setups
PY
	}
	engine_run epoll
	[ "$status" -eq 0 ]
	check_engine epoll
	# io_uring where this kernel allows it (the same probe as the client's: a closed port is exit 2 after
	# it); where it does not, the run refuses before anything runs, exit 3, naming the fallback
	run "$HARNESS" load --engine io_uring http://127.0.0.1:1/ -n 1
	if [ "$status" -eq 3 ]; then
		engine_run io_uring
		[ "$status" -eq 3 ]
		[[ "$stderr" == *"run: --engine io_uring cannot be used here: "*"(use --engine auto or epoll)"* ]]
		[ ! -e io_uring.json ]
		return
	fi
	HARNESS_LOAD_URING=coop engine_run io_uring
	[ "$status" -eq 0 ]
	check_engine io_uring
}

@test "every runtime whose image is present passes startup and http-hello" {
	present=$("$HARNESS" images ls | awk '$3 == "runtime" && $5 == "present" {print $1}' | paste -sd, -)
	echo "present: $present"
	[ -n "$present" ]
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes "$present" --profile quick --repeat 1 --out all.json startup http-hello
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	check_results all.json
}

@test "--mode pinned,quota: both modes side by side with their ratio" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --profile quick --repeat 1 --mode pinned,quota --out m.json http-hello
	echo "$output"
	[ "$status" -eq 0 ]
	grep -E '^node20 +pinned ' <<<"$output"
	grep -E '^node20 +quota .* [0-9.]+x' <<<"$output"
	python3 -c 'import json; d=json.load(open("m.json")); assert d["config"]["modes"]["quota"]["sut_cpu_quota_us"] == 100000'
	# one trial each: no pairs to rank, the unpaired test, and no significance from a single pair
	python3 -c 'import json; v = [g["vs_pinned"] for g in json.load(open("m.json"))["summaries"] if g["mode"] == "quota"][0]; assert v["metric"] == "rps" and v["test"] == "mann-whitney-u" and v["pairs"] == 1 and not v["significant"], v'
	run "$HARNESS" report m.json --format csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == scenario,runtime,mode,* ]]
	run "$HARNESS" report m.json
	[[ "$output" == *"| node20 "*"| quota "* ]]
	# one trial a row: the spread column and the ratio say so rather than print a CI of one value
	grep -E '^\| node20 +\| quota .*\| +n=1, no CI \|.*\| [0-9.]+x rps \(n=1, no CI\) \|' <<<"$output"
	# where each slice ran, per mode; an overlap of the client with the runtime is flagged
	python3 - "$output" <<'PY'
import json, sys
from cpulist import cpus
d = json.load(open("m.json"))
out = sys.argv[1]
for mode, m in d["config"]["modes"].items():
    line = "- %s: runtime on CPUs %s, client on CPUs %s" % (mode, m["sut"], m["client"])
    assert line in out, (line, out)
    overlap = bool(cpus(m["sut"]) & cpus(m["client"]))
    assert (line + " (OVERLAP") in out if overlap else (line + "\n") in out, (mode, m, out)
assert "client on CPUs 0\n" not in out.splitlines()[0]
PY
	# flags are cells of the table: a failed trial's row ends with its note inside the last '|'; sizes in MiB
	python3 -c 'import json; d=json.load(open("m.json")); d["trials"][0]["status"]="failed"; json.dump(d, open("f.json","w"))'
	run "$HARNESS" report f.json
	echo "$output"
	[[ "$output" == *"idle → peak MiB"* ]]
	grep -E '^\| node20 +\| (pinned|quota) .*\| FAILED[^|]* \|$' <<<"$output"
}

@test "a server that never listens fails its trial with its last output, exit 1" {
	run --separate-stderr "$HARNESS" run --runtimes node20 --out n.json "$HARNESS_FIXTURES/scenarios/never-listens"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"was not ready in time; its last output: starting up, but never listening"* ]]
	python3 -c 'import json; t=json.load(open("n.json"))["trials"][0]; assert t["status"] == "failed" and "never listening" in t["error"], t'
}

@test "a server that exits at once fails its trial with its exit status and last output, long before ready.timeout_s" {
	run --separate-stderr timeout 50 "$HARNESS" run --runtimes node20 --out e.json "$HARNESS_FIXTURES/scenarios/exits-at-once"
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the server exited with status 7 before it was ready; its last output: cannot start: no configuration"* ]]
	# ready.timeout_s is 60: a trial that waited for it would take that long
	python3 -c 'import json; t=json.load(open("e.json"))["trials"][0]; print("wall_s", t["wall_s"]); assert t["status"] == "failed" and t["wall_s"] < 20, t'
	# without --keep, the run folder is gone
	logs=$(python3 -c 'import json; print(json.load(open("e.json"))["config"]["logs"])')
	[[ "$logs" == /tmp/harness-run-* ]] && [ ! -e "$logs" ]
}

@test "a server that crashes mid-load is reported, not hung on" {
	run --separate-stderr timeout 120 "$HARNESS" run --runtimes node20 --out c.json "$HARNESS_FIXTURES/scenarios/crash-mid-load"
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"crash-mid-load node20 pinned trial 1"* ]]
	python3 - <<'PY'
import json
t = json.load(open("c.json"))["trials"][0]
assert t["status"] != "ok" or t["load"]["errors"]["total"] > 0, t
assert "crashing on purpose" in t.get("error", "") or t["load"]["errors"]["total"] > 0
PY
}

@test "a private scenario folder (mktemp -d, mode 0700, files 0600) runs: the sandbox reads a staged copy" {
	d=$(mktemp -d "$BATS_TEST_TMPDIR/mine.XXXXXX")
	cp -r "$HARNESS_TOP/scenarios/startup/." "$d"
	chmod 0600 "$d"/*
	[ "$(stat -c %a "$d")" = 700 ]
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --profile quick --out r.json "$d"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"Permission denied"* ]]
	python3 -c 'import json; t=json.load(open("r.json"))["trials"]; assert len(t) == 1 and t[0]["status"] == "ok", t'
	# the user's folder is as it was
	[ "$(stat -c %a "$d")" = 700 ] && [ "$(stat -c %a "$d/hello.js")" = 600 ]
}

@test "a private scenario folder with a symbolic link to a root-only file: the link is named and left out of the staged copy" {
	d=$(mktemp -d "$BATS_TEST_TMPDIR/mine.XXXXXX")
	cp -r "$HARNESS_TOP/scenarios/startup/." "$d"
	secret="$BATS_TEST_TMPDIR/root-only"
	echo "token-$RANDOM$RANDOM" >"$secret"
	chmod 0600 "$secret"
	ln -s "$secret" "$d/secret"
	# the script fails its run when the sandbox can read the link's target
	cat >"$d/hello.js" <<'JS'
let got = null;
try { got = require("fs").readFileSync(__dirname + "/secret", "utf8"); } catch (e) {}
if (got !== null) { console.error("read through the link: " + got); process.exit(3); }
console.log("hello");
JS
	chmod 0600 "$d"/hello.js "$d"/scenario.json
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --profile quick --out r.json "$d"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"secret is a symbolic link: not copied into the sandbox"* ]]
	refute grep -rqF "$(cat "$secret")" r.json
	python3 -c 'import json; t=json.load(open("r.json"))["trials"]; assert t[0]["status"] == "ok" and t[0]["startup"]["failed_runs"] == 0, t'
}

@test "the results file records the run: its command line, start and end (RFC 3339, UTC), each binary's own version" {
	before=$(date -u +%s)
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --profile quick --out r.json startup
	[ "$status" -eq 0 ]
	after=$(date -u +%s)
	python3 - "$before" "$after" "$HARNESS" <<'PY'
import json, sys, datetime
d = json.load(open("r.json"))
r = d["run"]
assert r["command"] == ["harness", "run", "--runtimes", "node20", "--repeat", "1", "--profile", "quick",
                        "--out", "r.json", "startup"], r["command"]
f = "%Y-%m-%dT%H:%M:%SZ"
start = datetime.datetime.strptime(r["started_at"], f).replace(tzinfo=datetime.timezone.utc).timestamp()
end = datetime.datetime.strptime(r["finished_at"], f).replace(tzinfo=datetime.timezone.utc).timestamp()
assert int(sys.argv[1]) <= start <= end <= int(sys.argv[2]), (sys.argv, r)
img = [i for i in d["images"] if i["name"] == "node20"][0]
assert img["binary_version"].startswith("v20."), img
PY
}

@test "Ctrl-C mid-run keeps a valid partial results file and leaves nothing behind" {
	"$HARNESS" run --runtimes node20 --repeat 20 --profile quick --out i.json startup >/dev/null 2>&1 &
	pid=$!
	wait_until 120 has_trials i.json
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	python3 -c 'import json; d=json.load(open("i.json")); assert d["interrupted"] and 1 <= len(d["trials"]) < 20, len(d["trials"])'
	none_runs '/scenario/hello.js'
}

@test "bad input: an unknown scenario or runtime is exit 2, a budget the host lacks exit 3" {
	run "$HARNESS" run no-such-scenario
	[ "$status" -eq 2 ]
	[[ "$output" == *"no scenario 'no-such-scenario'"* ]]
	run "$HARNESS" run --runtimes nodejs99 startup
	[ "$status" -eq 2 ]
	[[ "$output" == *"no image 'nodejs99'"* ]]
	usable=$(doctor_json | doctor_field cpus.usable_count)
	run "$HARNESS" run --cpus "$usable" --runtimes node20 startup
	[ "$status" -eq 3 ]
	run "$HARNESS" run --profile huge startup
	[ "$status" -eq 2 ]
}

@test "scenarios ls lists the shipped scenarios" {
	run "$HARNESS" scenarios ls
	[ "$status" -eq 0 ]
	for s in startup startup-ts http-hello http-wintercg http-wintercg-adapter react-ssr express express-https ws-chat postgres route-matrix warm-install; do grep -qE "^$s " <<<"$output"; done
	grep -qE '^postgres +script ' <<<"$output"
	grep -qE '^ws-chat +ws-chat ' <<<"$output"
}

@test "npm dependencies: installed once per lock file, read-only at /scenario/node_modules" {
	# what is judged is the install, not the server under a burst of 1,000 connects (the test of express on
	# every runtime does that): 50 connections keep node20's accept queue (511) out of the verdict
	run --separate-stderr "$HARNESS" run --runtimes node20 --profile quick --repeat 1 --connections 50 --out e.json express
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	check_results e.json
	ls -d "${HARNESS_CACHE_DIR:-/var/cache/harness}"/npm/sha256-*/node_modules/express
	run --separate-stderr "$HARNESS" run --runtimes node20 --profile quick --repeat 1 --connections 50 --out e2.json express
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"installing the npm dependencies"* ]]
}

@test "offline with nothing cached: a scenario with npm dependencies is skipped with the reason, the rest runs" {
	# The runtime is the host's node (a host-sourced manifest), so nothing at all comes from a registry.
	mkdir images
	cp "$HARNESS_TOP"/images/*.json images/
	node=$(command -v node) || hx_skip "needs a node on the host"
	cat >images/node20.json <<JSON
{"name": "node20", "version": "host", "kind": "runtime", "family": "node", "source": {"type": "host", "path": "$node"},
 "entry": "$node", "run": ["{entry}", "{script}"], "version_command": ["{entry}", "--version"], "version_expect": "v"}
JSON
	export HARNESS_IMAGES_DIR=$PWD/images HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/empty-cache
	export npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0 npm_config_fetch_timeout=2000
	export npm_config_cache=$BATS_TEST_TMPDIR/npm-cache
	run --separate-stderr "$HARNESS" run --runtimes node20 --profile quick --repeat 1 --out o.json express startup
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"skipping scenario express: cannot install the npm dependencies of scenario express"* ]]
	python3 -c 'import json; d=json.load(open("o.json")); assert {t["scenario"] for t in d["trials"]} == {"startup"}'
}

@test "express, express-https and ws-chat pass on node20, node22, node24, bun and deno" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20,node22,node24,bun,deno --profile quick --repeat 1 --out x.json express express-https ws-chat
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	check_results x.json
	python3 - <<'PY'
import json
from collections import Counter
d = json.load(open("x.json"))
assert Counter(t["runtime"] for t in d["trials"]) == {r: 3 for r in ("node20", "node22", "node24", "bun", "deno")}
PY
}

@test "express-https: the runtime terminates TLS with the run's throwaway certificate, the client speaks TLS" {
	run --separate-stderr "$HARNESS" run --runtimes node20 --profile quick --repeat 1 --keep --out t.json express-https
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	check_results t.json
	python3 - <<'PY'
import json, os
d = json.load(open("t.json"))
t = d["trials"][0]
assert t["load"]["config"]["transport"] == "tls" and t["load"]["requests"] > 0
cert = os.path.join(d["config"]["logs"], "tls", "cert.pem")
assert open(cert).read().startswith("-----BEGIN CERTIFICATE-----")
PY
	logs=$(python3 -c 'import json; print(json.load(open("t.json"))["config"]["logs"])')
	rm -rf "$logs" # --keep: ours to remove
}

@test "ws-chat: 16 clients x 2,500 messages after 80 of warm-up with the ws library; every delivery once, for at least the minimum" {
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --out w.json ws-chat
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
t = json.load(open("w.json"))["trials"][0]
assert t["status"] == "ok", t
c = t["chat"]
assert c["invariant_ok"] and c["deliveries"] == 16 * 2500 * 16 and c["lost"] == 0 and c["duplicated"] == 0, c
# the published round of 80 messages warmed the room up first; the measured phase lasted its minimum
assert t["warmup"] == 80 and t["min_duration_s"] == 1, t
assert c["duration_s"] >= t["min_duration_s"] and "short" not in t.get("noisy", []), (c["duration_s"], t.get("noisy"))
assert t["server"]["peak_rss_kb"] > 0 and t["server"]["cpus"] == t["cpus"]["sut"]
PY
}

@test "ws-chat: a chat server that drops a message fails the run with exit 1" {
	run --separate-stderr "$HARNESS" run --runtimes node20 --out d.json "$HARNESS_FIXTURES/scenarios/chat-drops"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"chat invariant broken"*"deliveries lost"* ]]
}

@test "without the postgres15 fixture, a scenario that needs it is skipped with the reason and the fix; the rest runs" {
	mkdir images
	cp "$HARNESS_TOP"/images/*.json images/
	cat >images/postgres15.json <<'JSON'
{"name": "postgres15", "version": "15", "kind": "fixture", "source": {"type": "host", "path": "/nonexistent/postgres"},
 "entry": "/nonexistent/postgres", "version_command": ["{entry}", "--version"], "version_expect": "(PostgreSQL) 15."}
JSON
	HARNESS_IMAGES_DIR=$PWD/images run --separate-stderr "$HARNESS" run --runtimes node20 --profile quick --repeat 1 --out s.json "$HARNESS_FIXTURES/scenarios/pg-reachable" startup
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"skipping scenario pg-reachable: it needs the postgres15 fixture (harness images pull postgres15): image postgres15: /nonexistent/postgres is not installed on this host"* ]]
	python3 -c 'import json; d=json.load(open("s.json")); assert {t["scenario"] for t in d["trials"]} == {"startup"} and "fixtures" not in d["config"]'
}

@test "run --precision: trials after the repeat until converged or --max-repeat, and why a cell did not converge" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 2 --precision 0.01% --max-repeat 4 \
		--out p.json "$FIXTURES/scenarios/compare-hello"
	echo "$stderr"
	[ "$status" -eq 0 ]
	# no judgement before the first look (10 trials): optional stopping would make the CI a lie
	[[ "$stderr" == *"compare-hello node20 pinned did not converge to ±0.01%: 4 trials passed: judged from 10"* ]]
	python3 -c 'import json; assert [t["trial"] for t in json.load(open("p.json"))["trials"]] == [1, 2, 3, 4]'
	# a precision the first look reaches adds nothing after it; one it does not (a busy host can spread ten
	# trials by more than half) runs to --max-repeat and names the look's CI
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 10 --precision 45% --max-repeat 12 \
		--out q.json "$FIXTURES/scenarios/compare-hello"
	echo "$stderr"
	[ "$status" -eq 0 ]
	if grep -q "did not converge" <<<"$stderr"; then
		[[ "$stderr" == *"did not converge to ±45%: CI ±"*"of the median after 10 trials (99.17% CI: 6 looks share 5%)"* ]]
		python3 -c 'import json; assert len(json.load(open("q.json"))["trials"]) == 12'
	else
		python3 -c 'import json; assert len(json.load(open("q.json"))["trials"]) == 10'
	fi
}
