#!/usr/bin/env bash
# Lints what CI runs, as TAP: shellcheck on every shell script (warnings and errors; in the bats files
# errors only, since bats' `run` sets variables shellcheck cannot see), and the workflow and the action
# against GitHub's schemas with @action-validator/cli (installed by make deps into build/tools).
#   tests/lint.sh   (~3 s)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
validator=${HARNESS_TOOLS:-$top/build/tools}/node_modules/.bin/action-validator
n=0 failed=0

result() { # result OK|FAIL|SKIP NAME [WHY]
	n=$((n + 1))
	case $1 in
	OK) echo "ok $n $2" ;;
	SKIP) echo "ok $n $2 # skip $3" ;;
	*)
		echo "not ok $n $2"
		failed=1
		;;
	esac
}

# Tracked files when this is a git checkout, else every file but the build output.
files() {
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" ls-files | sed "s|^|$top/|"
	else
		find "$top" -path "$top/build" -prune -o -path "$top/.git" -prune -o -type f -print
	fi
}

missing() { # missing TOOL WHY: a skip, or a failure when CI requires every check
	if [ "${HARNESS_MUST_WORK:-0}" = 1 ]; then
		result FAIL "$1 # HARNESS_MUST_WORK=1, yet: $2"
	else
		result SKIP "$1" "$2"
	fi
}

scripts=() bats=()
while IFS= read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*.bats | */helpers.bash) bats+=("$f") ;;
	*) head -1 "$f" | grep -qE '^#!.*(/|env )(ba)?sh$|^#!/bin/busybox sh$' && scripts+=("$f") ;;
	esac
done < <(files)

if command -v shellcheck >/dev/null; then
	for f in "${scripts[@]}"; do
		if shellcheck -S warning -x "$f" >"${TMPDIR:-/tmp}/lint.$$" 2>&1; then
			result OK "shellcheck ${f#"$top"/}"
		else
			sed 's/^/# /' "${TMPDIR:-/tmp}/lint.$$"
			result FAIL "shellcheck ${f#"$top"/}"
		fi
	done
	if shellcheck -S error -s bash "${bats[@]}" >"${TMPDIR:-/tmp}/lint.$$" 2>&1; then
		result OK "shellcheck -S error on ${#bats[@]} bats files"
	else
		sed 's/^/# /' "${TMPDIR:-/tmp}/lint.$$"
		result FAIL "shellcheck -S error on the bats files"
	fi
	rm -f "${TMPDIR:-/tmp}/lint.$$"
else
	missing shellcheck "shellcheck is not installed (make deps)"
fi

for f in "$top/.github/workflows/ci.yml" "$top/ci/action.yml"; do
	if [ ! -x "$validator" ]; then
		missing "action-validator ${f#"$top"/}" "@action-validator/cli is not installed (make deps)"
	elif out=$("$validator" "$f" 2>&1); then
		result OK "action-validator ${f#"$top"/}"
	else
		sed 's/^/# /' <<<"$out" | head -40
		result FAIL "action-validator ${f#"$top"/}"
	fi
done
# Code several scenarios share by copy (a scenario folder is all its sandbox sees, so it cannot import from a
# sibling): every copy the same bytes, or one scenario measures an adapter (or frees memory on the hint) the
# others do not.
shared=(node-adapter.mjs lowmem.mjs)
for name in "${shared[@]}"; do
	copies=()
	while IFS= read -r f; do
		copies+=("$f")
	done < <(files | grep -E "/scenarios/[^/]+/$name\$")
	if [ "${#copies[@]}" -lt 2 ]; then
		result FAIL "copies of $name: ${#copies[@]} found under scenarios/, expected several"
	elif [ "$(sha256sum "${copies[@]}" | cut -d' ' -f1 | sort -u | wc -l)" = 1 ]; then
		result OK "the ${#copies[@]} copies of $name under scenarios/ are identical"
	else
		sha256sum "${copies[@]}" | sed "s|$top/||; s/^/# /"
		result FAIL "the copies of $name under scenarios/ differ: make them one text again"
	fi
done

echo "1..$n"
exit "$failed"
