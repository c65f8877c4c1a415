#!/usr/bin/env bats
# ci/run.sh as a GitHub runner runs it, with the runner's environment simulated (GITHUB_STEP_SUMMARY,
# GITHUB_OUTPUT, RUNNER_TEMP, GITHUB_SHA): a runner without the image cache pulls through npm, one with
# it (what actions/cache restores) needs no registry; the summary has the host facts and the table; a
# baseline gives a comparison. A private cache: the shared one is never touched (the ab mode's test copies
# bun from it, as actions/cache would restore it). The ab mode: a duet of bun against bun, then against a bun
# spinning a request's cost more per request, on the ab-burn fixture in 8 s each (about 40 s in all).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	reg=$(npm config get registry 2>/dev/null || true)
	[ -n "$reg" ] && curl -fsS -m 10 -o /dev/null "$reg" 2>/dev/null || hx_skip "the npm registry cannot be reached"
	export RUNNER_TEMP=$BATS_TEST_TMPDIR/runner GITHUB_STEP_SUMMARY=$BATS_TEST_TMPDIR/summary.md
	export GITHUB_OUTPUT=$BATS_TEST_TMPDIR/output GITHUB_SHA=0123456789abcdef0123456789abcdef01234567
	export GITHUB_ACTIONS=true GITHUB_REPOSITORY=someone/some-runtime
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache HARNESS_SCENARIOS=startup HARNESS_RUNTIMES=node24
	export HARNESS_CPUS=1 HARNESS_PROFILE=quick HARNESS_REPEAT=1
	mkdir -p "$RUNNER_TEMP"
	: >"$GITHUB_STEP_SUMMARY"
	: >"$GITHUB_OUTPUT"
}

teardown() {
	assert_no_leftovers
}

output_of() { # the value of KEY in GITHUB_OUTPUT (the last one)
	sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -1
}

