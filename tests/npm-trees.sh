#!/bin/sh
# tests/npm-trees.sh [--build DIR] [LOCK_DIR...]: for each folder holding a package-lock.json (by default every
# committed one: scenarios/*/, scenarios/warm-install/project/, images/*/), the node_modules harness installs
# (build/helpers/npm-deps or $NPM_DEPS, into a private cache) against the one `npm ci --ignore-scripts` installs from the
# same lock: the same paths, types, modes, file contents and link targets. npm's own record of what it
# installed, node_modules/.package-lock.json, is the one difference allowed. Prints one line per lock with both
# install times (wall clock, one fresh install each, neither with a warm cache); exit 1 when a tree differs.
# With NPM_DEPS_BEFORE (the same helper built from an earlier harness, whose install ran npm ci in a sandbox), that
# one's tree is compared too and its time printed.
set -eu

build=build
if [ "${1:-}" = "--build" ]; then
	build=$2
	shift 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
helper=${NPM_DEPS:-$top/$build/helpers/npm-deps}
[ -x "$helper" ] || { echo "npm-trees: build $helper first (make $build/helpers/npm-deps)" >&2; exit 2; }
command -v npm >/dev/null || { echo "npm-trees: needs npm (the reference install)" >&2; exit 3; }
if [ $# -eq 0 ]; then
	for d in "$top"/scenarios/*/ "$top"/scenarios/warm-install/project/ "$top"/images/*/; do
		[ -f "$d/package-lock.json" ] && set -- "$@" "${d%/}"
	done
fi

work=$(mktemp -d /tmp/npm-trees-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# One line per entry below $1: path, type, mode, and a file's sha256 or a link's target.
manifest() {
	/usr/bin/python3 - "$1" <<'EOF'
import hashlib, os, stat, sys
root = sys.argv[1]
for d, dirs, files in os.walk(root):
    dirs.sort()
    for name in sorted(dirs + files):
        p = os.path.join(d, name)
        rel = os.path.relpath(p, root)
        if rel == ".package-lock.json":
            continue
        st = os.lstat(p)
        mode = "%o" % stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            print(rel, "link", os.readlink(p))
        elif stat.S_ISDIR(st.st_mode):
            print(rel, "dir", mode)
        else:
            print(rel, "file", mode, hashlib.sha256(open(p, "rb").read()).hexdigest())
EOF
}

now_ms() { date +%s%3N; }

status=0
for dir in "$@"; do
	name=$(echo "${dir#"$top"/}" | tr / _)
	ref=$work/$name-npm
	mkdir -p "$ref"
	cp "$dir/package.json" "$dir/package-lock.json" "$ref/"
	t0=$(now_ms)
	(cd "$ref" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --cache="$work/npm-cache-$name" >/dev/null)
	t1=$(now_ms)
	if ! ours=$(HARNESS_CACHE_DIR=$work/cache-$name "$helper" "$dir" 2>"$work/$name.err"); then
		printf '%-28s harness FAILED: %s\n' "${dir#"$top"/}" "$(tail -1 "$work/$name.err")"
		status=1
		continue
	fi
	t2=$(now_ms)
	before=
	if [ -n "${NPM_DEPS_BEFORE:-}" ]; then
		t3=$(now_ms)
		if old=$(HARNESS_CACHE_DIR=$work/cache-before-$name "$NPM_DEPS_BEFORE" "$dir" 2>"$work/$name.err"); then
			before="  before $(($(now_ms) - t3)) ms"
			manifest "$old" >"$work/$name.before"
		else
			before="  before FAILED: $(tail -1 "$work/$name.err")"
			: >"$work/$name.before"
		fi
	fi
	manifest "$ref/node_modules" >"$work/$name.npm"
	manifest "$ours" >"$work/$name.harness"
	if [ -n "$before" ] && ! diff -q "$work/$name.before" "$work/$name.harness" >/dev/null; then
		before="$before (its tree DIFFERS)"
		status=1
	elif [ -n "$before" ]; then
		before="$before (same tree)"
	fi
	entries=$(wc -l <"$work/$name.npm")
	if diff -u "$work/$name.npm" "$work/$name.harness" >"$work/$name.diff"; then
		verdict="same tree"
	else
		verdict="DIFFERENT: $(grep -c '^[-+][^-+]' "$work/$name.diff") lines differ"
		head -20 "$work/$name.diff" | sed 's/^/    /'
		status=1
	fi
	printf '%-28s %5d entries  npm ci %6d ms  harness %6d ms  %s%s\n' "${dir#"$top"/}" "$entries" \
		$((t1 - t0)) $((t2 - t1)) "$verdict" "$before"
done
exit $status
