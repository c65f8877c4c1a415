#!/usr/bin/env bats
# The command line surface: help, version, verbs, usage errors and exit codes.

bats_require_minimum_version 1.5.0

load helpers

@test "--version names the version and the commit" {
	run "$HARNESS" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^harness\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]{7,}|unknown\)$ ]]
}

@test "--help lists every verb and the exit codes" {
	run "$HARNESS" --help
	[ "$status" -eq 0 ]
	for verb in run exec load images scenarios report compare doctor gc; do
		[[ "$output" == *"  $verb "* ]] || { echo "missing verb $verb"; return 1; }
	done
	[[ "$output" == *"3  this host cannot do what was asked"* ]]
	[[ "$output" == *"4  internal failure"* ]]
}

@test "no arguments: usage on stderr, exit 2" {
	run "$HARNESS"
	[ "$status" -eq 2 ]
	[[ "$output" == *"Usage: harness VERB"* ]]
}

@test "an unknown verb is one line naming the fix, exit 2" {
	run "$HARNESS" frobnicate
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"unknown verb 'frobnicate'"*"harness --help"* ]]
}

@test "an unknown flag is one line naming the fix, exit 2" {
	run "$HARNESS" --frobnicate
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"unknown option '--frobnicate'"* ]]
	for verb in doctor exec gc load images run report; do
		run "$HARNESS" "$verb" --frobnicate
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"unknown option '--frobnicate' (see 'harness $verb --help')"* ]]
	done
}

@test "a bad option value is one line, exit 2" {
	run "$HARNESS" exec --memory lots -- true
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--memory takes a size of at least 4M (e.g. 512M, 2G), not 'lots'"* ]]
	run "$HARNESS" exec --mode turbo -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--mode takes pinned, quota or none, not 'turbo'"* ]]
	run "$HARNESS" exec
	[ "$status" -eq 2 ]
	[[ "$output" == *"no command given"* ]]
}

# One rule per option for every verb, checked before anything runs: each of these would have started a
# run (or a trial) before. Each message names the accepted range; exit 2; one line.
@test "sizes, counts, durations and paths: one validation for all verbs, before anything runs" {
	check() {
		local want=$1
		shift
		run timeout 20 "$HARNESS" "$@"
		echo "$* -> $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"$want"* ]]
	}
	check "run: --cpus takes a whole number from 1 to 1024, not '0'" run --cpus 0
	check "exec: --cpus takes a whole number from 1 to 1024, not '0'" exec --cpus 0 -- true
	check "run: --memory takes a size of at least 4M" run --memory 1K
	check "exec: --memory takes a size of at least 4M" exec --memory 1K -- true
	check "run: --client-cpus takes a whole number from 1" run --client-cpus 0
	check "run: --repeat takes a whole number from 1 to 10000, not '0'" run --repeat 0
	check "exec: --pids-max takes a whole number from 1" exec --pids-max 0 -- true
	check "exec: --tmp-size takes a size of at least 1M" exec --tmp-size 4K -- true
	check "run: --out: the folder '/nonexistent/dir' does not exist" run --out /nonexistent/dir/r.json
	check "load: --export-hyperfine: the folder '/nonexistent/dir' does not exist" load --startup \
		--export-hyperfine /nonexistent/dir/h.json -- true
	check "load: --connections takes a whole number from 1" load -c 0 http://127.0.0.1:9/
	check "load: --duration takes a duration from 0.001s" load -d 0 http://127.0.0.1:9/
	check "load: --pipeline takes a whole number from 1 to 64, not '65'" load --pipeline 65 http://127.0.0.1:9/
	check "load: --body: cannot read '/nonexistent'" load --body /nonexistent http://127.0.0.1:9/
	check "report: --format takes table, md, json, csv, html, gab, hyperfine, not 'xml'" report --format xml r.json
	check "run: --format takes table, md or json, not 'csv'" run --format csv
	check "run: --engine takes auto, epoll or io_uring, not 'kqueue'" run --engine kqueue
	check "run: --engine io_uring: express-https is https, which the load client runs on epoll only" run \
		--engine io_uring express-https
	check "report: open /nonexistent/r.json: No such file or directory" report /nonexistent/r.json
	# help shows the range
	run "$HARNESS" run --help
	[[ "$output" == *"[1 to 1024]"* ]]
	[[ "$output" == *"[at least 4M]"* ]]
}

