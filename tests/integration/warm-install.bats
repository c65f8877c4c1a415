#!/usr/bin/env bats
# The warm-install scenario end to end: npm (node22 and node24: the scenario's pinned one), bun install, deno install
# prepared once with the network, then timed in the sandbox with no network; an install that needs the network
# fails the run, and so does a scenario without its pinned npm.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

# The prepared cache entries a results file names: the test's own, to remove.
prepared_of() {
	python3 - "$1" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
root = os.environ.get("HARNESS_CACHE_DIR") or "/var/cache/harness"
for rts in d["config"].get("prepared", {}).values():
    for key in rts.values():
        print(os.path.join(root, "prepared", key))
PY
}

@test "warm-install: npm on node22 and node24, bun install and deno install, warm and fresh, with no network" {
	run --separate-stderr "$HARNESS" run --allow-prepare-network --runtimes node22,node24,bun,deno --profile quick --repeat 1 --keep --out w.json warm-install
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import hashlib, json, os
d = json.load(open("w.json"))
# the npm the node images ran is the scenario's, pinned by its lock, and the results name both
lock = open(os.path.join(os.environ["HARNESS_TOP"], "scenarios/warm-install/package-lock.json"), "rb").read()
npm = json.loads(lock)["packages"]["node_modules/npm"]["version"]
dep = d["config"]["dependencies"]["warm-install"]
assert dep == {"lock": "sha256-" + hashlib.sha256(lock).hexdigest(), "packages": {"npm": npm}}, dep
for t in d["trials"]:
    if t["runtime"].startswith("node"):
        log = open(t["process"]["log"]).read()
        assert f"warm-install: npm {npm} (/scenario/node_modules/npm)" in log, log
assert sorted(t["runtime"] for t in d["trials"]) == ["bun", "deno", "node22", "node24"], d["trials"]
prep = d["config"]["prepared"]["warm-install"]
assert sorted(prep) == ["bun", "deno", "node22", "node24"] and len(set(prep.values())) == 4, prep
root = os.environ.get("HARNESS_CACHE_DIR") or "/var/cache/harness"
for t in d["trials"]:
    assert t["status"] == "ok", t
    m = t["script"]
    assert m["warm_ms"] > 0 and m["fresh_ms"] > 0 and m["dependencies"] == 7 and m["ops"] == 2 * m["installs_each"], m
    kind = {"node22": "npm", "node24": "npm"}.get(t["runtime"], t["runtime"])
    entry = os.path.join(root, "prepared", prep[t["runtime"]])
    # the entry is root's and read-only: the installed tree and the cache of that package manager
    st = os.stat(entry)
    assert st.st_uid == 0 and not st.st_mode & 0o222 & ~0o200, oct(st.st_mode)
    assert os.path.isdir(os.path.join(entry, kind, "project", "node_modules", "express"))
    assert os.path.isdir(os.path.join(entry, kind, "cache"))
PY
	rm -rf "$(python3 -c 'import json; print(json.load(open("w.json"))["config"]["logs"])')" # --keep: ours
}

@test "warm-install: without its pinned npm the run fails saying so, never running the host's" {
	cp -r "$HARNESS_TOP/scenarios/warm-install" wn
	sed -i 's/"name": "warm-install"/"name": "warm-install-no-npm"/' wn/scenario.json
	rm wn/package.json wn/package-lock.json
	run --separate-stderr "$HARNESS" run --allow-prepare-network --runtimes node24 --profile quick --repeat 1 --out n.json ./wn
	echo "$stderr" | grep -v '^ ' | tail -8
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"warm-install: no npm at /scenario/node_modules/npm: the scenario's package.json and package-lock.json pin the npm"*"not running the host's"* ]]
	[[ "$stderr" == *"cannot prepare scenario warm-install-no-npm on node24"* ]]
}

@test "warm-install: a lock naming a package absent from the cache fails the run (exit 1: it needed the network)" {
	cp -r "$HARNESS_TOP/scenarios/warm-install" wi
	sed -i 's/"name": "warm-install"/"name": "warm-install-absent"/' wi/scenario.json
	# prepared from project/, measured on project-absent/: the same lock and left-pad, which no cache has
	cp -r wi/project wi/project-absent
	sed -i "s#^const PROJECT = '/scenario/project';#const PROJECT = process.env.PREPARE === '1' ? '/scenario/project' : '/scenario/project-absent';#" wi/bench.mjs
	grep -q "project-absent" wi/bench.mjs
	python3 - wi/project-absent <<-'PY'
	import json, re, sys

	d = sys.argv[1]
	INTEGRITY = "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQGinBN9yTQT3bFlCBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA=="

	p = json.load(open(f"{d}/package.json"))
	p["dependencies"]["left-pad"] = "1.3.0"
	json.dump(p, open(f"{d}/package.json", "w"), indent=2)

	lock = json.load(open(f"{d}/package-lock.json"))
	lock["packages"][""]["dependencies"]["left-pad"] = "1.3.0"
	lock["packages"]["node_modules/left-pad"] = {"version": "1.3.0", "integrity": INTEGRITY, "license": "WTFPL"}
	json.dump(lock, open(f"{d}/package-lock.json", "w"), indent=2)

	bun = open(f"{d}/bun.lock").read()
	bun = bun.replace('"dependencies": {\n', '"dependencies": {\n        "left-pad": "1.3.0",\n', 1)
	bun = bun.replace('"packages": {\n', f'"packages": {{\n    "left-pad": ["left-pad@1.3.0", "", {{}}, "{INTEGRITY}"],\n', 1)
	open(f"{d}/bun.lock", "w").write(bun)

	deno = json.load(open(f"{d}/deno.lock"))
	deno["specifiers"]["npm:left-pad@1.3.0"] = "1.3.0"
	deno["npm"]["left-pad@1.3.0"] = {"integrity": INTEGRITY}
	deno["workspace"]["packageJson"]["dependencies"].append("npm:left-pad@1.3.0")
	json.dump(deno, open(f"{d}/deno.lock", "w"), indent=2)
PY
	run --separate-stderr "$HARNESS" run --allow-prepare-network --runtimes node22,bun,deno --profile quick --repeat 1 --out a.json ./wi
	echo "$stderr" | grep -v '^ ' | tail -12
	# the variant's prepared entries stay in the cache (keyed by its files): the next run reuses them
	# instead of fetching ~270 packages three times again
	dirs=$(prepared_of a.json)
	[ "$(wc -l <<<"$dirs")" -eq 3 ]
	for d in $dirs; do [ -d "$d/npm" ] || [ -d "$d/bun" ] || [ -d "$d/deno" ]; done
	[ "$status" -eq 1 ]
	for pm in "npm ci" "bun install" "deno install"; do
		[[ "$stderr" == *"warm-install: $pm (fresh) failed with exit 1: it needed the network or a package the cache lacks"* ]]
	done
	python3 -c 'import json; d = json.load(open("a.json")); assert [t["status"] for t in d["trials"]] == ["failed"] * 3, d["trials"]'
}
