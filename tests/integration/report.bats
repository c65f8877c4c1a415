#!/usr/bin/env bats
# harness report from a real run: the HTML page in headless Chromium, the gab and hyperfine exports.
# One run for the file (two runtimes x pinned and quota, startup and http-hello, quick, one trial): ~40 s;
# each Chromium load: a few seconds.

bats_require_minimum_version 1.5.0

load helpers

CHECKS=$HARNESS_TOP/tests/report

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	local present
	present=$("$HARNESS" images ls | awk '$3 == "runtime" && $5 == "present" {print $1}' | head -2 | paste -sd, -)
	[ "$(tr ',' '\n' <<<"$present" | grep -c .)" = 2 ] || return 0
	cd "$BATS_FILE_TMPDIR"
	"$HARNESS" run --runtimes "$present" --mode pinned,quota --repeat 1 --profile quick --out r.json \
		startup http-hello >run.log 2>&1 || { cat run.log >&3; return 1; }
}

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
	R=$BATS_FILE_TMPDIR/r.json
	[ -s "$R" ] || hx_skip "needs two runtime images present (harness images pull NAME)"
}

need_chromium() {
	command -v chromium >/dev/null || hx_skip "needs Debian's chromium (make deps)"
}

@test "html: one page that loads in headless Chromium without a console message; every chart has its marks; a screenshot" {
	need_chromium
	"$HARNESS" report "$R" --format html -o report.html
	[ -s report.html ]
	out=${HARNESS_TEST_OUT:-$BATS_FILE_TMPDIR}/report
	run python3 "$CHECKS/check_html.py" "$R" report.html "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	# 2 scenarios: bars and strip for startup, bars and latency for http-hello
	[ "$(grep -c '^ok ' <<<"$output")" -eq 4 ]
	[ -s "$out/report.png" ]
}

@test "html: the checker fails on a console error and on a missing bar" {
	need_chromium
	"$HARNESS" report "$R" --format html -o good.html
	sed 's|</body>|<script>console.error("planted")</script></body>|' good.html >console.html
	run python3 "$CHECKS/check_html.py" "$R" console.html out
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *planted* ]]
	# drop the first bar of the first chart
	python3 - good.html >nobar.html <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print(re.sub(r'<rect class="bar".*?</rect>', '', t, count=1), end="")
PY
	run python3 "$CHECKS/check_html.py" "$R" nobar.html out
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bar marks"* ]]
}

@test "html: names from the results file stay text (escaped), and -o replaces the file whole" {
	python3 - "$R" >hostile.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rt = d["trials"][0]["runtime"]
for t in d["trials"]:
    if t["runtime"] == rt:
        t["runtime"] = "<img src=x onerror=alert(1)>&\"'"
        t["error"] = "</table><script>alert(2)</script>"
print(json.dumps(d))
PY
	echo old >page.html
	"$HARNESS" report hostile.json --format html -o page.html
	refute grep -q '<img src=x' page.html
	refute grep -q '<script>alert' page.html
	grep -q '&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;' page.html
	[ "$(grep -c '<script>' page.html)" -eq 1 ] # only the page's own sorting script
	ls -a | refute grep -q 'page.html.'         # no temp file left
}

@test "gab: both directions pass github-action-benchmark's input rules; one entry per runtime x mode" {
	"$HARNESS" report "$R" --format gab -o big.json
	"$HARNESS" report "$R" --format gab --direction smaller -o small.json
	python3 "$CHECKS/check_exports.py" gab big.json
	python3 "$CHECKS/check_exports.py" gab small.json
	python3 - "$R" big.json small.json <<'PY'
import json, sys
r, big, small = (json.load(open(p)) for p in sys.argv[1:])
groups = {(t["scenario"], t["runtime"], t["mode"]) for t in r["trials"]}
http = {g for g in groups if g[0] == "http-hello"}
assert {e["name"] for e in big} == {" / ".join(g) for g in http}, big
assert all(e["unit"] == "req/s" and e["value"] > 0 for e in big)
assert {e["name"] for e in small} == {" / ".join(g) for g in groups}, small
for e in big:
    t = next(t for t in r["trials"] if " / ".join((t["scenario"], t["runtime"], t["mode"])) == e["name"])
    assert abs(e["value"] - t["load"]["rps"]) < 1e-6 * e["value"], (e, t["load"]["rps"])  # one trial: its value
    assert ("runtime CPUs " + t["cpus"]["sut"]) in e["extra"], e
PY
	# the checker is not a rubber stamp
	echo '[{"name":"a","value":"1","unit":"x"}]' >bad.json
	refute python3 "$CHECKS/check_exports.py" gab bad.json
	echo '[]' >empty.json
	refute python3 "$CHECKS/check_exports.py" gab empty.json
	run "$HARNESS" report "$R" --format gab --direction sideways
	[ "$status" -eq 2 ]
}

@test "hyperfine: the fields and types hyperfine itself writes; times are every startup run, in seconds" {
	command -v hyperfine >/dev/null || hx_skip "needs hyperfine (make deps)"
	hyperfine -N --runs 3 --export-json real.json true >/dev/null 2>&1
	"$HARNESS" report "$R" --format hyperfine -o hf.json
	python3 "$CHECKS/check_exports.py" hyperfine hf.json real.json
	python3 - "$R" hf.json <<'PY'
import json, sys
r, hf = (json.load(open(p)) for p in sys.argv[1:])
st = [t for t in r["trials"] if t["scenario"] == "startup"]
assert len(hf["results"]) == len(st)
for e in hf["results"]:
    t = next(t for t in st if "startup / %s / %s" % (t["runtime"], t["mode"]) == e["command"])
    assert [round(x * 1e3, 3) for x in e["times"]] == t["startup"]["runs_ms"], e
    assert e["exit_codes"] == [0] * len(e["times"])
PY
	# an export needing the runs from a file without them: refused, nothing written
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [t["startup"].pop("runs_ms") for t in d["trials"] if "startup" in t]; print(json.dumps(d))' "$R" >old.json
	run "$HARNESS" report old.json --format hyperfine -o none.json
	[ "$status" -eq 2 ]
	[[ "$output" == *runs_ms* ]]
	[ ! -e none.json ]
}

@test "two files: harness compare's rows drawn, a dot per row coloured by its verdict, in headless Chromium" {
	need_chromium
	python3 "$CHECKS/make_pair.py" "$R" A.json B.json
	"$HARNESS" report A.json B.json --format html -o cmp.html
	"$HARNESS" compare A.json B.json --format json --fail-on none >cmp.json
	out=${HARNESS_TEST_OUT:-$BATS_FILE_TMPDIR}/report
	run python3 "$CHECKS/check_html.py" --compare cmp.json cmp.html "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	# the runtime made 30% slower in B is drawn as slower, with compare's word
	python3 -c 'import json,sys; assert any(r["verdict"] == "slower" for r in json.load(open("cmp.json"))["rows"])'
	grep -q '<td class="v-bad">slower' cmp.html
	[ -s "$out/compare.png" ]
	# two files make a page, not a table
	run "$HARNESS" report A.json B.json --format md
	[ "$status" -eq 2 ]
	[[ "$output" == *"harness compare"* ]]
}
