#!/usr/bin/env bats
# WebSocket request/response with a window (`harness load --rpc`) and the contended counter: the C fault-server
# breaks each invariant in one way (an unknown id, an answer twice, lost updates) and the run exits 1 naming the
# check; then the ws-rpc and ws-counter scenarios on the runtimes at a small size.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
	[ -z "${SERVER_B:-}" ] || kill "$SERVER_B" 2>/dev/null || true
	assert_no_leftovers
}

# `start_fault MODE`: the fault server on loopback; sets PORT and SERVER.
start_fault() {
	"$HELPERS/fault-server" "$@" >"$BATS_TEST_TMPDIR/server.out" &
	SERVER=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/server.out"
	PORT=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/server.out")
}

field() {
	python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[k]
print(d)' "$1" <<<"$output"
}

@test "rpc: a server that answers every id once passes, with one answer per request in the histogram" {
	start_fault rpc-ok
	run timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --clients 4 --window 8 -n 2000 --json
	[ "$status" -eq 0 ]
	[ "$(field rpc.invariant_ok)" = True ]
	[ "$(field requests)" = 2000 ]
	[ "$(field rpc.sent)" = 2000 ]
	[ "$(field errors.total)" = 0 ]
	[ "$(field config.pipeline)" = 8 ]
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); l=d["latency_us"]
assert 0 < l["min"] <= l["p50"] <= l["p99"] <= l["max"], l' "$output"
}

@test "rpc: a server that answers with an id nobody sent fails, exit 1, naming the id" {
	start_fault rpc-wrong-id
	run timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --clients 2 --window 4 -n 200 --timeout 500 --json
	[ "$status" -eq 1 ]
	[ "$(field rpc.invariant_ok)" = False ]
	[[ "$(field rpc.why)" == *"an answer for id '999999999', which it never sent"* ]]
	[ "$(field rpc.unknown)" = 2 ]
	[ "$(field rpc.missing)" = 2 ]
}

@test "rpc: a server that answers one request twice fails, exit 1, naming the id" {
	start_fault rpc-dup
	run -1 timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --clients 1 --window 4 -n 100
	[[ "$output" == *"id 9 answered twice"* ]]
	[[ "$output" == *"rpc invariant broken at 1x4"* ]]
}

# `start_fault2 MODE`: a second fault server (side B of a duet); sets PORT_B and SERVER_B.
start_fault2() {
	"$HELPERS/fault-server" "$@" >"$BATS_TEST_TMPDIR/server-b.out" &
	SERVER_B=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/server-b.out"
	PORT_B=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/server-b.out")
}

@test "rpc duet: the windows follow --duet-order, one side each, every id once, then the totals line" {
	start_fault rpc-ok
	start_fault2 rpc-ok
	run --separate-stderr timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --clients 3 --window 4 \
		--duet "ws://127.0.0.1:$PORT_B/" --duet-order ABBABAAB --duet-window 0.1s
	kill "$SERVER_B"
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines()]
w, end = lines[:-1], lines[-1]
assert [x["side"] for x in w] == list("ABBABAAB"), [x["side"] for x in w]
assert [x["window"] for x in w] == list(range(8))
for a, b in zip(w, w[1:]):
    assert b["start_s"] >= a["start_s"] + a["duration_s"] - 1e-6, (a, b)  # the next starts after the drain
for x in w:
    assert x["requests"] > 0 and x["errors"] == 0 and x["reconnects"] == 0, x
    # its sending time and its drain, whose answers it counts (3 clients' 4 requests in flight, about)
    assert abs(x["duration_s"] - 0.1 - x["drain_ms"] / 1e3) < 1e-5 and 0 < x["drained"] < x["requests"], x
    l = x["latency_us"]
    assert 0 < l["p50"] <= l["p99"] <= l["max"], l
# every answer is a window's: its sending time's or its drain's
assert end["end"] is True and end["errors"] == 0 and end["requests"] == sum(x["requests"] for x in w), end
assert "why" not in end
PY
	# eight window lines and the totals, nothing else on stdout
	[ "$(grep -c . <<<"$output")" = 9 ]
}

@test "rpc duet: side B answering a request twice counts in B's windows, exit 1 with the check's words" {
	start_fault rpc-ok
	start_fault2 rpc-dup
	run --separate-stderr timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --clients 1 --window 4 \
		--duet "ws://127.0.0.1:$PORT_B/" --duet-order ABAB --duet-window 0.1s
	kill "$SERVER_B"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"rpc invariant broken: client 0 of B: id 9 answered twice"* ]]
	python3 - "$output" <<'PY'
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines()]
w, end = lines[:-1], lines[-1]
assert sum(x["errors"] for x in w if x["side"] == "A") == 0, w
assert w[1]["side"] == "B" and w[1]["errors"] == 1, w[1]  # its first window: the 10th answer came twice
# the check's words in that window's line and every one after (harness ab may stop reading before the end)
assert "why" not in w[0] and all("answered twice" in x["why"] for x in w[1:]), w
assert end["errors"] >= 1 and "answered twice" in end["why"], end
PY
	run -2 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --duet "ws://127.0.0.1:$PORT_B/" --duet-order AB --counter
	[[ "$output" == *"an rpc duet is echo requests by windows"* ]]
	run -2 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --duet "ws://127.0.0.1:$PORT_B/" --duet-order AXB
	[[ "$output" == *"--duet-order, a side per window: A or B"* ]]
}

