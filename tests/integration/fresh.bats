#!/usr/bin/env bats
# A fresh machine, as a new user meets it: in a private mount namespace /var/cache is an empty tmpfs (so no
# /var/cache/harness; apt's own folder is kept) and HOME is new, and a fresh `git clone` of this checkout
# goes down the README's path: `make run` (deps, build, the images pulled from npm into root's cache, a
# quick run). And GitHub's order: `sudo make deps`, then the build as the clone's owner. What an earlier run
# left on this machine (an image cache, build/tools) cannot help here. The npm registry is the machine's
# (its npm configuration, as `make images` uses it).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	command -v unshare >/dev/null && command -v setpriv >/dev/null || hx_skip "needs unshare and setpriv (util-linux)"
	git -C "$HARNESS_TOP" rev-parse HEAD >/dev/null 2>&1 || hx_skip "needs the checkout's git history to clone"
	reg=$(npm config get registry 2>/dev/null || true)
	[ -n "$reg" ] && curl -fsS -m 10 -o /dev/null "$reg" 2>/dev/null || hx_skip "the npm registry cannot be reached"
	# the user's npm configuration (the registry) stays reachable under the new HOME
	npmrc=$(npm config get userconfig 2>/dev/null || true)
	[ -f "$npmrc" ] || npmrc=""
	# a folder another user may enter (the non-root build)
	work=$(mktemp -d /tmp/harness-fresh.XXXXXX)
	chmod 0755 "$work"
}

teardown() {
	rm -rf "$work"
	assert_no_leftovers
}

# `on_fresh_machine SCRIPT`: bash -c SCRIPT in a private mount namespace with /var/cache empty (apt's folder
# bound back) and a new HOME; the machine's environment (its CA bundle for the registry) without any of
# harness's variables but the test's tag.
on_fresh_machine() {
	local unset=() v
	for v in $(compgen -e); do
		case "$v" in HARNESS_RUN_TAG) ;; HARNESS_* | XDG_* | npm_config_* | NPM_CONFIG_*) unset+=(-u "$v") ;; esac
	done
	mkdir -p "$work/home"
	env "${unset[@]}" HOME="$work/home" ${npmrc:+NPM_CONFIG_USERCONFIG="$npmrc"} WORK="$work" \
		unshare --mount --propagation private bash -euo pipefail -c '
			mkdir "$WORK/apt"
			mount --bind /var/cache/apt "$WORK/apt"
			mount -t tmpfs -o mode=0755,size=4g fresh-cache /var/cache
			mkdir /var/cache/apt
			mount --move "$WORK/apt" /var/cache/apt
			[ ! -e /var/cache/harness ]
			'"$1"
}

@test "make run on a machine with no image cache: root's cache made (0755, root's), two runtimes pulled, a quick run" {
	git clone -q "$HARNESS_TOP" "$work/clone"
	run --separate-stderr on_fresh_machine '
		cd "$WORK/clone"
		make run RUN_ARGS="--runtimes node24,bun --cpus 1 --profile quick --repeat 1 --out $WORK/r.json startup http-hello"
		stat -c "%U %a" /var/cache/harness >"$WORK/cache-owner"
		ls /var/cache/harness/trees >"$WORK/trees"
		bin/harness images ls >"$WORK/images"
	'
	echo "$output" | tail -15
	echo "$stderr" | tail -15
	[ "$status" -eq 0 ]
	[ "$(cat "$work/cache-owner")" = "root 755" ]
	[ "$(grep -c . "$work/trees")" -ge 2 ]
	grep -qE '^node24 .* present' "$work/images"
	grep -qE '^bun .* present' "$work/images"
	[[ "$stderr" == *"pulling node24"* && "$stderr" == *"pulling bun"* ]] # from npm, not from an earlier cache
	python3 - "$work/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {(t["scenario"], t["runtime"]) for t in d["trials"] if t["status"] == "ok"}
want = {(s, r) for s in ("startup", "http-hello") for r in ("node24", "bun")}
assert got == want, got
assert d["verdict"] == "ok", d["verdict"]
PY
}

@test "sudo make deps, then the build as the clone's owner: no root-owned file in the work tree" {
	git clone -q "$HARNESS_TOP" "$work/clone"
	chown -R 65534:65534 "$work/clone"
	mkdir -p "$work/home" && chown 65534:65534 "$work/home"
	run --separate-stderr on_fresh_machine '
		cd "$WORK/clone"
		make deps
		make test-deps
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$WORK/home" make -j2 bin/harness
	'
	echo "$output" | tail -10
	echo "$stderr" | tail -10
	[ "$status" -eq 0 ]
	[ -x "$work/clone/bin/harness" ]
	"$work/clone/bin/harness" --version
	rooted=$(find "$work/clone" -uid 0 -print | head -5)
	[ -z "$rooted" ] || {
		echo "root-owned after sudo make deps: $rooted" >&2
		false
	}
}