@test "load against a port with nothing listening: connection refused, exit 2, no saturation" {
	# a port of our own that nobody listens on: bind it, do not listen, and load it
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run --separate-stderr "$HARNESS" load -d 1 "http://127.0.0.1:$port/"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"cannot connect to 127.0.0.1:$port: Connection refused"* ]]
	[[ "$output$stderr" != *saturated* ]]
}

@test "run --help says one thing about the default runtimes" {
	run "$HARNESS" run --help
	[[ "$output" == *"every shipped runtime image, pulled when absent"* ]]
	[[ "$output" != *"every present one"* ]]
}

@test "every verb has --help" {
	for verb in run exec load images scenarios report compare doctor gc; do
		run "$HARNESS" "$verb" --help
		[ "$status" -eq 0 ] || { echo "$verb --help: $status"; return 1; }
		[[ "$output" == *"Usage: harness $verb"* ]]
	done
}

@test "run --out in a folder that does not exist: exit 2 before anything runs" {
	cd "$BATS_TEST_TMPDIR"
	HARNESS_CACHE_DIR="$BATS_TEST_TMPDIR/cache" run --separate-stderr "$HARNESS" run --out "$BATS_TEST_TMPDIR/no/such/r.json" express
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "harness: run: --out: the folder '$BATS_TEST_TMPDIR/no/such' does not exist (create it first, or write elsewhere)" ]]
	# nothing ran: no image cache opened (no pull), no npm, no results folder
	[ ! -e "$BATS_TEST_TMPDIR/cache" ] && [ ! -e results ]
}

@test "report and compare warn about a partial file: interrupted, unfinished, a shard; a whole one gets no warning" {
	cd "$BATS_TEST_TMPDIR"
	python3 - "$FIXTURES/results/v1-four-workloads.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d, open("whole.json", "w"))
d["config"]["planned_trials"] = 9
d["interrupted"], d["verdict"] = True, "interrupted"
json.dump(d, open("int.json", "w"))
del d["interrupted"], d["verdict"]
json.dump(d, open("unfinished.json", "w"))
d["interrupted"], d["verdict"] = False, "ok"
d["config"]["planned_trials"] = 4
d["config"]["shard"] = {"index": 1, "count": 2, "trials": 4, "plan_trials": 8, "plan": "ab"}
json.dump(d, open("shard.json", "w"))
PY
	run --separate-stderr "$HARNESS" report whole.json
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	run --separate-stderr "$HARNESS" report int.json
	[ "$status" -eq 0 ]
	[[ "$stderr" == "harness: report: warning: int.json is partial: the run was interrupted after 4 trials of the 9 planned"* ]]
	run --separate-stderr "$HARNESS" report unfinished.json
	[[ "$stderr" == *"unfinished.json is partial: the run did not finish (killed, or still running): 4 trials of the 9 planned"* ]]
	run --separate-stderr "$HARNESS" report shard.json
	[[ "$stderr" == *"shard.json is partial: it is shard 1 of 2, 4 of the plan's 8 trials (harness merge joins the shards)"* ]]
	python3 -c 'import json; d = json.load(open("whole.json")); d["config"]["planned_trials"] = 6; json.dump(d, open("fewer.json", "w"))'
	run --separate-stderr "$HARNESS" report fewer.json
	[[ "$stderr" == *"fewer.json is partial: it holds 4 of the 6 trials its run planned"* ]]
	run --separate-stderr "$HARNESS" compare whole.json int.json
	[[ "$stderr" == *"harness: compare: warning: int.json is partial: the run was interrupted"* ]]
	[[ "$stderr" != *"whole.json is partial"* ]]
}

