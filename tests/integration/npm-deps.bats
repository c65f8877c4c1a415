#!/usr/bin/env bats
# A scenario's npm dependencies, installed by harness itself (image/npmtree.c): the same tree as npm ci's from a
# registry on 127.0.0.1 and from the machine's registry, no program of the install but `npm config get`, exit 3
# offline with nothing cached, exit 2 for a lock it cannot follow.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	command -v npm >/dev/null || hx_skip "needs npm (the reference install, and the registry's address)"
	[ -x "$HELPERS/npm-deps" ] || hx_skip "needs $HELPERS/npm-deps (make build/helpers/npm-deps)"
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	mkdir -p "$HARNESS_CACHE_DIR"
}

teardown() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
}

# A registry on 127.0.0.1 ($W: tarball-server.py) with a lock in $P that has what npm ci treats specially: a
# bin with a CRLF first line, a .gitignore, a folder entry, a link entry, a mode 0700 file, a nested scoped copy
# with its own bin, and an optional package for another platform. With GONE=1, also an optional package for
# this platform that the registry no longer has (404), with a dependency only it needs that the registry has.
local_registry() {
	W=$BATS_TEST_TMPDIR/www
	P=$BATS_TEST_TMPDIR/project
	mkdir -p "$W" "$P"
	python3 - "$W" "$P" <<'PY'
import base64, hashlib, io, json, os, sys, tarfile
w, p = sys.argv[1:]
spec, entries = {}, {}
def pkg(name, version, files, lock_key, manifest=None, **lock):
    fname = "%s-%s.tgz" % (name.replace("@", "").replace("/", "-"), version)
    with tarfile.open(os.path.join(w, fname), "w:gz") as t:
        for path, data, mode in files:
            i = tarfile.TarInfo("package/" + path)
            if data is None:
                i.type = tarfile.DIRTYPE; i.mode = 0o755; t.addfile(i)
            elif data.startswith(b"->"):
                i.type = tarfile.SYMTYPE; i.linkname = data[2:].decode(); t.addfile(i)
            else:
                i.size = len(data); i.mode = mode; t.addfile(i, io.BytesIO(data))
    sri = "sha512-" + base64.b64encode(hashlib.sha512(open(os.path.join(w, fname), "rb").read()).digest()).decode()
    spec.setdefault(name, {})[version] = {"file": fname, "integrity": sri, "manifest": manifest or {}}
    entries[lock_key] = dict(version=version, integrity=sri, **lock)
pj = lambda name, version, **kw: ("package.json", json.dumps(dict(name=name, version=version, **kw)).encode(), 0o644)
pkg("tool", "1.0.0", [pj("tool", "1.0.0", bin={"tool": "cli.js"}), ("cli.js", b"#!/usr/bin/env node\r\nmain()\r\n", 0o644),
    (".gitignore", b"x\n", 0o644), ("lib", None, 0), ("lib/a.js", b"a\n", 0o644), ("empty", None, 0),
    ("run.sh", b"#!/bin/sh\n", 0o700), ("link", b"->lib/a.js", 0)], "node_modules/tool",
    manifest={"bin": {"tool": "cli.js"}}, bin={"tool": "cli.js"}, license="MIT",
    dependencies={"@s/dep": "2.0.0"}, optionalDependencies={"tool-darwin": "1.0.0"})
pkg("@s/dep", "1.0.0", [pj("@s/dep", "1.0.0"), ("index.js", b"1\n", 0o644)], "node_modules/@s/dep", license="MIT")
pkg("@s/dep", "2.0.0", [pj("@s/dep", "2.0.0", bin={"dep": "bin/dep.js"}), ("bin/dep.js", b"#!/bin/sh\n", 0o644)],
    "node_modules/tool/node_modules/@s/dep", manifest={"bin": {"dep": "bin/dep.js"}}, bin={"dep": "bin/dep.js"},
    license="MIT")
pkg("tool-darwin", "1.0.0", [pj("tool-darwin", "1.0.0", os=["darwin"]), ("x.js", b"x\n", 0o644)],
    "node_modules/tool-darwin", manifest={"os": ["darwin"]}, optional=True, os=["darwin"], license="MIT")
deps = {"tool": "1.0.0", "@s/dep": "1.0.0"}
if os.environ.get("GONE") == "1":
    pkg("gone-dep", "1.0.0", [pj("gone-dep", "1.0.0"), ("i.js", b"g\n", 0o644)], "node_modules/gone-dep",
        optional=True, license="MIT")
    pkg("tool-gone", "1.0.0", [pj("tool-gone", "1.0.0", dependencies={"gone-dep": "1.0.0"}), ("x.js", b"x\n", 0o644)],
        "node_modules/tool-gone", optional=True, dependencies={"gone-dep": "1.0.0"}, license="MIT")
    os.unlink(os.path.join(w, spec.pop("tool-gone")["1.0.0"]["file"]))
    entries["node_modules/tool"]["optionalDependencies"]["tool-gone"] = "1.0.0"
json.dump({"name": "project", "version": "1.0.0", "dependencies": deps}, open(os.path.join(p, "package.json"), "w"))
lock = {"name": "project", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
        "packages": {"": {"name": "project", "version": "1.0.0", "dependencies": deps}, **dict(sorted(entries.items()))}}
json.dump(lock, open(os.path.join(p, "package-lock.json"), "w"), indent=2)
json.dump(spec, open(os.path.join(w, "npm.json"), "w"))
PY
	python3 "$HARNESS_TOP/tests/servers/tarball-server.py" "$W" >"$BATS_TEST_TMPDIR/server.out" &
	SERVER=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/server.out"
	export npm_config_registry="http://127.0.0.1:$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/server.out")/packages/"
}