@test "ci/run.sh on a cold runner pulls the images, then a warm cache needs no registry; summary, outputs, compare" {
	run --separate-stderr "$HARNESS_TOP/ci/run.sh"
	echo "$output" | tail -20
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	[[ "$output" == *"node24 24."*": present (sha512-"* ]] # pulled into the empty cache
	first=$(output_of results)
	[ "$first" = "$RUNNER_TEMP/harness.json" ]
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["trials"] and all(t["status"] == "ok" for t in d["trials"])' "$first"
	grep -q '^## harness' "$GITHUB_STEP_SUMMARY"
	grep -qE '^\*\*Host\*\*: [0-9]+ CPUs .* kernel .* commit 0123456789abcdef.* \(harness [0-9a-f]{12}\)' "$GITHUB_STEP_SUMMARY"
	grep -q '^\*\*CPU budget\*\*: 1 CPU(s) for the runtime (the `cpus` input)' "$GITHUB_STEP_SUMMARY"
	# harness's own commit, and the calling repository's beside it
	python3 - "$first" "$("$HARNESS_TOP/bin/harness" --version | sed -n 's/.*commit \([0-9a-f]*\)).*/\1/p')" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["harness"]
assert len(sys.argv[2]) == 12 and h["commit"] == sys.argv[2], h
assert h["ci"]["repository"] == "someone/some-runtime" and h["ci"]["commit"].startswith("0123456789abcdef"), h
PY
	grep -qE '^\| *runtime *\|' "$GITHUB_STEP_SUMMARY" # the Markdown table
	grep -qE '^\| *node24 *\|' "$GITHUB_STEP_SUMMARY"
	blob=$(ls "$HARNESS_CACHE_DIR"/blobs/sha512-*)
	before=$(stat -c %Y:%i "$blob")

	# a restored cache: no registry at all, and the first results as the baseline
	cp "$first" "$BATS_TEST_TMPDIR/baseline.json"
	: >"$GITHUB_STEP_SUMMARY"
	# no cpus input: the most the host gives the runtime with the client's CPU kept, said in the summary
	max=$("$HARNESS" doctor --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["max_pinned_cpus"])')
	run --separate-stderr env -u HARNESS_CPUS npm_config_registry=http://127.0.0.1:9/ HARNESS_BASELINE="$BATS_TEST_TMPDIR/baseline.json" \
		HARNESS_FAIL_ON=none "$HARNESS_TOP/ci/run.sh"
	echo "$output" | tail -20
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ] # the run passed, and the comparison gates nothing
	grep -q "^\*\*CPU budget\*\*: $max CPU(s) for the runtime, the most this $(nproc)-CPU runner gives" "$GITHUB_STEP_SUMMARY"
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["config"]["cpus"] == int(sys.argv[2])' \
		"$(output_of results)" "$max"
	grep -q '^Gate: off (--fail-on none)' "$GITHUB_STEP_SUMMARY"
	[ "$(stat -c %Y:%i "$blob")" = "$before" ]
	grep -q '^### Against the baseline' "$GITHUB_STEP_SUMMARY"
	grep -q '^## harness compare: threshold 5%' "$GITHUB_STEP_SUMMARY"
	grep -qE '^\| *node24 *\| *pinned *\| *startup ms' "$GITHUB_STEP_SUMMARY" # a row of the comparison
	[ -s "$RUNNER_TEMP/harness.html" ]
	grep -q '<svg' "$RUNNER_TEMP/harness.html"
	[ "$(output_of name)" = harness ]

	# a baseline from other hardware: not compared, said in the summary, and the step does not fail for it;
	# its CPU model is the file's text, and reaches the summary as text (no link, no HTML)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["host"]["cpus"]["model"] = "Imaginary [CPU](http://127.0.0.1:9/) <b>9000</b>"; json.dump(d, open(sys.argv[2], "w"))' \
		"$BATS_TEST_TMPDIR/baseline.json" "$BATS_TEST_TMPDIR/other.json"
	: >"$GITHUB_STEP_SUMMARY"
	run --separate-stderr env npm_config_registry=http://127.0.0.1:9/ HARNESS_BASELINE="$BATS_TEST_TMPDIR/other.json" \
		"$HARNESS_TOP/ci/run.sh"
	[ "$status" -eq 0 ]
	grep -q '^Not compared: harness: compare: host.cpus.model differs .*--allow-different-host' "$GITHUB_STEP_SUMMARY"
	grep -qF 'Imaginary \[CPU\](http://127.0.0.1:9/) &lt;b&gt;9000&lt;/b&gt;' "$GITHUB_STEP_SUMMARY"
	run ! grep -qF '<b>' "$GITHUB_STEP_SUMMARY"
	run ! grep -qP '(?<!\\)\]\(' "$GITHUB_STEP_SUMMARY"
}