@test "compare says once, on stderr, to prefer harness ab when the two files are one runtime each on one host and plan" {
	cd "$BATS_TEST_TMPDIR"
	python3 - "$FIXTURES/results/noisy-bun-node24.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("summaries", None)
trials = d.pop("trials")
def side(name, runtime, **image):
    images = [dict(i, **image) if i["name"] == runtime else i for i in d["images"]]
    mine = [t for t in trials if t["runtime"] == runtime]
    config = dict(d["config"], planned_trials=len(mine))  # a whole run of its own: no partial-file warning
    json.dump(dict(d, config=config, images=images, trials=mine), open(name, "w"))
side("bun.json", "bun")
side("node24.json", "node24")
side("build.json", "bun", spec="./pr/bun", digest="sha256-" + "ab" * 32)  # another build under the name
json.dump(dict(d, trials=trials), open("both.json", "w"))
other = json.load(open("node24.json"))
other["host"] = dict(d["host"], cpus=dict(d["host"]["cpus"], model="Another CPU"))
json.dump(other, open("other-host.json", "w"))
PY
	note="harness: compare: note: bun.json and node24.json each ran one runtime on the same host and plan"
	# two runtimes under two names: no row in common (exit 2, the fix last), and the duet to prefer said first
	run --separate-stderr "$HARNESS" compare bun.json node24.json
	[ "$status" -eq 2 ]
	[ "$(grep -c 'note:' <<<"$stderr")" -eq 1 ]
	[[ "${stderr%%$'\n'*}" == "$note"*"prefer a duet, both measured at once (docs/ab.md): harness ab bun node24 startup" ]]
	[[ "${stderr##*$'\n'}" == "harness: compare: no scenario x runtime x mode x metric with passed trials in both files" ]]
	# two builds under one name: the note names what --runtimes named, and compare still compares
	run --separate-stderr "$HARNESS" compare bun.json build.json --allow-different-images --format json --fail-on none
	[ "$status" -eq 0 ]
	[ "$(grep -c 'note:' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"prefer a duet, both measured at once (docs/ab.md): harness ab bun ./pr/bun startup" ]]
	python3 -c 'import json,sys; assert json.load(sys.stdin)["rows"]' <<<"$output" # stdout is the comparison alone
	# run to run of one runtime, two runtimes in one file, or another host: nothing to say
	for pair in "bun.json bun.json" "both.json both.json" "both.json bun.json" "bun.json other-host.json"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$HARNESS" compare $pair --allow-different-host --fail-on none
		[[ "$stderr" != *"note:"* ]] || {
			echo "$pair: $stderr"
			false
		}
	done
}

@test "run --out, report -o, merge -o: a folder, /proc, /sys, a device, a missing or read-only folder, each its own line, exit 2" {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/results/v1-four-workloads.json" r.json
	mkdir out
	refused() {
		local want=$1
		shift
		HARNESS_CACHE_DIR="$BATS_TEST_TMPDIR/cache" run --separate-stderr "$@"
		echo "$* -> $status: $stderr"
		[ "$status" -eq 2 ] && [[ "$stderr" == *"$want"* ]] && [ "$(wc -l <<<"$stderr")" -eq 1 ]
	}
	for verb in "run --out" "report r.json -o" "merge r.json -o"; do
		read -ra v <<<"$verb"
		name=${v[0]}
		refused "$name: --out: 'out' is a folder; name a file in it" "$HARNESS" "${v[@]}" out
		refused "$name: --out: the folder '/proc' is on /proc (procfs), the kernel's files" "$HARNESS" "${v[@]}" /proc/r.json
		refused "$name: --out: the folder '/sys/fs' is on sysfs, the kernel's files" "$HARNESS" "${v[@]}" /sys/fs/r.json
		refused "$name: --out: '/dev/null' is not a regular file" "$HARNESS" "${v[@]}" /dev/null
		refused "$name: --out: the folder 'missing' does not exist" "$HARNESS" "${v[@]}" missing/r.json
	done
	[ ! -e "$BATS_TEST_TMPDIR/cache" ] && [ ! -e results ] # run refused before the image cache or results/
	# a read-only folder: a read-only tmpfs of this test's own, in a mount namespace of its own
	[ "$(id -u)" = 0 ] || hx_skip "needs root to mount a read-only folder"
	mkdir ro
	for verb in "run --out" "report r.json -o" "merge r.json -o"; do
		read -ra v <<<"$verb"
		run --separate-stderr unshare -m sh -c 'mount -t tmpfs -o ro none ro && exec "$@"' sh "$HARNESS" "${v[@]}" ro/r.json
		echo "$verb -> $status: $stderr"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"--out: the folder 'ro' is on a read-only filesystem: write elsewhere" ]]
	done
	# and a good name still works
	run "$HARNESS" report r.json -o out/r.html --format html
	[ "$status" -eq 0 ] && [ -s out/r.html ]
}