@test "rpc duet: a connection lost on side B ends the load at once, exit 1 naming it" {
	start_fault rpc-ok
	start_fault2 ws-bad-frame
	run --separate-stderr timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --clients 2 --window 4 \
		--duet "ws://127.0.0.1:$PORT_B/" --duet-order ABABABAB --duet-window 0.1s
	kill "$SERVER_B"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"rpc invariant broken: client "[01]" of B: "* ]]
	# the end line at once, before the eight windows: no window measured a side short of a connection
	[ "$(grep -c '"window"' <<<"$output")" -lt 8 ]
	[[ "${lines[-1]}" == *'"end":true'*'"why":"client '[01]' of B: '* ]]
}

@test "rpc counter: an atomic counter passes; lost updates fail the run, exit 1, naming the counter check" {
	start_fault rpc-ok
	run timeout 60 "$HARNESS" load --rpc --counter "ws://127.0.0.1:$PORT/" --clients 4 --window 8 -n 1000 --json
	[ "$status" -eq 0 ]
	[ "$(field rpc.counter_after)" = "$(($(field rpc.counter_before) + 1000))" ]
	kill "$SERVER"
	start_fault rpc-lost
	run timeout 60 "$HARNESS" load --rpc --counter "ws://127.0.0.1:$PORT/" --clients 4 --window 8 -n 1000 --json
	[ "$status" -eq 1 ]
	[[ "$(field rpc.why)" == "counter: went from 0 to "*" for 1000 acknowledged increments"* ]]
	[ "$(field rpc.counter_off)" -gt 0 ]
	# every id was still answered once: the one failed check is the counter's
	[ "$(field rpc.missing)" = 0 ]
	[ "$(field rpc.duplicated)" = 0 ]
}

@test "rpc: a sweep prints the published table, one row per clients x window" {
	start_fault rpc-ok
	run -0 timeout 60 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" -n 500 --sweep 1x1,2x4,4x8
	[[ "${lines[1]}" =~ ^scenario\ +ops\ +err\ +ops/s\ +avgµs\ +p50µs\ +p95µs\ +p99µs\ +maxµs$ ]]
	[[ "${lines[2]}" =~ ^1x1\ +500\ +0\  ]]
	[[ "${lines[3]}" =~ ^2x4\ +500\ +0\  ]]
	[[ "${lines[4]}" =~ ^4x8\ +500\ +0\  ]]
	run -2 "$HARNESS" load --rpc "ws://127.0.0.1:$PORT/" --sweep 4x
	[[ "$output" == *"--sweep takes"* ]]
}

# Every trial of results file $1 passed with $2 answers and no error, on the runtimes $3 (comma-separated).
rpc_trials_ok() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = sorted(sys.argv[3].split(","))
assert sorted(t["runtime"] for t in d["trials"]) == want, [t["runtime"] for t in d["trials"]]
for t in d["trials"]:
    assert t["status"] == "ok", t
    l = t["load"]
    assert l["requests"] == int(sys.argv[2]) and l["errors"]["total"] == 0, l
    assert l["latency_us"]["p50"] > 0 and l["config"]["connections"] == 16 and l["config"]["pipeline"] == 32, l
    srv = t["server"]
    assert srv["peak_rss_kb"] > 0 and srv["post_load_rss_kb"] > 0, srv
    # the memory run: after the idle period (with the hint where the runtime has one), after a restart
    assert srv["after_idle_rss_kb"] > 0 and srv["after_restart_rss_kb"] > 0, srv
    assert srv.get("low_memory_hint", "") == ("" if t["runtime"] == "workerd" else "SIGUSR2"), srv
assert d["verdict"] == "ok"
PY
}

@test "ws-rpc: 16 clients x 32 in flight on node20, node22, node24, bun, deno and workerd; every id once" {
	need_root
	rts=node20,node22,node24,bun,deno,workerd
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes "$rts" --repeat 1 --requests 3200 --out r.json ws-rpc
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	[[ "$output" == *"== ws-rpc"* ]]
	rpc_trials_ok r.json 3200 "$rts"
	# the published table, from the run and again from its file: a row per runtime, the hint that was sent
	grep -qE '^node22 +pinned +3200 +0 +[0-9]+ .* SIGUSR2$' <<<"$output"
	run -0 "$HARNESS" report r.json --format table
	[[ "$output" == *"== ws-rpc, in the published columns"* ]]
	grep -qE '^workerd +pinned +3200 +0 +[0-9]+ .* none$' <<<"$output"
	grep -qE '^bun +pinned +3200 +0 +[0-9]+ .* SIGUSR2$' <<<"$output"
}

@test "ws-counter: the Postgres row ends at the increments acknowledged on node20, node22, node24, bun and deno" {
	need_root
	rts=node20,node22,node24,bun,deno
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes "$rts" --repeat 1 --requests 1000 --out c.json ws-counter
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	rpc_trials_ok c.json 1000 "$rts"
}

@test "ws-counter: a server whose Postgres row loses updates fails on harness's own read of the row, exit 1" {
	need_root
	run --separate-stderr "$HARNESS" run --cpus 1 --out l.json "$HARNESS_FIXTURES/scenarios/counter-lies"
	echo "$stderr" | tail -5
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"counter: postgres holds "*" after 2000 acknowledged increments from 0 ("*" lost or extra updates)"* ]]
	python3 -c 'import json; t=json.load(open("l.json"))["trials"][0]; assert t["status"] == "failed" and t["load"]["requests"] == 2000, t'
}