@test "ci/run.sh's ab mode: a duet of two sides; its first line and table in the summary, its verdict in the outputs, ab's exit the gate" {
	# what actions/cache restores (blobs and trees), from the machine's cache when it has bun; else pulled
	local digest
	digest=$("$HARNESS" images ls --json | python3 -c 'import json,sys; print([i["digest"] for i in json.load(sys.stdin) if i["name"] == "bun"][0])')
	mkdir -p "$HARNESS_CACHE_DIR/blobs" "$HARNESS_CACHE_DIR/trees"
	if [ -d "/var/cache/harness/trees/$digest" ] && [ -f "/var/cache/harness/blobs/$digest" ]; then
		cp -a "/var/cache/harness/blobs/$digest" "$HARNESS_CACHE_DIR/blobs/"
		cp -a "/var/cache/harness/trees/$digest" "$HARNESS_CACHE_DIR/trees/"
	fi
	export HARNESS_AB_A=bun HARNESS_SCENARIOS=$FIXTURES/scenarios/ab-burn HARNESS_MAX_TIME=8s
	export HARNESS_AB_ARGS="--window 0.25 --seed 29"

	# the same runtime on both sides (b defaults to a): ab's exit is the step's, 1 exactly when B is called slower
	run --separate-stderr "$HARNESS_TOP/ci/run.sh"
	echo "$output" | tail -20
	echo "$stderr" | tail -5
	verdict=$(output_of verdict)
	[[ "$verdict" =~ ^(faster|slower|equivalent|below_threshold|inconclusive)$ ]]
	if [ "$verdict" = slower ]; then [ "$status" -eq 1 ]; else [ "$status" -eq 0 ]; fi
	doc=$(output_of results)
	[ "$doc" = "$RUNNER_TEMP/harness-ab.json" ]
	python3 - "$doc" "$verdict" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "harness-ab/1" and d["sides"]["A"]["runtime"] == d["sides"]["B"]["runtime"] == "bun", d["sides"]
assert d["max_time_s"] == 8 and d["window_s"] == 0.25 and d["seed"] == 29
assert d["verdicts"]["throughput"]["verdict"] == sys.argv[2]
PY
	grep -qx '## harness ab' "$GITHUB_STEP_SUMMARY"
	grep -qE '^\*\*Host\*\*: [0-9]+ CPUs .* commit 0123456789abcdef' "$GITHUB_STEP_SUMMARY"
	line=$(output_of line)
	[[ "$line" =~ ^B\ ran\ [0-9.]+x\ \[[0-9.]+-[0-9.]+\]\ (slower|faster)\ than\ A:\  ]]
	grep -qxF "$line" "$GITHUB_STEP_SUMMARY"
	grep -qxF '| metric | A | B | B/A | 95% CI | p | verdict |' "$GITHUB_STEP_SUMMARY"
	grep -qE '^\| throughput \| [0-9]+ req/s \| [0-9]+ req/s \| [0-9.]+ \| \[[0-9.]+, [0-9.]+\] \| .* \| '"${verdict/_/ }"' \|$' \
		"$GITHUB_STEP_SUMMARY"
	run ! grep -q '^results: ' "$GITHUB_STEP_SUMMARY" # the runner's path is in the outputs, not the summary
	[ "$(output_of name)" = harness-ab ]

	# B spinning about one request's cost more per request (from A's throughput above): slower, exit 1
	burn=$(python3 -c 'import json,sys; w=[x for x in json.load(open(sys.argv[1]))["windows"] if x["side"]=="A"]; print(int(1e9*sum(x["duration_s"] for x in w)/sum(x["requests"] for x in w)))' "$doc")
	: >"$GITHUB_STEP_SUMMARY"
	run --separate-stderr env HARNESS_AB_B=bun HARNESS_AB_ARGS="$HARNESS_AB_ARGS --b-env BURN_NS=$burn" "$HARNESS_TOP/ci/run.sh"
	echo "$output" | tail -5
	[ "$status" -eq 1 ]
	[ "$(output_of verdict)" = slower ]
	[[ "$(output_of line)" == "B ran "*" slower than A: slower beyond 2%" ]]
	grep -qE '^\| throughput \| .* \| slower \|$' "$GITHUB_STEP_SUMMARY"

	# the ab mode's bad inputs: one line naming the fix, exit 2, before anything runs
	run -2 env HARNESS_A_SCENARIO=./app "$HARNESS_TOP/ci/run.sh"
	[ "$output" = "ci/run.sh: set both a-scenario and b-scenario (the base's and the change's app folders), or neither" ]
	run -2 env HARNESS_SHARD=1/2 "$HARNESS_TOP/ci/run.sh"
	[[ "$output" == *"leave shard empty in the ab mode" ]]
	run -2 env -u HARNESS_AB_A HARNESS_A_SCENARIO=./a HARNESS_B_SCENARIO=./b "$HARNESS_TOP/ci/run.sh"
	[[ "$output" == *"the ab mode needs its runtime: set a"* ]]
}