@test "a typo gets one line with the name it was near: verbs, options, scenarios, runtimes" {
	typo() {
		local want=$1
		shift
		run "$HARNESS" "$@"
		echo "$* -> $status: $output"
		[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"$want"* ]]
	}
	typo "unknown verb 'rnu'; did you mean 'run'?" rnu
	typo "run: unknown option '--profle'; did you mean '--profile'?" run --profle quick
	typo "compare: unknown option '--treshold'; did you mean '--threshold'?" compare --treshold=5 a b
	typo "no scenario 'http-helo'" run http-helo
	typo "did you mean 'http-hello'?" run http-helo
	typo "no image 'bnu'" run --runtimes bnu startup
	typo "did you mean 'bun'?" run --runtimes bnu startup
	typo "did you mean 'node22'?" exec --image nod22 -- true
	typo "did you mean 'bun'?" images verify bnu
	# far from every name: no guess
	run "$HARNESS" run xyzzy
	[ "$status" -eq 2 ] && [[ "$output" != *"did you mean"* ]]
}

# A real run of bun and node24 (startup and http-hello, pinned and quota, 6 trials each) on a host busy with
# other work: most of its trials were flagged noisy.
NOISY=$FIXTURES/results/noisy-bun-node24.json

@test "report: each flagged cell's reasons, counted, the dominant first (a legend in the table, in the cell in md); a mostly noisy run says so" {
	run --separate-stderr "$HARNESS" report "$NOISY" --format table
	[ "$status" -eq 0 ]
	grep -E '^node24 +pinned .* 6 noisy trials \[5\]$' <<<"$output"
	grep -Fx '  [5] node24 pinned: contended 6, foreign 5, cpu_pressure 4' <<<"$output"
	grep -Fx '  [1] bun pinned: spread 1' <<<"$output"
	[ "$(tail -1 <<<"$output")" = "MOST TRIALS WERE NOISY: 26 of 48 (contended in 24): something outside the trial held the runtime's CPUs: run on a quiet host, or with --isolate (harness doctor says whether it can)." ]
	run --separate-stderr "$HARNESS" report "$NOISY" --format md
	grep -F '| 6 noisy trials (contended 6, foreign 5, cpu_pressure 4) |' <<<"$output"
	[[ "$(tail -1 <<<"$output")" == "**MOST TRIALS WERE NOISY: 26 of 48"* ]]
	# half the trials noisy is not most: the legend, no closing line
	run "$HARNESS" report "$FIXTURES/results/v1-four-workloads.json" --format table
	grep -Fx '  [2] node22 pinned: contended 1' <<<"$output"
	[[ "$output" != *"MOST TRIALS"* ]]
}

@test "report: one scenario on several runtimes ends with hyperfine's summary: fastest first, each ratio with its CI and significance" {
	run --separate-stderr "$HARNESS" report "$NOISY" --format table
	grep -Fx '  http-hello pinned: bun ran 2.30x (95% CI 1.57–3.20, significant) faster than node24, by ops/s' <<<"$output"
	grep -Fx '  startup pinned: bun ran 4.58x (95% CI 2.79–6.51, significant) faster than node24, by startup time' <<<"$output"
	run --separate-stderr "$HARNESS" report "$NOISY" --format md
	grep -Fx -- '- http-hello quota: bun ran 2.40x (95% CI 1.23–3.61, significant) faster than node24, by ops/s' <<<"$output"
	# fewer than 6 trials a side: the ratio, no CI
	cd "$BATS_TEST_TMPDIR"
	python3 - "$NOISY" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["trials"] = [t for t in d["trials"] if t["trial"] <= 3]
json.dump(d, open("three.json", "w"))
PY
	run "$HARNESS" report three.json --format table
	grep -E '^  http-hello pinned: bun ran [0-9.]+x \(n=3 and 3, no CI\) faster than node24, by ops/s$' <<<"$output"
}

