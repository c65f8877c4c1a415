#!/usr/bin/env bats
# harness ab: bad usage; one A/A duet of the ab-burn fixture on bun read back from its harness-ab/1 document (the
# windows alternate in randomized pairs, each window one side, nothing reconnects: each server accepted exactly the
# probe's, the warm-up's and the duet's connections; it finishes, its ratio within the noise, both sides' server
# memory sampled and alike); then B given a calibrated extra CPU per request (15% of A's cost, from the A/A run's
# own throughput) and 96 MB more memory is called slower with exit 1 and larger; harness report reads the document
# back (table, json, csv, and the html page in headless Chromium); a script duet of whole runs calls a B with 15%
# more work per op slower; a startup A/A duet of node24 alternates single runs; a ws-rpc duet of node24 against
# node24 --jitless. About 2 minutes (duets of at most 25, 20, 12, 15 and 15 s).

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	cd "$BATS_FILE_TMPDIR"
	local rc=0
	# its status is the tests' to judge: setup_file stops at a command that fails
	"$HARNESS" ab bun bun "$FIXTURES/scenarios/ab-burn" --max-time 25 --window 0.25 --seed 29 --keep \
		--out aa.json >aa.out 2>aa.err || rc=$?
	echo "$rc" >aa.rc
}

setup() {
	need_root
	cd "$BATS_FILE_TMPDIR"
}

@test "ab: bad usage is exit 2 with the fix, before anything runs" {
	run -2 "$HARNESS" ab bun
	[[ "$output" == *"harness ab A B [SCENARIO]"* ]]
	run -2 "$HARNESS" ab bun bun route-matrix
	[[ "$output" == *"neither a startup, a script, a ws-rpc, a ws-chat nor a plain http scenario"* ]]
	run -2 "$HARNESS" ab bun bun postgres
	[[ "$output" == *"postgres needs the Postgres fixture, which harness ab does not set up"* ]]
	run -2 "$HARNESS" ab bun bun "$FIXTURES/scenarios/ab-script" --duet simultaneous
	[[ "$output" == *"a script duet alternates whole runs"* ]]
	run -2 "$HARNESS" ab bun bun --a-env NOEQUALS
	[[ "$output" == *"--a-env takes K=V"* ]]
	run -2 "$HARNESS" ab bun bun --threshold 0%
	run -2 "$HARNESS" ab bun nosuchruntime
	run -2 "$HARNESS" ab bun bun --format csv
	run -2 "$HARNESS" ab bun bun --window 0.01s
	[[ "$output" == *"--window takes a duration from 0.02s"* ]]
	# one round of an hour of 0.02 s windows: its order would not fit one argument of the client's command line
	run -2 "$HARNESS" ab bun bun --window 0.02s --max-time 3600s --round 3600s
	[[ "$output" == *"holds more than 131000 windows of 0.02 s"*"a shorter --round or a longer --window"* ]]
	[ -z "$(leftover_cgroups)" ]
}

@test "ab: the windows alternate in randomized pairs, one side each, in order, without reconnecting, in rounds" {
	[ -s aa.json ] || {
		cat aa.err >&2
		false
	}
	python3 - aa.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "harness-ab/1"
w = d["windows"]
assert len(w) >= 2 * 12 and len(w) % 2 == 0, len(w)
orders = set()
# --max-time 25 in rounds of 5 s: five pairs of servers, each round's first pair its warm-up
assert d["round_s"] == 5, d["round_s"]
assert sorted(set(x["round"] for x in w)) == list(range(5)), sorted(set(x["round"] for x in w))
for i in range(0, len(w), 2):
    x, y = w[i], w[i + 1]
    assert x["pair"] == y["pair"] == i // 2, (i, x["pair"], y["pair"])
    assert x["round"] == y["round"] and (i == 0 or x["round"] >= w[i - 1]["round"]), (i, x["round"], y["round"])
    assert {x["side"], y["side"]} == {"A", "B"}, (i, x["side"], y["side"])
    orders.add(x["side"] + y["side"])
    assert x["warmup"] == (i == 0 or x["round"] != w[i - 1]["round"]), i
assert orders == {"AB", "BA"}, orders  # randomized within pairs, both orders seen
assert d["verdicts"]["throughput"]["pairs"] == len(w) // 2 - 5 - d["noisy_pairs"]
for a, b in zip(w, w[1:]):
    assert b["start_s"] >= a["start_s"] + a["duration_s"] - 1e-6, (a, b)  # no window overlaps the next
    assert a["requests"] > 0 and a["errors"] == 0
# a window is its sending time and its drain, whose answers it counts: the 50 connections' last requests at least
for x in w:
    assert abs(x["duration_s"] - d["window_s"] - x["drain_ms"] / 1e3) < 1e-5, (d["window_s"], x)
    assert d["connections"] <= x["drained"] < x["requests"], (d["connections"], x)
assert d["reconnects"] == 0 and all(x["reconnects"] == 0 for x in w)
assert d["sides"]["A"]["slice"] == "sut" and d["sides"]["B"]["slice"] == "sut-b"
assert d["sides"]["A"]["cpus"] == d["sides"]["B"]["cpus"]
PY
}

