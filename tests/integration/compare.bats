#!/usr/bin/env bats
# harness compare on real runs: two sets of trials of the same server pass the gate; a server that sleeps 1 ms per
# request is a significant slowdown and exits 1; the output is the same byte for byte; other hosts are refused.
# Two small runs of node20 (21 trials of 1,500 requests in all) in setup_file: about 40 s.
#
# The A/A pair is one run of 14 trials split into its odd and even trials (7 a side: fewer cannot give a verdict
# on a comparison of more than a few rows, docs/statistics.md): both halves saw the same host, so
# whatever else ran on the machine meanwhile cannot pass for a difference (two runs one after the other on a
# shared machine can differ by a third: docs/statistics.md).

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	cd "$BATS_FILE_TMPDIR"
	"$HARNESS" run --cpus 1 --runtimes node20 --repeat 14 --out ten.json "$FIXTURES/scenarios/compare-hello" \
		>a.log 2>&1 || true
	cp a.log aa.log
	python3 - ten.json <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("summaries", None)
trials = d.pop("trials")
for name, parity in (("a", 1), ("aa", 0)):
    half = [dict(t, trial=(t["trial"] + 1) // 2) for t in trials if t["trial"] % 2 == parity]
    json.dump(dict(d, trials=half), open(name + ".json", "w"))
PY
	"$HARNESS" run --cpus 1 --runtimes node20 --repeat 7 --out b.json "$FIXTURES/scenarios/compare-hello-slow" \
		>b.log 2>&1 || true
}

setup() {
	need_root
	cd "$BATS_FILE_TMPDIR"
	for f in a aa b; do
		[ -s $f.json ] || {
			cat $f.log >&2
			return 1
		}
	done
}

teardown_file() {
	assert_no_leftovers
}

# The verdict of the req/s row in a JSON comparison.
rps_verdict() {
	python3 -c 'import json, sys
rows = [r for r in json.load(sys.stdin)["rows"] if r["metric"] == "rps"]
assert len(rows) == 1, rows
print(rows[0]["verdict"], rows[0]["regression"], rows[0]["ratio"] < 1)'
}

@test "compare: the odd and even trials of one run pass the gate and nothing is slower" {
	run "$HARNESS" compare a.json aa.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Gate: passed"* ]]
	[[ "$output" == *"== compare-hello"* ]]
	grep -E '^node20 +pinned +req/s ' <<<"$output"
	refute grep -E ' (slower|larger|dearer)$' <<<"$output"
}

@test "compare: a server that sleeps 1 ms per request is significantly slower, exit 1; --fail-on none: exit 0" {
	run "$HARNESS" compare a.json b.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Gate: FAILED"* ]]
	grep -E '^node20 +pinned +req/s .* slower$' <<<"$output"
	run --separate-stderr "$HARNESS" compare --format json a.json b.json
	[ "$status" -eq 1 ]
	[ "$(rps_verdict <<<"$output")" = "slower True True" ]
	run "$HARNESS" compare --fail-on none a.json b.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"Gate: off"* ]]
	# quiet-regression: the same regression fails unless outside noise in B's trials explains it (this host
	# decides which)
	run "$HARNESS" compare --fail-on quiet-regression a.json b.json
	if grep -qE '^node20 +pinned +req/s .* slower \(excused, --fail-on quiet-regression: outside noise in B.s trials [0-9]+ \(' <<<"$output"; then
		[ "$status" -eq 0 ]
		[[ "$output" == *"significant regression(s) excused"* ]]
	else
		grep -E '^node20 +pinned +req/s .* slower$' <<<"$output"
		[ "$status" -eq 1 ]
	fi
	# the other way round, B is faster: no regression in req/s (its latency improved too)
	run --separate-stderr "$HARNESS" compare --format json b.json a.json
	[ "$(rps_verdict <<<"$output")" = "faster False False" ]
}

