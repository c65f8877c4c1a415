#!/usr/bin/env bats
# harness load against real servers on loopback: the C hello server (with misbehaving modes and TLS),
# a Node WebSocket chat room, and real commands for startup timing. LOAD_ENGINE=epoll|io_uring runs every
# plain-HTTP case on that engine (default: auto).

bats_require_minimum_version 1.5.0

load helpers

# Start the hello server with the given arguments; sets PORT and SERVER.
start_server() {
	"$HELPERS/hello-server" "$@" >"$BATS_TEST_TMPDIR/server.out" &
	SERVER=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/server.out"
	PORT=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/server.out")
	[ -n "$PORT" ]
}

# Stop it and wait for it, in the test's own shell: a $(...) subshell cannot wait for it, and would read
# the count before the server has written it.
stop_server() {
	kill -TERM "$SERVER"
	wait "$SERVER" || true
	SERVER= # reaped: its PID may belong to someone else now, teardown must not signal it
}

# How many requests the stopped server saw.
server_count() {
	awk '/^requests /{print $2}' "$BATS_TEST_TMPDIR/server.out"
}

field() {
	python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[k]
print(d)' "$1" <<<"$output"
}

# harness load on an http:// URL with the engine under test.
hload() {
	"$HARNESS" load --engine "${LOAD_ENGINE:-auto}" "$@"
}

teardown() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
	[ -z "${SERVER_B:-}" ] || kill "$SERVER_B" 2>/dev/null || true
}

@test "-n: the client's count matches the server's own count exactly" {
	start_server
	run hload "http://127.0.0.1:$PORT/" -c 10 -t 2 -n 5000 --json
	[ "$status" -eq 0 ]
	[ "$(field requests)" = 5000 ]
	[ "$(field errors.total)" = 0 ]
	stop_server
	[ "$(server_count)" = 5000 ]
}

@test "both engines: the same load on epoll and on io_uring, counted alike and each recorded" {
	"$HARNESS" load "http://127.0.0.1:9/" --engine nonsense -n 1 2>"$BATS_TEST_TMPDIR/err" && false
	grep -q "epoll, io_uring or auto" "$BATS_TEST_TMPDIR/err"
	run "$HARNESS" load --engine io_uring "https://127.0.0.1:9/" -n 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"TLS runs on epoll"* ]]
	start_server
	for engine in epoll io_uring; do
		run "$HARNESS" load "http://127.0.0.1:$PORT/" --engine "$engine" -c 50 --pipeline 2 -n 20000 --json
		[ "$status" -eq 0 ]
		[ "$(field engine)" = "$engine" ]
		[ "$(field requests)" = 20000 ]
		[ "$(field errors.total)" = 0 ]
		[ "$(field bytes)" = $((20000 * 78)) ]
	done
	run "$HARNESS" load "http://127.0.0.1:$PORT/" --engine io_uring -c 3 -n 30
	[[ "$output" == *"engine io_uring"* ]]
	stop_server
	[ "$(server_count)" = 40030 ]
}

# The io_uring set-up flags this kernel accepts, asked of io_uring_setup directly (not through harness): the
# best of SINGLE_ISSUER|DEFER_TASKRUN, COOP_TASKRUN and none, as the names engine_setup.ring_flags gives.
kernel_ring_flags() {
	python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for flags, names in ((1 << 12 | 1 << 13, "single_issuer,defer_taskrun"), (1 << 8, "coop_taskrun"), (0, "")):
    params = (ctypes.c_uint32 * 30)()
    params[2] = flags | 1 << 6  # IORING_SETUP_R_DISABLED: nothing runs on it
    fd = libc.syscall(425, 8, params)  # io_uring_setup
    if fd >= 0:
        os.close(fd)
        print(names)
        break
PY
}

# engine, ring flags, buffer ring, multishot, fallback and why of the JSON in $output, one line.
setup_of() {
	python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["engine_setup"]
print(d["engine"], ",".join(s["ring_flags"]) or "-", s["buffer_ring"], s["multishot_recv"], s["fallback"], s.get("why", "-"))' <<<"$output"
}