@test "ab: each server accepted the probe's, the warm-up's and the duet's connections only" {
	local dir
	dir=$(sed -n 's/^harness: ab: logs kept in //p' aa.err)
	[ -d "$dir" ]
	# the readiness probe's one; the warm-up client's check that the server is there (one connect) and its 50;
	# the duet client's check of each URL (one connect) and its 50 (ab-burn's connections): 103, in each of the
	# five rounds' servers (each writes its count at its exit, into the side's one log)
	[ "$(grep -cx 'connections 103' "$dir/server-A.log")" = 5 ]
	[ "$(grep -cx 'connections 103' "$dir/server-B.log")" = 5 ]
	[ "$(grep -c '^connections ' "$dir/server-A.log")" = 5 ]
	rm -rf "$dir"
}

# A verdict on one A/A duet is its false-positive rate (about alpha/2 each way; make bench-ab-tries counts them
# over many tries), not a defect: what a defect does (the sides swapped, a window counted to the wrong side, a
# duet that did not finish) is checked, with a ratio bound beyond this host's noise in a minute, or the CI's.
@test "ab: an A/A duet finishes, its exit is its verdict's, and its ratio is within the noise" {
	local rc
	rc=$(cat aa.rc)
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || {
		cat aa.out aa.err >&2
		false
	}
	python3 - aa.json "$rc" <<'PY'
import json, sys
d, rc = json.load(open(sys.argv[1])), int(sys.argv[2])
v = d["verdicts"]["throughput"]
print(d["stopped"], v["verdict"], v["ratio"], v["ci_low"], v["ci_high"])
assert d["stopped"] in ("max-time", "precision", "pairs"), d["stopped"]
assert (rc == 1) == (v["verdict"] == "slower"), (rc, v["verdict"])
# within 8%, or further on a noisy host (bun's node:http server still warming through its rounds: rounds 8% apart
# were seen) but then inside its own CI, as all but an A/A duet's false positives are
assert abs(v["ratio"] - 1) < 0.08 or v["ci_low"] <= 1 <= v["ci_high"], v
# memory: each window's server RSS, for both sides; two copies of one server are about the same size
assert all(x["rss_kb"] > 1000 and x["memory_kb"] > 1000 for x in d["windows"]), "a window without memory"
m = d["verdicts"]["memory"]
print("memory", m["verdict"], m["ratio"], m["ci_low"], m["ci_high"])
assert m["pairs"] == v["pairs"] and 0.8 < m["ratio"] < 1.25, m
PY
	head -1 aa.out | grep -E '^B ran [0-9.]+x \[[0-9.]+-[0-9.]+\] (slower|faster) than A: '
}