@test "a lock from a registry on 127.0.0.1: harness's tree is npm ci's (bins, CRLF, .gitignore, modes, nesting, optional)" {
	local_registry
	run -0 env NPM_DEPS="$HELPERS/npm-deps" "$HARNESS_TOP/tests/npm-trees.sh" "$P"
	echo "$output"
	[[ "$output" == *"same tree"* ]]
	# what the comparison covers, seen on harness's own tree (the script's cache was its own)
	run -0 "$HELPERS/npm-deps" "$P"
	nm=${lines[-1]}
	[ "$(readlink "$nm/.bin/tool")" = ../tool/cli.js ]
	[ "$(readlink "$nm/tool/node_modules/.bin/dep")" = ../@s/dep/bin/dep.js ]
	[ "$(head -c 21 "$nm/tool/cli.js" | od -An -c | tr -d ' \n')" = '#!/usr/bin/envnode\nm' ]
	[ -f "$nm/tool/.npmignore" ] && [ ! -e "$nm/tool/.gitignore" ] && [ ! -e "$nm/tool/link" ]
	[ ! -e "$nm/tool/empty" ] && [ ! -e "$nm/tool-darwin" ]
	[ "$(stat -c %a "$nm/tool/run.sh")" = 744 ] && [ "$(stat -c '%a %U' "$nm/tool/cli.js")" = "755 root" ]
}