@test "engine_setup: the io_uring mode the kernel gave the client, and each fallback HARNESS_LOAD_URING forces named" {
	start_server
	run "$HARNESS" load --engine io_uring "http://127.0.0.1:1/" -n 1
	if [ "$status" -eq 3 ]; then # io_uring is refused here: auto takes epoll and says why
		run "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 400 --json
		[ "$status" -eq 0 ]
		[[ "$(setup_of)" == "epoll - False False epoll io_uring"* ]]
		skip "io_uring is refused here: only the epoll fallback's record checked"
	fi
	want=$(kernel_ring_flags)
	echo "the kernel takes: '$want'"
	[ "$want" = single_issuer,defer_taskrun ] && fb=none || fb=coop_taskrun
	[ -n "$want" ] # a kernel with multishot receive (6.0) has COOP_TASKRUN (5.19)
	run "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 400 --json
	[ "$status" -eq 0 ]
	echo "$(setup_of)"
	[[ "$(setup_of)" == "io_uring $want True True $fb "* ]]
	HARNESS_LOAD_URING=coop run "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 400 --json
	[ "$(setup_of)" = "io_uring coop_taskrun True True coop_taskrun HARNESS_LOAD_URING=coop" ]
	HARNESS_LOAD_URING=default run "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 400 --json
	[ "$(setup_of)" = "io_uring - True True default_taskrun HARNESS_LOAD_URING=default" ]
	HARNESS_LOAD_URING=off run "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 400 --json
	[ "$(setup_of)" = "epoll - False False epoll io_uring_setup: refused (HARNESS_LOAD_URING=off)" ]
	[ "$(field requests)" = 400 ]
	# the text names the fallback too; a forced io_uring is refused as where the kernel refuses it
	HARNESS_LOAD_URING=coop run "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 400
	[[ "$output" == *"engine io_uring (coop_taskrun), fallback coop_taskrun: HARNESS_LOAD_URING=coop"* ]]
	HARNESS_LOAD_URING=off run "$HARNESS" load --engine io_uring "http://127.0.0.1:$PORT/" -n 1
	[ "$status" -eq 3 ]
	[[ "$output" == *"io_uring cannot be used here: io_uring_setup: refused (HARNESS_LOAD_URING=off)"* ]]
	HARNESS_LOAD_URING=sqpoll run "$HARNESS" load "http://127.0.0.1:$PORT/" -n 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"HARNESS_LOAD_URING takes defer, coop, default or off, not 'sqpoll'"* ]]
	# epoll asked: no ring, nothing fell back
	run "$HARNESS" load --engine epoll "http://127.0.0.1:$PORT/" -c 4 -n 400 --json
	[ "$(setup_of)" = "epoll - False False none -" ]
	stop_server
	[ "$(server_count)" = $((6 * 400)) ]
}

@test "pipelined requests are answered and counted one by one" {
	start_server
	run hload "http://127.0.0.1:$PORT/" -c 4 --pipeline 16 -n 6400 --json
	[ "$status" -eq 0 ]
	[ "$(field requests)" = 6400 ]
	stop_server
	echo "the server counted $(server_count); the client's JSON: $output"
	[ "$(server_count)" = 6400 ]
}

@test "-d: req/s, ordered percentiles, bytes, client cost in the JSON" {
	start_server
	run hload "http://127.0.0.1:$PORT/" -c 50 -t 1 -d 2s --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
l = d["latency_us"]
assert d["rps"] > 1000 and d["requests"] > 2000, d
assert 1.9 < d["duration_s"] < 2.5
assert l["min"] <= l["p50"] <= l["p75"] <= l["p90"] <= l["p95"] <= l["p99"] <= l["p999"] <= l["max"], l
assert d["bytes"] >= d["requests"] * 78  # one response is 78 bytes
assert d["client"]["cpu_us_per_request"] > 0 and 0 < d["client"]["max_thread_busy"] <= 1.05
assert d["config"]["mode"] == "closed" and d["errors"]["total"] == 0
PY
	stop_server
}

@test "chunked responses parse" {
	start_server --mode chunked
	run hload "http://127.0.0.1:$PORT/" -c 5 -n 2000 --json
	[ "$status" -eq 0 ]
	[ "$(field errors.parse)" = 0 ]
	[ "$(field requests)" = 2000 ]
}

@test "a server that resets mid-response: read errors, exit 1" {
	start_server --mode reset
	run hload "http://127.0.0.1:$PORT/" -c 5 -n 1000 --json
	[ "$status" -eq 1 ]
	[ "$(field errors.read)" -gt 0 ]
	[ "$(field reconnects)" -gt 0 ]
}

@test "a server that stalls past --timeout: timeout errors" {
	start_server --mode stall
	run hload "http://127.0.0.1:$PORT/" -c 5 -d 1.5s --timeout 200 --json
	[ "$status" -eq 1 ]
	[ "$(field errors.timeout)" -gt 0 ]
}