@test "report --format html: a noisy column with the reasons counted, and each trial's reasons with their evidence" {
	run --separate-stderr "$HARNESS" report "$NOISY" --format html
	[ "$status" -eq 0 ]
	[[ "$output" == *"<th>noisy trials (by reason)</th>"* ]]
	[[ "$output" == *'<td class="v-warn">6 of 6: contended 6, foreign 5, cpu_pressure 4</td>'* ]]
	[[ "$output" == *"<th>noisy: why</th>"* ]]
	[[ "$output" == *'<td class="v-warn">contended: '* ]]
}

@test "merge of shard 1 of 2 alone: written, exit 0, and a line saying a shard is missing" {
	cd "$BATS_TEST_TMPDIR"
	python3 - "$FIXTURES/results/v1-four-workloads.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["config"]["planned_trials"] = 4
d["config"]["shard"] = {"index": 1, "count": 2, "trials": 4, "plan_trials": 8, "plan": "ab"}
json.dump(d, open("s1.json", "w"))
PY
	run --separate-stderr "$HARNESS" merge s1.json -o all.json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"harness: merge: warning: all.json is partial: a merge of 4 of the plan's 8 trials: a shard is missing"* ]]
	python3 -c 'import json; c = json.load(open("all.json"))["config"]; assert c["merged"]["complete"] is False and c["planned_trials"] == 8, c'
}

@test "scenarios ls --json is a JSON list; an unknown option or argument of scenarios is refused; load -n is a count" {
	run --separate-stderr "$HARNESS" scenarios ls --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; l = json.loads(sys.argv[1]); s = {x["name"]: x for x in l}; assert s["http-hello"]["workload"] == "http" and "bun" in s["http-hello"]["runtimes"], s' "$output"
	run "$HARNESS" scenarios ls --bogus
	[ "$status" -eq 2 ] && [[ "$output" == "harness: scenarios: unknown option '--bogus' (see 'harness scenarios --help')" ]]
	run "$HARNESS" scenarios ls extra
	[ "$status" -eq 2 ] && [[ "$output" == "harness: scenarios: ls takes no argument, not 'extra'" ]]
	run "$HARNESS" scenarios list
	[ "$status" -eq 2 ] && [[ "$output" == *"unknown sub-verb 'list'"* ]]
	run "$HARNESS" load --help
	grep -E '^  -n, --requests N +send N requests, then stop \[at least 1\]$' <<<"$output"
	run "$HARNESS" load -n 1K http://127.0.0.1:9/
	[ "$status" -eq 2 ] && [[ "$output" == *"--requests takes a whole number of at least 1, not '1K'"* ]]
}

