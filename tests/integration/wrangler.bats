#!/usr/bin/env bats
# The wrangler runtime end to end: `wrangler dev` (node24's package, with wrangler, miniflare, workerd and
# esbuild as the image's packages from images/wrangler/package-lock.json) serving http-wintercg's fetch module
# in the sandbox, with nothing sent out; and a run of http-wintercg without wrangler installs none of it.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	"$HARNESS" images verify node24 workerd >/dev/null 2>&1 ||
		hx_skip "needs the node24 and workerd images (harness images pull node24 workerd)"
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

# wrangler's packages come from the npm registry at pull time (228 MB, once per lock file): pulled here when
# absent, so that the run itself needs no network
need_wrangler() {
	"$HARNESS" images verify wrangler >/dev/null 2>&1 && return 0
	"$HARNESS" images pull wrangler >&2 && "$HARNESS" images verify wrangler >&2 ||
		hx_skip "needs the wrangler image, whose packages come from the npm registry (harness images pull wrangler)"
}

@test "http-wintercg on wrangler: wrangler dev answers every request as workerd does, and tries nothing outside" {
	need_wrangler
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes workerd,wrangler --requests 300 --connections 20 \
		--repeat 1 --keep --out r.json http-wintercg
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	# the image was present: the run installed nothing
	refute grep -q "installing the npm dependencies" <<<"$stderr"
	/usr/bin/python3 - "$HARNESS_TOP/images/wrangler/package-lock.json" <<'PY'
import hashlib, json, sys
d = json.load(open("r.json"))
t = {x["runtime"]: x for x in d["trials"]}
assert sorted(t) == ["workerd", "wrangler"], sorted(t)
for x in t.values():
    l = x["load"]
    assert x["status"] == "ok" and l["requests"] == 300 and l["errors"]["total"] == 0, x
# the answer at readiness came through miniflare's proxy unchanged: workerd's body and headers
w, g = t["workerd"]["wire"], t["wrangler"]["wire"]
assert g["status"] == 200 and g["body_sha256"] == w["body_sha256"] and g["headers"] == w["headers"], (w, g)
# the results name the packages wrangler ran with, by their lock file, and its version as it says it
img = {i["name"]: i for i in d["images"]}
lock = "sha256-" + hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
assert img["wrangler"]["packages"] == lock and img["wrangler"]["binary_version"] == "4.164.0", img["wrangler"]
assert "packages" not in img["workerd"], img["workerd"]
# each server's time from its start to serving: wrangler bundles the module and starts miniflare and a workerd
# before it answers, so it takes longer than the workerd it starts
ready = {r: x["server"]["ready_ms"] for r, x in t.items()}
print("# ready_ms", ready)
assert all(0 < v < 1e3 * x["wall_s"] for v, x in zip(ready.values(), t.values())), ready
assert ready["wrangler"] > ready["workerd"], ready
PY
	logs=$(/usr/bin/python3 -c 'import json; print(json.load(open("r.json"))["config"]["logs"])')
	log="$logs"/server-http-wintercg-wrangler.log
	grep -q "Ready on http://127.0.0.1:3000" "$log"
	# wrangler dev served the load itself (it logs each request it forwards to workerd)
	[ "$(grep -c 'GET / 200' "$log")" -ge 300 ]
	# miniflare fetches Request.cf from the network at start unless CLOUDFLARE_CF_FETCH_ENABLED=false: in the
	# run's network namespace that attempt fails and it says so; no lookup of any host name is attempted
	refute grep -E "Unable to fetch|ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED|fetch failed" "$log"
	rm -rf "$logs" # --keep: ours to remove
}

@test "react-ssr on wrangler: production React bundled by wrangler, every body the page workerd renders" {
	need_wrangler
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes workerd,wrangler --requests 200 --connections 10 \
		--repeat 1 --keep --out s.json react-ssr
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	logs=$(/usr/bin/python3 -c 'import json; print(json.load(open("s.json"))["config"]["logs"])')
	grep -qF 'serve-wrangler.mjs: wrangler dev, React bundled with process.env.NODE_ENV="production"' \
		"$logs"/server-react-ssr-wrangler.log
	rm -rf "$logs" # --keep: ours to remove
	/usr/bin/python3 - <<'PY'
import json
d = json.load(open("s.json"))
t = {x["runtime"]: x for x in d["trials"]}
assert sorted(t) == ["workerd", "wrangler"], sorted(t)
for x in t.values():
    assert x["status"] == "ok" and x["load"]["errors"]["total"] == 0, x
# the same page as workerd's production bundle; the framing is wrangler's proxy's own, and declared so
assert t["wrangler"]["wire"]["body_sha256"] == t["workerd"]["wire"]["body_sha256"]
# wrangler's esbuild loaded React's production build, never the development one
mods = t["wrangler"]["modules"]["paths"]
print("# wrangler loaded", len(mods), "files")
assert any(m.endswith("react-dom-server-legacy.browser.production.js") for m in mods), mods
assert not any("development" in m for m in mods), mods
PY
}

@test "http-wintercg on another runtime installs nothing of wrangler's and mounts no node_modules" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes workerd --requests 200 --connections 10 --repeat 1 \
		--keep --out r.json http-wintercg
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	refute grep -q "installing the npm dependencies" <<<"$stderr"
	logs=$(/usr/bin/python3 -c 'import json; print(json.load(open("r.json"))["config"]["logs"])')
	# a scenario with npm dependencies is staged with a node_modules to mount them on: http-wintercg has none
	[ -d "$logs" ]
	[ ! -e "$logs/scenario-http-wintercg/node_modules" ]
	rm -rf "$logs"
}

@test "images rm wrangler removes its packages and leaves node24's tree, which it shares" {
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	read -r tree lock < <(/usr/bin/python3 - "$HARNESS_TOP/images" <<'PY'
import base64, hashlib, json, sys
m = json.load(open(sys.argv[1] + "/wrangler.json"))
raw = base64.b64decode(m["source"]["integrity"].split("-", 1)[1])
lock = hashlib.sha256(open(sys.argv[1] + "/wrangler/package-lock.json", "rb").read()).hexdigest()
print("sha512-" + raw.hex(), "sha256-" + lock)
PY
	)
	mkdir -p "$HARNESS_CACHE_DIR/trees/$tree/bin" "$HARNESS_CACHE_DIR/npm/$lock/node_modules/wrangler"
	printf '#!/bin/sh\n' >"$HARNESS_CACHE_DIR/trees/$tree/bin/node"
	chmod 755 "$HARNESS_CACHE_DIR/trees/$tree/bin/node"
	grep -E '^wrangler .* present' <<<"$("$HARNESS" images ls)"
	run "$HARNESS" images rm wrangler
	[ "$status" -eq 0 ]
	[ ! -e "$HARNESS_CACHE_DIR/npm/$lock" ]
	[ -x "$HARNESS_CACHE_DIR/trees/$tree/bin/node" ]
	grep -E '^node24 .* present' <<<"$("$HARNESS" images ls)"
	grep -E '^wrangler .* absent' <<<"$("$HARNESS" images ls)"
}