@test "Connection: close from the server: reconnects, no errors" {
	start_server --mode close
	run hload "http://127.0.0.1:$PORT/" -c 5 -n 1000 --json
	[ "$status" -eq 0 ]
	[ "$(field reconnects)" -ge 90 ]
	[ "$(field errors.total)" = 0 ]
	stop_server
	[ "$(server_count)" = 1000 ]
}

@test "5xx answers count as errors by kind" {
	start_server --mode 500
	run hload "http://127.0.0.1:$PORT/" -c 1 -n 1000 --json
	[ "$status" -eq 1 ]
	[ "$(field errors.status_5xx)" = 100 ]
	[ "$(field errors.status_4xx)" = 0 ]
}

@test "open loop -R: the rate is kept, and both corrected and uncorrected latency are reported" {
	start_server
	run hload "http://127.0.0.1:$PORT/" -c 20 -R 2000 -d 2s --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
assert d["config"]["mode"] == "open"
assert 3600 <= d["requests"] <= 4200, d["requests"]
assert d["latency_uncorrected_us"]["p50"] <= d["latency_us"]["p50"] + 1
PY
}

@test "open loop against a stalling server: waiting counts from the intended send time" {
	start_server --mode stall
	# one request in ten stalls its connection until --timeout: the requests queued behind it on that
	# connection wait, and that wait must show in the corrected latency, not vanish from it
	run hload "http://127.0.0.1:$PORT/" -c 4 -R 400 -d 2s --timeout 300 --json
	python3 - "$output" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
c, u = d["latency_us"], d["latency_uncorrected_us"]
assert d["errors"]["timeout"] > 0, d["errors"]
assert c["p99"] > 2 * u["p99"], (c, u)
assert c["max"] >= 100000, c  # some waited behind a stalled request for a good part of the 300 ms
PY
}

@test "TLS against a self-signed certificate: -k works, certificate checks refuse it otherwise" {
	command -v openssl >/dev/null || hx_skip "openssl is missing (make deps)"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
		-keyout "$BATS_TEST_TMPDIR/key.pem" -out "$BATS_TEST_TMPDIR/cert.pem" 2>/dev/null
	start_server --tls "$BATS_TEST_TMPDIR/cert.pem" "$BATS_TEST_TMPDIR/key.pem"
	run "$HARNESS" load "https://127.0.0.1:$PORT/" -k -c 4 -n 400 --json
	[ "$status" -eq 0 ]
	[ "$(field requests)" = 400 ]
	[ "$(field config.transport)" = tls ]
	run "$HARNESS" load "https://127.0.0.1:$PORT/" -c 2 -n 10 --json
	[ "$status" -eq 1 ]
	[ "$(field errors.connect)" -gt 0 ]
	[ "$(field requests)" = 0 ]
}

@test "libcurl and OpenSSL are opened by the loads that use them: a plain load runs without, a check names the package" {
	need_root # a private mount namespace hides the library
	command -v unshare >/dev/null || hx_skip "unshare is missing (util-linux)"
	# the start links none of them (make bench-start: they were most of every start's cost)
	run readelf -d "$HARNESS"
	[ "$status" -eq 0 ]
	[[ "$output" == *"libc.so.6"* ]]
	[[ "$output" != *libcurl* && "$output" != *libarchive* && "$output" != *libssl* && "$output" != *libcrypto* ]]
	lib=$(readlink -f "$(ldconfig -p | awk '$1 == "libcurl.so.4" {print $NF; exit}')")
	[ -f "$lib" ]
	start_server
	hidden() { unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' _ "$lib" "$@"; }
	run hidden "$HARNESS" load "http://127.0.0.1:$PORT/" -c 1 -n 5 --json
	[ "$status" -eq 0 ]
	[ "$(field requests)" = 5 ]
	run hidden "$HARNESS" load "http://127.0.0.1:$PORT/" -c 1 -n 5 --expect-status 200
	[ "$status" -eq 3 ]
	[[ "$output" == *"needs libcurl.so.4 (the Debian package libcurl4)"* ]]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
}

@test "a refused connection and a bad URL fail clearly" {
	# nothing listens on the discard port here: named before any load, not measured as errors
	run hload "http://127.0.0.1:9/" -c 1 -n 3 --json
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot connect to 127.0.0.1:9: Connection refused"* ]]
	run "$HARNESS" load "gopher://x/" -n 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"not an http, https, ws or wss URL"* ]]
	run hload "http://127.0.0.1:1/" -n 1 -d 1s
	[ "$status" -eq 2 ]
	[[ "$output" == *"give -n or -d, not both"* ]]
}

