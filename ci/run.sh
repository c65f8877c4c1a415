#!/usr/bin/env bash
# Called by ci/action.yml on a GitHub runner (and by tests/integration/ci.bats with the GitHub environment
# simulated): pulls the pinned images into the cache (HARNESS_CACHE_DIR, which actions/cache keeps between
# jobs), runs harness as root in a delegated systemd scope where systemd runs the machine (on GitHub's
# runners harness would otherwise start in the runner's shared service cgroup and refuse), writes the host
# facts, the Markdown table and a comparison with a baseline to the job summary, and the paths to
# GITHUB_OUTPUT. Exit: harness run's status, else compare's (1: a significant regression; 5: no row had the
# trials for a verdict, not a pass; a baseline that compare refuses, from other hardware or images, is said in
# the summary and fails nothing).
# The ab mode (a side or a side's scenario folder given): one `harness ab` duet per scenario (or one of the two
# folders) instead of run and compare; the summary gets each duet's first line and table, GITHUB_OUTPUT its
# verdict, and the exit is ab's (1: B slower beyond the threshold; the largest status of the duets).
#   inputs (environment): HARNESS_SCENARIOS HARNESS_RUNTIMES HARNESS_CPUS (empty: the most the runner allows)
#                         HARNESS_MODE HARNESS_PROFILE
#                         HARNESS_SHARD (I/N) HARNESS_BASELINE (a results file) HARNESS_CONNECTIONS
#                         HARNESS_REQUESTS HARNESS_REPEAT HARNESS_PRECISION (run's or ab's --precision)
#                         HARNESS_CACHE_DIR
#                         HARNESS_FAIL_ON (compare's --fail-on: regression, quiet-regression or none; in the
#                         ab mode none turns the gate off)
#   ab mode:              HARNESS_AB_A HARNESS_AB_B (the sides: anything --runtimes takes; one defaults to the
#                         other) HARNESS_A_SCENARIO HARNESS_B_SCENARIO (both or neither) HARNESS_THRESHOLD
#                         HARNESS_MAX_TIME HARNESS_AB_ARGS (more options of harness ab, split at spaces)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
harness=$top/bin/harness
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}

# The ab mode's inputs, checked before anything runs: one line naming the fix, exit 2.
ab_mode=${HARNESS_AB_A:-}${HARNESS_AB_B:-}${HARNESS_A_SCENARIO:-}${HARNESS_B_SCENARIO:-}
if [ -n "$ab_mode" ]; then
	bad() {
		echo "ci/run.sh: $*" >&2
		exit 2
	}
	side_a=${HARNESS_AB_A:-${HARNESS_AB_B:-}} side_b=${HARNESS_AB_B:-${HARNESS_AB_A:-}}
	[ -n "$side_a" ] || bad "the ab mode needs its runtime: set a (and b for another one), e.g. a: node24"
	case "${HARNESS_A_SCENARIO:+a}${HARNESS_B_SCENARIO:+b}" in
	a | b) bad "set both a-scenario and b-scenario (the base's and the change's app folders), or neither" ;;
	esac
	[ -z "${HARNESS_SHARD:-}" ] || bad "a duet is one job: leave shard empty in the ab mode"
	[ -z "${HARNESS_BASELINE:-}" ] || bad "a duet measures its own baseline (side a): leave baseline empty in the ab mode"
	name="harness-ab"