# The verdict's mechanics, with an effect no host noise here hides (a duet's CI is about +-4% in 20 s on this
# 2-CPU host). Whether 3% is found 9 times in 10 within 2 minutes is a measurement: make bench-ab-tries.
@test "ab: B with 15% more CPU per request is called slower, exit 1, and with 96 MB more memory larger" {
	local burn
	# A's cost per request from the A/A duet's throughput: 15% of it as B's extra
	burn=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[x for x in d["windows"] if x["side"]=="A" and not x["warmup"]]; rps=sum(x["requests"] for x in w)/sum(x["duration_s"] for x in w); print(int(0.15/0.85*1e9/rps))' aa.json)
	[ "$burn" -gt 0 ]
	run "$HARNESS" ab bun bun "$FIXTURES/scenarios/ab-burn" --b-env "BURN_NS=$burn" --b-env ALLOC_MB=96 \
		--max-time 20 --window 0.25 --out slow.json
	# a host busier than usual can leave 20 s inconclusive (4 rounds: a t interval on 3 degrees of freedom), never
	# another verdict: then once more with twice the rounds, as a user would give it more time
	if [ "$status" = 0 ] && [ "$(ab_verdict slow.json)" = inconclusive ]; then
		echo "# inconclusive in 20 s (${lines[0]}): once more in 40 s" >&3
		run "$HARNESS" ab bun bun "$FIXTURES/scenarios/ab-burn" --b-env "BURN_NS=$burn" --b-env ALLOC_MB=96 \
			--max-time 40 --window 0.25 --out slow.json
	fi
	[ "$status" = 1 ] || {
		echo "$output" >&2
		false
	}
	[[ "${lines[0]}" == *" slower than A: slower beyond 2%" ]]
	[[ "$output" == *$'\nmemory '*' larger'* ]]
	python3 - slow.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sides"]["B"]["env"].startswith("BURN_NS="), d["sides"]["B"]
assert d["verdicts"]["throughput"]["verdict"] == "slower", d["verdicts"]["throughput"]
m = d["verdicts"]["memory"]
a = [w["rss_kb"] for w in d["windows"] if w["side"] == "A" and not w["warmup"]]
b = [w["rss_kb"] for w in d["windows"] if w["side"] == "B" and not w["warmup"]]
print("memory", m, min(a), max(a), min(b), max(b))
# 96 MB written and kept: in every window of B at least that much more than A's usual. No upper bound: B's RSS
# swung 169-327 MB here (A's 59-64), its own heap growing unevenly beside the ballast (most likely bun's collector
# counting the ballast in the heap's size and collecting later; not traced)
assert m["verdict"] == "larger" and m["ratio"] > 1.3, m
assert min(b) - sorted(a)[len(a) // 2] > 0.8 * 96 * 1024, (a, b)
PY
	[ -z "$(leftover_cgroups)" ]
}

@test "ab: harness report reads the document back (table, json, csv and an html page Chromium loads)" {
	run -0 "$HARNESS" report aa.json
	[[ "${lines[0]}" == "B ran "* ]]
	[[ "$output" == *"throughput"* ]]
	run -0 "$HARNESS" report aa.json --format json
	python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["kind"]=="harness-ab/1" and d["windows"]' <<<"$output"
	"$HARNESS" report aa.json --format csv -o aa.csv
	python3 - aa.json aa.csv <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(d["windows"]), (len(rows), len(d["windows"]))
for r, w in zip(rows, d["windows"]):
    assert int(r["pair"]) == w["pair"] and r["side"] == w["side"] and int(r["requests"]) == w["requests"], (r, w)
    assert (r["use"] == "warmup") == w["warmup"] and r["use"] in ("counted", "warmup", "noisy"), r
assert sum(r["use"] == "noisy" for r in rows) == 2 * d["noisy_pairs"]
PY
	"$HARNESS" report aa.json --format html -o aa.html
	which chromium >/dev/null || skip "no chromium to load the page"
	run python3 "$HARNESS_TOP/tests/report/check_html.py" --ab aa.json aa.html "$BATS_FILE_TMPDIR/shots"
	echo "$output"
	[ "$status" = 0 ]
}

# A script runs to its end: its duet alternates whole runs, each in a fresh sandbox, each run's metric (ops_per_s, a
# rate: higher is better) its window's. B given 15% more rounds per op (BURN_PCT) has 1/1.15 of A's ops_per_s:
# called slower (a sign error would call it faster) with exit 1.
@test "ab: a script duet alternates whole runs in randomized pairs, and a B with 15% more work per op is slower" {
	run -1 "$HARNESS" ab bun bun "$FIXTURES/scenarios/ab-script" --b-env BURN_PCT=15 --max-time 12 --seed 11 \
		--out script.json
	echo "$output"
	[[ "${lines[0]}" == "B ran "*" slower than A: slower beyond 2%" ]]
	[[ "$output" == *"single runs, each in a fresh sandbox"* ]]
	python3 - script.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workload"] == "script" and d["metric"] == {"name": "ops_per_s", "higher_is_better": True}, d["metric"]
assert set(d["verdicts"]) == {"script", "memory"}, d["verdicts"].keys()
w = d["windows"]
assert len(w) >= 2 * 8 and len(w) % 2 == 0, len(w)
orders = set()
for i in range(0, len(w), 2):
    x, y = w[i], w[i + 1]
    assert x["pair"] == y["pair"] == i // 2 and {x["side"], y["side"]} == {"A", "B"}, (x, y)
    assert x["warmup"] == (i == 0)
    orders.add(x["side"] + y["side"])
for a, b in zip(w, w[1:]):
    assert b["start_s"] >= a["start_s"] + a["duration_s"] - 1e-6, (a, b)  # one run at a time
for x in w:
    assert x["value"] > 0 and x["duration_s"] > 0 and x["rss_kb"] > 1000, x
assert orders == {"AB", "BA"}, orders
v = d["verdicts"]["script"]
print(d["stopped"], v)
assert v["verdict"] == "slower" and 0.80 < v["ratio"] < 0.93, v  # B's ops_per_s: 1/1.15 = 0.870 of A's
PY
	[ -z "$(leftover_cgroups)" ]
}

# As for the http A/A duet above: one duet's verdict is its false-positive rate (bench-ab-tries counts them), the
# defects are the sides, the pairs and the timing; the ratio bound is far beyond this host's noise in 15 s.
@test "ab: startup alternates single runs of A and B in randomized pairs, each timed, its ratio within the noise" {
	run "$HARNESS" ab node24 node24 startup --max-time 15 --seed 7 --out st.json
	echo "$output"
	[ "$status" = 0 ] || [ "$status" = 1 ]
	[[ "${lines[0]}" == "B ran "*" than A: "* ]]
	python3 - st.json "$status" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workload"] == "startup" and set(d["verdicts"]) == {"startup"}
w = d["windows"]
orders = set()
for i in range(0, len(w) - 1, 2):
    assert {w[i]["side"], w[i + 1]["side"]} == {"A", "B"} and w[i]["pair"] == w[i + 1]["pair"]
    assert w[i]["startup_ms"] > 0 and w[i + 1]["startup_ms"] > 0
    orders.add(w[i]["side"] + w[i + 1]["side"])
assert orders == {"AB", "BA"}, orders
v = d["verdicts"]["startup"]
assert (int(sys.argv[2]) == 1) == (v["verdict"] == "slower"), (sys.argv[2], v)
assert abs(v["ratio"] - 1) < 0.05, v
PY
	[ -z "$(leftover_cgroups)" ]
}

# A flag's effect on a WebSocket server: node24 against node24 --jitless (V8's interpreter only), windows of echo
# requests on the ws-rpc scenario's 16 connections to each server, every id checked.
@test "ab: a ws-rpc duet alternates windows of echo requests on both servers, and B run --jitless is slower" {
	run --separate-stderr "$HARNESS" ab node24 node24 ws-rpc --b-arg=--jitless --max-time 15 --window 0.25 --seed 5 --out rpc.json
	echo "$output"
	[ "$status" = 1 ]
	[[ "${lines[0]}" == "B ran "*" slower than A: slower beyond 2%" ]]
	python3 - rpc.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workload"] == "ws-rpc" and d["connections"] == 16, (d["workload"], d["connections"])
assert d["sides"]["B"]["args"] == "--jitless", d["sides"]["B"]
w = d["windows"]
orders = set()
for i in range(0, len(w) - 1, 2):
    assert {w[i]["side"], w[i + 1]["side"]} == {"A", "B"} and w[i]["pair"] == w[i + 1]["pair"]
    orders.add(w[i]["side"] + w[i + 1]["side"])
for a, b in zip(w, w[1:]):
    assert b["start_s"] >= a["start_s"] + a["duration_s"] - 1e-6, (a, b)
for x in w:
    assert x["requests"] > 0 and x["errors"] == 0 and x["reconnects"] == 0, x
assert orders == {"AB", "BA"}, orders
v = d["verdicts"]["throughput"]
print(v["verdict"], v["ratio"], v["ci_low"], v["ci_high"])
assert v["verdict"] == "slower" and v["ratio"] < 0.9, v
assert set(d["verdicts"]) == {"throughput", "p50", "p99", "memory"}, d["verdicts"].keys()
PY
	# B's server answers an id twice: the duet fails with the client's check, exit 1, and no verdict is printed
	run "$HARNESS" ab bun bun --a-scenario ws-rpc --b-scenario "$FIXTURES/scenarios/ws-rpc-dup" --max-time 10 \
		--window 0.25 --out dup.json
	echo "$output"
	[ "$status" = 1 ]
	[[ "$output" == *"the duet's load client: client "*" of B: id 1999 answered twice"* ]]
	[[ "$output" != *"B ran "* ]]
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stopped"] == "error", d["stopped"]' dup.json
	run -2 "$HARNESS" ab bun bun ws-counter
	[[ "$output" == *"ws-counter is a ws-rpc scenario with a counter"* ]]
	run -2 "$HARNESS" ab bun bun ws-rpc --duet simultaneous
	[[ "$output" == *"a ws-rpc or ws-chat duet is interleaved"* ]]
	[ -z "$(leftover_cgroups)" ]
}

# A chat room's duet: node24 against node24 --jitless on the ws-chat scenario's 16 clients a side, windows of
# messages broadcast to each room, every delivery checked; then a room that skips one delivery in 300 (the
# chat-drops fixture's server, against the same room without the skip) fails the duet with the client's check.
@test "ab: a ws-chat duet alternates windows of messages on both rooms, B run --jitless is slower, a room that drops fails it" {
	run --separate-stderr "$HARNESS" ab node24 node24 ws-chat --b-arg=--jitless --max-time 10 --seed 8 --out chat.json
	echo "$output"
	[ "$status" = 1 ]
	[[ "${lines[0]}" == "B ran "*" slower than A: slower beyond 2%" ]]
	[[ "$output" == *"throughput  "*" msg/s "* ]]
	python3 - chat.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workload"] == "ws-chat" and d["connections"] == 16, (d["workload"], d["connections"])
w = d["windows"]
for i in range(0, len(w) - 1, 2):
    assert {w[i]["side"], w[i + 1]["side"]} == {"A", "B"} and w[i]["pair"] == w[i + 1]["pair"]
for a, b in zip(w, w[1:]):
    assert b["start_s"] >= a["start_s"] + a["duration_s"] - 1e-6, (a, b)
for x in w:
    assert x["requests"] > 0 and x["errors"] == 0 and x["reconnects"] == 0, x
v = d["verdicts"]["throughput"]
print(v["verdict"], v["ratio"], v["ci_low"], v["ci_high"])
assert v["verdict"] == "slower" and v["ratio"] < 0.8, v
PY
	mkdir -p chat-ok
	cp "$FIXTURES/scenarios/chat-drops/ws-chat.js" chat-ok/
	echo "require('./ws-chat.js');" >chat-ok/server.js
	sed 's/"chat-drops"/"chat-ok"/' "$FIXTURES/scenarios/chat-drops/scenario.json" >chat-ok/scenario.json
	run "$HARNESS" ab node20 node20 --a-scenario "$PWD/chat-ok" --b-scenario "$FIXTURES/scenarios/chat-drops" \
		--max-time 10 --out drops.json
	echo "$output"
	[ "$status" = 1 ]
	[[ "$output" == *"the duet's load client: client "*" of B: "* ]]
	[[ "$output" != *"B ran "* ]]
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stopped"] == "error", d["stopped"]' drops.json
	run -2 "$HARNESS" ab bun bun ws-chat --duet simultaneous
	[[ "$output" == *"a ws-rpc or ws-chat duet is interleaved"* ]]
	[ -z "$(leftover_cgroups)" ]
}