# A chat room (the chat-drops fixture's hand-written one) with the given arguments; PIDVAR and PORTVAR get its PID
# and port.   start_room NAME PIDVAR PORTVAR [ARGS...]
start_room() {
	local name=$1 pidvar=$2 portvar=$3 port
	shift 3
	node "$HARNESS_FIXTURES/scenarios/chat-drops/ws-chat.js" 0 "$@" >"$BATS_TEST_TMPDIR/$name.out" &
	printf -v "$pidvar" %s $!
	wait_until 30 grep -qs '^port ' "$BATS_TEST_TMPDIR/$name.out"
	port=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/$name.out")
	[ -n "$port" ]
	printf -v "$portvar" %s "$port"
}

start_chat() {
	start_room chat SERVER PORT "$@"
}

@test "WebSocket chat: 16 clients x 80 messages = 20,480 deliveries, each exactly once" {
	start_chat
	run "$HARNESS" load --chat "ws://127.0.0.1:$PORT/" --clients 16 --messages 80 --json
	[ "$status" -eq 0 ]
	[ "$(field deliveries)" = 20480 ]
	[ "$(field invariant_ok)" = True ]
	[ "$(field lost)" = 0 ]
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["deliveries_per_s"] > 0 and 0 < d["rtt_us"]["p50"] <= d["rtt_us"]["p99"]' "$output"
}

@test "WebSocket chat: a server that drops messages fails the run" {
	start_chat --drop 300
	run --separate-stderr "$HARNESS" load --chat "ws://127.0.0.1:$PORT/" --clients 8 --messages 40 --timeout 1000 --json
	[ "$status" -eq 1 ]
	[ "$(field invariant_ok)" = False ]
	[ "$(field lost)" -gt 0 ]
	[[ "$(field why)" == *"deliveries lost"* ]]
	# found by the order of a sender's messages (a later one came first), not by the room falling silent
	[[ "$(field why)" =~ ^client\ [0-9]+\ got\ message\ [0-9]+\ of\ client\ [0-9]+\ before\ message\ [0-9]+: ]]
}

# A chat duet's client (harness ab on a ws-chat scenario): two rooms, the windows in --duet-order, one side each.
start_chat_b() {
	start_room chat-b SERVER_B PORT_B "$@"
}

@test "WebSocket chat duet: windows in --duet-order, one room each, its deliveries and round trips, nothing reconnects" {
	start_chat
	start_chat_b
	run --separate-stderr "$HARNESS" load --chat "ws://127.0.0.1:$PORT/" --clients 8 --duet "ws://127.0.0.1:$PORT_B/" \
		--duet-order ABBAAB --duet-window 0.1s
	[ "$status" -eq 0 ] || {
		echo "$output $stderr" >&2
		false
	}
	python3 - <<PY
import json
lines = [json.loads(l) for l in """$output""".splitlines()]
w, end = lines[:-1], lines[-1]
assert [x["side"] for x in w] == list("ABBAAB") and [x["window"] for x in w] == list(range(6)), w
for a, b in zip(w, w[1:]):
    assert b["start_mono_s"] >= a["start_mono_s"] + a["duration_s"] - 1e-6, (a, b)  # no window overlaps the next
for x in w:
    # 8 clients, each message to all 8: the deliveries within 0.1 s, and every message back to its sender
    assert x["requests"] > 8 * 8 and x["errors"] == 0 and x["reconnects"] == 0 and "why" not in x, x
    assert 0 < x["latency_us"]["p50"] <= x["latency_us"]["p99"] <= x["latency_us"]["max"], x
    # its sending time and its drain, whose deliveries it counts (each client's last message to all 8, about)
    assert abs(x["duration_s"] - 0.1 - x["drain_ms"] / 1e3) < 1e-5 and 0 < x["drained"] < x["requests"], x
assert end["end"] is True and end["errors"] == 0 and end["requests"] == sum(x["requests"] for x in w), end
PY
}

# One delivery in 50 skipped by side B's room: a message of a sender reaches a client after a later one (or never);
# B's first window counts it and says so, A's windows stay clean, and the client exits 1 naming a client of B.
@test "WebSocket chat duet: a room that drops deliveries fails the duet in its side's window, exit 1" {
	start_chat
	start_chat_b --drop 50
	run --separate-stderr "$HARNESS" load --chat "ws://127.0.0.1:$PORT/" --clients 8 --duet "ws://127.0.0.1:$PORT_B/" \
		--duet-order ABAB --duet-window 0.1s --timeout 1000
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"chat invariant broken: "*" of B"* ]]
	python3 - <<PY