@test "make install: the man page and the bash and zsh completions list every option of every verb; make uninstall removes all of it" {
	command -v make >/dev/null || hx_skip "needs make"
	dest=$BATS_TEST_TMPDIR/dest
	make -s -C "$HARNESS_TOP" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	man=$dest/usr/share/man/man1/harness.1
	bashc=$dest/usr/share/bash-completion/completions/harness
	zshc=$dest/usr/share/zsh/site-functions/_harness
	[ -s "$man" ] && [ -s "$bashc" ] && [ -s "$zshc" ]
	# every verb and every option its --help shows (the table it parses with), in each of the three
	verbs=$("$HARNESS" --help | awk '/^Verbs:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
	[ "$(wc -w <<<"$verbs")" -ge 11 ]
	for verb in $verbs; do
		grep -q "^\.SS $verb" "$man" || { echo "man: no verb $verb"; return 1; }
		for opt in $("$HARNESS" "$verb" --help | grep -oE '^  (-[a-zA-Z], )? *--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
			name=${opt#--}
			awk -v v="$verb" -v o="\\\\fB\\\\-\\\\-${name//-/\\\\-}\\\\fR" '/^\.SS / {cur = $2} cur == v && index($0, o) {f = 1} END {exit !f}' \
				"$man" || { echo "man: $verb has no $opt"; return 1; }
			grep -qE "^	$verb\) opts=\"([^\"]* )?$opt( |\")" "$bashc" || { echo "bash: $verb has no $opt"; return 1; }
			awk -v v="$verb)" -v o="'${opt}[" '$1 == v {cur = 1; next} /^	[a-z]+\)$/ {cur = 0} cur && index($0, o) {f = 1} END {exit !f}' \
				"$zshc" || { echo "zsh: $verb has no $opt"; return 1; }
		done
	done
	bash -n "$bashc"
	# the bash completion completes
	run bash -c 'source "$1"; COMP_WORDS=(harness run --prof); COMP_CWORD=2; _harness; echo "${COMPREPLY[*]}"' _ "$bashc"
	[ "$output" = "--profile" ]
	LC_ALL=C man -l "$man" >/dev/null 2>"$BATS_TEST_TMPDIR/man.err" || true
	[ ! -s "$BATS_TEST_TMPDIR/man.err" ] || { cat "$BATS_TEST_TMPDIR/man.err"; return 1; }
	make -s -C "$HARNESS_TOP" uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null
	[ -z "$(find "$dest" -type f)" ]
}

@test "report A B --format html: a chart per metric family on a linear axis around 1, a label per row, the terminal's units, the noisy trials of each side" {
	cd "$BATS_TEST_TMPDIR"
	python3 "$HARNESS_TOP/tests/report/make_pair.py" "$NOISY" A.json B.json
	run --separate-stderr "$HARNESS" report A.json B.json --format html -o cmp.html
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import html.parser, re

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.figs, self.cur, self.text, self.cells, self.heads = [], None, None, [], []
        self.in_td = self.in_th = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure" and a.get("data-chart") == "compare":
            self.cur = {"scn": a["data-scenario"], "family": a["data-family"], "ticks": [], "labels": [], "dots": 0}
            self.figs.append(self.cur)
        elif tag == "svg" and self.cur is not None:
            self.cur["height"] = float(a["height"])
        elif tag == "text" and self.cur is not None:
            self.text = a.get("class", "")
        elif tag == "circle" and self.cur is not None and "ratio" in a.get("class", ""):
            self.cur["dots"] += 1
        elif tag == "td":
            self.in_td = True
            self.cells.append("")
        elif tag == "th":
            self.in_th = True
            self.heads.append("")
    def handle_endtag(self, tag):
        if tag == "figure":
            self.cur = None
        elif tag == "text":
            self.text = None
        elif tag == "td":
            self.in_td = False
        elif tag == "th":
            self.in_th = False
    def handle_data(self, data):
        if self.text is not None and self.cur is not None:
            if " · " in data:
                self.cur["labels"].append(data)
            elif self.text == "tick":
                self.cur["ticks"].append(float(data))
        if self.in_td:
            self.cells[-1] += data
        if self.in_th:
            self.heads[-1] += data

p = Page()
p.feed(open("cmp.html").read())
fams = {(f["scn"], f["family"]) for f in p.figs}
assert fams == {("startup", "time and latency"), ("http-hello", "throughput"), ("http-hello", "time and latency"),
                ("http-hello", "memory"), ("http-hello", "the load client's cost")}, fams
for f in p.figs:
    t = sorted(f["ticks"])
    steps = {round(b - a, 9) for a, b in zip(t, t[1:])}
    assert len(steps) == 1, (f["family"], t)            # linear: one step
    assert t[0] <= 0.9 and t[-1] >= 1.1 and t[0] >= 0, t  # around 1, at least ±10%
    assert len(f["labels"]) == f["dots"] >= 4 and f["height"] >= 22 * f["dots"], f  # a line per row
labels = {l for f in p.figs for l in f["labels"]}
assert {"bun · pinned · req/s", "node24 · quota · p99 ms", "bun · quota · idle MB", "bun · pinned · client µs/req"} <= labels, labels
assert "noisy A" in p.heads and "noisy B" in p.heads, p.heads
assert any(re.fullmatch(r"[1-9]\d* of \d+", c) for c in p.cells), "no side's noisy trials"
assert "p99 ms" in p.cells and "p99_us" not in p.cells and "idle_rss_kb" not in p.cells
PY
}