else
	name=harness${HARNESS_SHARD:+-shard-${HARNESS_SHARD//\//-of-}}
fi
out=$tmp/$name.json table=$tmp/$name.md compare=$tmp/$name-compare.md
export HARNESS_CACHE_DIR=${HARNESS_CACHE_DIR:-$tmp/harness-cache}

# As root (sudo on a runner, where the job runs as a user), with harness's variables kept and the job's
# identity (the results record the calling repository's commit beside harness's own: harness.ci).
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		local keep=() v
		for v in HARNESS_CACHE_DIR HARNESS_COMMIT HARNESS_ACTION_REF GITHUB_ACTIONS GITHUB_REPOSITORY GITHUB_SHA \
			GITHUB_REF GITHUB_RUN_ID; do
			[ -z "${!v:-}" ] || keep+=("$v=${!v}")
		done
		sudo env "${keep[@]}" "$@"
	fi
}

# In a scope of its own with the cgroup controllers delegated to it, when systemd runs this machine.
in_scope() {
	if [ -d /run/systemd/system ] && command -v systemd-run >/dev/null; then
		as_root systemd-run --scope --quiet --collect -p Delegate=yes "$@"
	else
		as_root "$@"
	fi
}

# Text from a file or another host (a baseline's CPU model in compare's refusal, this host's CPU model and
# distribution) as inline Markdown: no link, HTML, code span, table cell or line break of its own
# (harness/base/esc.c's esc_md, in sed).
md_text() {
	LC_ALL=C sed -e 's/[[:cntrl:]]/ /g' -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/[][\\`*_~|]/\\&/g'
}

host_facts() {
	local distro cg
	distro=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")
	cg=$(stat -fc %T /sys/fs/cgroup 2>/dev/null || echo unknown)
	echo "**Host**: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' | md_text)), " \
		"$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(md_text <<<"$distro"), kernel $(uname -r)," \
		"cgroup $([ "$cg" = cgroup2fs ] && echo v2 || echo "v1/hybrid"), commit ${GITHUB_SHA:-unknown}" \
		"(harness ${HARNESS_ACTION_REF:-$("$harness" --version 2>/dev/null | sed -n 's/.*commit \([^)]*\)).*/\1/p')})"
}

# The CPU budget: the input, else the most this runner gives the runtime with the client's CPU kept (a private
# repository's 2-vCPU runner gives 1; asking 2 there would exit 3).
cpus=${HARNESS_CPUS:-}
budget_line="**CPU budget**: $cpus CPU(s) for the runtime (the \`cpus\` input)"
if [ -z "$cpus" ]; then
	cpus=$(as_root "$harness" doctor --json 2>/dev/null | sed -n 's/.*"max_pinned_cpus":[[:space:]]*\([0-9]*\).*/\1/p' | head -1)
	[ -n "$cpus" ] && [ "$cpus" -gt 0 ] || cpus=1
	budget_line="**CPU budget**: $cpus CPU(s) for the runtime, the most this $(nproc)-CPU runner gives with the load client's CPU kept (set the \`cpus\` input to choose)"
fi

# One duet (ab mode): SCENARIO (empty: the two folders) and the suffix of its files; its status in duet_status,
# its verdict (the document's first "verdict", the headline metric's: throughput, or startup) in duet_verdict.
duet() {
	local dout=$tmp/$name$2.json dtable=$tmp/$name$2.md derr=$tmp/$name$2.err args=()
	args=(--cpus "$cpus" --mode "${HARNESS_MODE:-pinned}" --profile "${HARNESS_PROFILE:-quick}" --out "$dout"
		--format md)
	[ -z "${HARNESS_A_SCENARIO:-}" ] || args+=(--a-scenario "$HARNESS_A_SCENARIO" --b-scenario "$HARNESS_B_SCENARIO")
	[ -z "${HARNESS_THRESHOLD:-}" ] || args+=(--threshold "$HARNESS_THRESHOLD")
	[ -z "${HARNESS_MAX_TIME:-}" ] || args+=(--max-time "$HARNESS_MAX_TIME")
	[ -z "${HARNESS_PRECISION:-}" ] || args+=(--precision "$HARNESS_PRECISION")
	[ -z "${HARNESS_CONNECTIONS:-}" ] || args+=(--connections "$HARNESS_CONNECTIONS")
	args+=("${extra[@]}")
	duet_status=0
	in_scope "$harness" ab "$side_a" "$side_b" ${1:+"$1"} "${args[@]}" >"$dtable" 2>"$derr" || duet_status=$?
	cat "$dtable"
	cat "$derr" >&2
	[ "$(id -u)" = 0 ] || as_root chown "$(id -u):$(id -g)" "$dout" "$dtable" "$derr" 2>/dev/null || true
	duet_verdict=error
	if [ -s "$dout" ] && [ "$duet_status" -le 1 ]; then
		duet_verdict=$(grep -o '"verdict":[[:space:]]*"[a-z_]*"' "$dout" | head -1 | sed 's/.*"\([a-z_]*\)"$/\1/')
		head -1 "$dtable" >>"$tmp/$name.line"
	else
		echo "Not run: $(tail -1 "$derr" | md_text)" >"$dtable"
	fi
	grep -v '^results: ' "$dtable" >>"$tmp/$name.summary" || true
	echo >>"$tmp/$name.summary"
	results+=("$dout") verdicts+=("$duet_verdict")
}

ab() {
	local s scn=() suffix
	read -r -a extra <<<"${HARNESS_AB_ARGS:-}"
	read -r -a scn <<<"${HARNESS_SCENARIOS:-startup http-hello}"
	[ -z "${HARNESS_A_SCENARIO:-}" ] || scn=("")
	host_facts
	echo "$budget_line"
	as_root "$harness" doctor || true
	results=() verdicts=()
	: >"$tmp/$name.line"
	: >"$tmp/$name.summary"
	for s in "${scn[@]}"; do
		suffix=""
		[ "${#scn[@]}" -eq 1 ] || suffix=-$(basename "$s")
		[ "${#scn[@]}" -eq 1 ] || echo "### $(basename "$s" | md_text)" >>"$tmp/$name.summary"
		duet "$s" "$suffix"
		[ "$duet_status" -le "$status" ] || status=$duet_status
	done
	if [ "$status" -eq 1 ] && [ "${HARNESS_FAIL_ON:-regression}" = none ]; then
		status=0
		echo "Gate: off (fail-on none): B is slower beyond the threshold, and the step passes" >>"$tmp/$name.summary"
	fi
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		{
			echo "## harness ab"
			host_facts
			echo
			echo "$budget_line"
			echo
			cat "$tmp/$name.summary"
		} >>"$GITHUB_STEP_SUMMARY"
	fi
	{
		echo "results=${results[*]}"
		echo "verdict=${verdicts[*]}"
		echo "line=$(paste -sd';' "$tmp/$name.line" | sed 's/;/; /g')"
		echo "table=$tmp/$name.summary"
		echo "name=$name"
	} >>"${GITHUB_OUTPUT:-/dev/null}"
	exit "$status"
}

status=0
[ -z "$ab_mode" ] || ab

args=(--cpus "$cpus" --mode "${HARNESS_MODE:-pinned}" --profile "${HARNESS_PROFILE:-quick}"
	--out "$out" --format md)
[ -n "${HARNESS_RUNTIMES:-}" ] && args+=(--runtimes "$HARNESS_RUNTIMES")
[ -n "${HARNESS_REPEAT:-}" ] && args+=(--repeat "$HARNESS_REPEAT")
[ -n "${HARNESS_PRECISION:-}" ] && args+=(--precision "$HARNESS_PRECISION")
[ -n "${HARNESS_SHARD:-}" ] && args+=(--shard "$HARNESS_SHARD")
[ -n "${HARNESS_CONNECTIONS:-}" ] && args+=(--connections "$HARNESS_CONNECTIONS")
[ -n "${HARNESS_REQUESTS:-}" ] && args+=(--requests "$HARNESS_REQUESTS")
read -r -a scenarios <<<"${HARNESS_SCENARIOS:-startup http-hello}"

host_facts
echo "$budget_line"
as_root "$harness" doctor || true
# The images first, so that a cold cache is filled (and said) before any trial starts.
if [ -n "${HARNESS_RUNTIMES:-}" ]; then
	IFS=, read -r -a images <<<"$HARNESS_RUNTIMES"
	as_root "$harness" images pull "${images[@]}"
else
	as_root "$harness" images pull --all
fi

in_scope "$harness" run "${args[@]}" "${scenarios[@]}" >"$table" || status=$?
cat "$table"
# the HTML page with the charts, beside the JSON in the artifact
[ ! -f "$out" ] || "$harness" report "$out" --format html -o "$tmp/$name.html" || true
compared=""
if [ -n "${HARNESS_BASELINE:-}" ] && [ -f "$HARNESS_BASELINE" ] && [ -f "$out" ]; then
	cstatus=0
	"$harness" compare "$HARNESS_BASELINE" "$out" --format md --fail-on "${HARNESS_FAIL_ON:-regression}" \
		>"$compare" 2>"$compare.err" || cstatus=$?
	# another runner's hardware (or images) measured something else: said, not a failure of this change
	if [ "$cstatus" -eq 2 ]; then
		echo "Not compared: $(tail -1 "$compare.err" | md_text)" >"$compare"
		cstatus=0
	fi
	cat "$compare"
	compared=1
	[ "$status" -ne 0 ] || status=$cstatus
fi
[ "$(id -u)" = 0 ] || as_root chown "$(id -u):$(id -g)" "$out" "$table" "$tmp/$name.html" 2>/dev/null || true

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	{
		echo "## harness${HARNESS_SHARD:+ (shard $HARNESS_SHARD)}"
		host_facts
		echo
		echo "$budget_line"
		echo
		cat "$table"
		if [ -n "$compared" ]; then
			echo
			echo "### Against the baseline"
			cat "$compare"
		fi
	} >>"$GITHUB_STEP_SUMMARY"
fi
{
	echo "results=$out"
	echo "table=$table"
	echo "html=$tmp/$name.html"
	echo "name=$name"
} >>"${GITHUB_OUTPUT:-/dev/null}"
exit "$status"