import json
lines = [json.loads(l) for l in """$output""".splitlines()]
w, end = [x for x in lines if "window" in x], lines[-1]
assert w[0]["side"] == "A" and w[0]["errors"] == 0 and "why" not in w[0], w[0]
assert len(w) >= 2 and w[1]["side"] == "B" and w[1]["errors"] > 0 and " of B" in w[1]["why"], w[1:2]
assert all(x["why"] == w[1]["why"] for x in w[1:]), w  # every line from the failure on says it
assert end["end"] is True and end["errors"] > 0 and end["why"] == w[1]["why"], end
PY
}

# Bad usage of a chat duet: exit 2 with the fix.
@test "WebSocket chat duet: --duet-order without --duet, a bad order, or --messages is exit 2" {
	run -2 "$HARNESS" load --chat ws://127.0.0.1:9/ --duet-order AB
	[[ "$output" == *"a chat duet takes --duet URL_B with --duet-order"* ]]
	run -2 "$HARNESS" load --chat ws://127.0.0.1:9/ --duet ws://127.0.0.1:10/ --duet-order AXB
	[[ "$output" == *"--duet takes --duet-order, a side per window: A or B"* ]]
	run -2 "$HARNESS" load --chat ws://127.0.0.1:9/ --duet ws://127.0.0.1:10/ --duet-order AB --messages 5
	[[ "$output" == *"a chat duet runs by windows: drop --messages"* ]]
}

@test "startup, plain: runs, hyperfine's export format, a failing command fails the series" {
	run "$HARNESS" load --startup --no-sandbox -r 5 -w 1 --json --export-hyperfine "$BATS_TEST_TMPDIR/h.json" -- /bin/true
	[ "$status" -eq 0 ]
	[ "$(field runs)" = 5 ]
	python3 - "$BATS_TEST_TMPDIR/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["command"] == "/bin/true" and len(r["times"]) == 5 and r["exit_codes"] == [0] * 5
assert 0 < r["min"] <= r["median"] <= r["max"] < 1
for k in ("mean", "stddev", "user", "system"): assert k in r
PY
	run "$HARNESS" load --startup --no-sandbox -r 3 -w 0 -- /bin/false
	[ "$status" -eq 1 ]
	# every run failed: no timings (the time it takes to fail is no startup time), and why
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "harness: load: all 3 runs of '/bin/false' exited non-zero (the last: status 1): no timings; --show-output shows what it printed" ]]
	run "$HARNESS" load --startup --no-sandbox -r 3 -- /nonexistent
	[ "$status" -eq 2 ]
}

@test "startup, sandboxed: every run in a fresh sandbox, its output discarded unless asked for" {
	need_root
	run "$HARNESS" load --startup -r 5 -w 1 --json -- sh -c 'echo "hidden-$((40 + 2))"; test "$(id -u)" = 2147479552'
	[ "$status" -eq 0 ]
	[ "$(field sandbox)" = True ]
	[ "$(field failed_runs)" = 0 ]
	[[ "$output" != *hidden-42* ]]
	run "$HARNESS" load --startup -r 2 -w 0 --show-output -- sh -c 'echo "shown-$((40 + 2))"'
	[[ "$output" == *shown-42* ]]
	assert_no_leftovers
}

@test "startup, sandboxed: a script in this folder, which the sandbox does not show, is refused before any run, with the fix" {
	need_root
	cd "$BATS_TEST_TMPDIR"
	echo 'console.log("hi")' >hi.js
	run "$HARNESS" load --startup -r 3 -w 0 -- node hi.js
	[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"load: --startup: 'hi.js' is in this folder, which the sandbox does not show"*'--bind "$PWD:/src" and name /src/hi.js'*"--no-sandbox"* ]]
	run "$HARNESS" load --startup -r 3 -w 0 -- node "$PWD/hi.js"
	[ "$status" -eq 2 ]
	[[ "$output" == *"the sandbox does not show '$PWD/hi.js'"* ]]
	# the fix it names works
	command -v node >/dev/null || hx_skip "needs a node on the host"
	run --separate-stderr "$HARNESS" load --startup -r 3 -w 0 --bind "$PWD:/src" -- node /src/hi.js
	[ "$status" -eq 0 ]
	[[ "$output" == *"Benchmark: node /src/hi.js (sandboxed)"* ]]
	assert_no_leftovers
}