@test "an optional package the registry no longer has: left out with what only it needs, as npm ci does, and said" {
	GONE=1 local_registry
	run env NPM_DEPS="$HELPERS/npm-deps" "$HARNESS_TOP/tests/npm-trees.sh" "$P"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"same tree"* ]]
	run -0 --separate-stderr "$HELPERS/npm-deps" "$P"
	echo "$stderr"
	nm=${lines[-1]}
	[ -d "$nm/tool" ] && [ ! -e "$nm/tool-gone" ] && [ ! -e "$nm/gone-dep" ]
	[[ "$stderr" == *"the optional tool-gone@1.0.0 is left out, as npm leaves it out: "*"tool-gone"* ]]
	# a server error for it (not a 404) is a passing failure: the install fails rather than cache a tree without it
	rm -rf "$HARNESS_CACHE_DIR"/*
	: >"$W/tool-gone.500"
	run -3 "$HELPERS/npm-deps" "$P"
	[[ "$output" == *"tool-gone@1.0.0 (node_modules/tool-gone): "*"HTTP 500"* ]]
	[ -z "$(ls -A "$HARNESS_CACHE_DIR")" ] || [ -z "$(find "$HARNESS_CACHE_DIR" -name node_modules)" ]
}

@test "the install runs no program that a lock or a tarball names: only npm config, for the registry's address" {
	command -v strace >/dev/null || hx_skip "needs strace"
	local_registry
	run -0 strace -f -qq -e trace=execve -e signal=none -o "$BATS_TEST_TMPDIR/trace" "$HELPERS/npm-deps" "$P"
	[ -d "${lines[-1]}/tool" ]
	grep 'execve(' "$BATS_TEST_TMPDIR/trace" | grep -v ' = -1 ' >"$BATS_TEST_TMPDIR/execs"
	cat "$BATS_TEST_TMPDIR/execs"
	# the helper itself, then npm config get registry (npm's script and its node): nothing else
	[ "$(head -1 "$BATS_TEST_TMPDIR/execs" | grep -c npm-deps)" = 1 ]
	run -1 grep -v -e 'npm-deps' -e '"config", "get", "registry"' "$BATS_TEST_TMPDIR/execs"
	run -1 grep -e '"ci"' -e '"install"' "$BATS_TEST_TMPDIR/execs"
}

@test "offline with nothing cached: exit 3 naming the scenario; once cached, no registry is asked" {
	local_registry
	npm_config_registry=http://127.0.0.1:9/ run -3 "$HELPERS/npm-deps" "$P"
	[[ "$output" == *"cannot install the npm dependencies of scenario test (offline?)"* ]]
	[[ "$output" == *"127.0.0.1:9"* ]]
	[ -z "$(ls -A "$HARNESS_CACHE_DIR/npm")" ] # nothing half-written
	run -0 "$HELPERS/npm-deps" "$P"
	kill "$SERVER"
	wait "$SERVER" 2>/dev/null || true
	SERVER=
	run -0 "$HELPERS/npm-deps" "$P"
	[ -d "${lines[-1]}/tool" ]
}

@test "a lock with a workspace link, or a tarball that is not the lock's: exit 2 naming the entry and the fix" {
	local_registry
	python3 - "$P/package-lock.json" <<'PY'
import json, sys
lock = json.load(open(sys.argv[1]))
lock["packages"]["node_modules/tool"]["integrity"] = lock["packages"]["node_modules/@s/dep"]["integrity"]
json.dump(lock, open(sys.argv[1], "w"))
PY
	run -2 "$HELPERS/npm-deps" "$P"
	[[ "$output" == *"tool@1.0.0 (node_modules/tool)"*"not the lock's integrity"*"refused"* ]]
	[ -z "$(ls -A "$HARNESS_CACHE_DIR/npm")" ]
	python3 - "$P/package-lock.json" <<'PY'
import json, sys
lock = json.load(open(sys.argv[1]))
lock["packages"]["node_modules/tool"] = {"resolved": "packages/tool", "link": True}
json.dump(lock, open(sys.argv[1], "w"))
PY
	run -2 "$HELPERS/npm-deps" "$P"
	[[ "$output" == *"packages.node_modules/tool: a link to a folder"* ]]
}

@test "the machine's registry: ws-chat's and postgres's locks install as npm ci installs them" {
	timeout 30 npm ping --fetch-retries=0 --fetch-timeout=10000 >/dev/null 2>&1 || hx_skip "the machine's npm registry does not answer (npm ping): offline"
	run -0 env NPM_DEPS="$HELPERS/npm-deps" "$HARNESS_TOP/tests/npm-trees.sh" \
		"$HARNESS_TOP/scenarios/ws-chat" "$HARNESS_TOP/scenarios/postgres"
	echo "$output"
	[ "$(grep -c 'same tree' <<<"$output")" = 2 ]
}