@test "compare: a file against its copy at 0.7x the throughput fails the gate at the action's default repeat" {
	repeat=$(python3 -c 'import re, sys
print(re.search(r"\n  repeat:\n(?:    .*\n)*?    default: \"(\d+)\"", open(sys.argv[1]).read()).group(1))' "$HARNESS_TOP/ci/action.yml")
	[ "$repeat" -ge 5 ]
	python3 - ten.json "$repeat" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
d.pop("summaries", None)
d["trials"] = [t for t in d["trials"] if t["trial"] <= int(sys.argv[2])]
# the run's own req/s spread with its host (a busy host here gave 30%); the gate is asked about a known one: CV
# 10% (normal quantiles in a fixed shuffled order), the noise at which docs/statistics.md measures its power
load = [t for t in d["trials"] if "load" in t]
m, n = statistics.median(t["load"]["rps"] for t in load), len(load)
for k, t in enumerate(load):
    t["load"]["rps"] = m * (1 + 0.1 * statistics.NormalDist().inv_cdf(((k * 7) % n + 0.5) / n))
json.dump(d, open("x.json", "w"))
for t in d["trials"]:
    if "load" in t:
        t["load"]["rps"] *= 0.7
json.dump(d, open("y.json", "w"))
PY
	run "$HARNESS" compare x.json y.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Gate: FAILED"*"(Holm-adjusted over "* ]]
	grep -E '^node20 +pinned +req/s .* 0\.700x .* slower$' <<<"$output"
	# and a repeat too small for any verdict is said, with its own exit status, never "passed"
	python3 -c 'import json; d = json.load(open("x.json")); d["trials"] = [t for t in d["trials"] if t["trial"] <= 2]
json.dump(d, open("x2.json", "w"))'
	run "$HARNESS" compare x2.json x2.json
	echo "$output"
	[ "$status" -eq 5 ]
	[[ "$output" == *"Gate: NOT JUDGED"* ]]
	[[ "$output" == *"too few trials: "*" per side needed for any verdict"* ]]
}

@test "compare: the same two files give the same output byte for byte, in every format" {
	for fmt in table md json; do
		"$HARNESS" compare --fail-on none --format $fmt a.json b.json >one.$fmt
		"$HARNESS" compare --fail-on none --format $fmt a.json b.json >two.$fmt
		cmp one.$fmt two.$fmt
	done
	python3 -c 'import json; d = json.load(open("one.json")); assert d["options"]["seed"] == 0x5eed and d["options"]["bootstrap_resamples"] == 2000'
}

@test "compare: another CPU model is refused naming the field, unless --allow-different-host" {
	python3 -c 'import json; d = json.load(open("b.json")); d["host"]["cpus"]["model"] = "Imaginary CPU 9000"; d["host"]["kernel"]["release"] = "9.9.9"; json.dump(d, open("other.json", "w"))'
	run --separate-stderr "$HARNESS" compare a.json other.json
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"host.cpus.model differs"*"--allow-different-host"* ]]
	[[ "$stderr" == *"host.kernel.release: "*" → 9.9.9"* ]]
	run "$HARNESS" compare --allow-different-host a.json other.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"host.cpus.model: "*"Imaginary CPU 9000 (not comparable without --allow-different-host)"* ]]
}

@test "compare: bad usage and files that are not results exit 2 naming the fix" {
	run --separate-stderr "$HARNESS" compare a.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"expected two results files"* ]]
	echo '{"schema": "something-else"}' >x.json
	run --separate-stderr "$HARNESS" compare a.json x.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"x.json is not a harness results file"* ]]
	run --separate-stderr "$HARNESS" compare --threshold 0 a.json aa.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--threshold takes a percentage"* ]]
	run --separate-stderr "$HARNESS" compare --format csv a.json aa.json
	[ "$status" -eq 2 ]
	run --separate-stderr "$HARNESS" compare --fail-on always a.json b.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "harness: compare: --fail-on: expected regression, quiet-regression or none, not 'always'" ]
}
