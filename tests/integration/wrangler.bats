#!/usr/bin/env bats
# The wrangler runtime end to end: `wrangler dev` (node24 + wrangler, miniflare, workerd and esbuild from
# http-wintercg's committed lock) serving the scenario's fetch module in the sandbox, with nothing sent out.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	# wrangler's image is node24's bytes: with node24 present a missing or broken wrangler manifest fails
	"$HARNESS" images verify node24 workerd >/dev/null 2>&1 ||
		hx_skip "needs the node24 and workerd images (harness images pull node24 workerd)"
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

@test "http-wintercg on wrangler: wrangler dev answers every request as workerd does, and tries nothing outside" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes workerd,wrangler --requests 300 --connections 20 \
		--repeat 1 --keep --out r.json http-wintercg
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
d = json.load(open("r.json"))
t = {x["runtime"]: x for x in d["trials"]}
assert sorted(t) == ["workerd", "wrangler"], sorted(t)
for x in t.values():
    l = x["load"]
    assert x["status"] == "ok" and l["requests"] == 300 and l["errors"]["total"] == 0, x
# the answer at readiness came through miniflare's proxy unchanged: workerd's body and headers
w, g = t["workerd"]["wire"], t["wrangler"]["wire"]
assert g["status"] == 200 and g["body_sha256"] == w["body_sha256"] and g["headers"] == w["headers"], (w, g)
PY
	logs=$(python3 -c 'import json; print(json.load(open("r.json"))["config"]["logs"])')
	log="$logs"/server-http-wintercg-wrangler.log
	grep -q "Ready on http://127.0.0.1:3000" "$log"
	# wrangler dev served the load itself (it logs each request it forwards to workerd)
	[ "$(grep -c 'GET / 200' "$log")" -ge 300 ]
	# miniflare fetches Request.cf from the network at start unless CLOUDFLARE_CF_FETCH_ENABLED=false: in the
	# run's network namespace that attempt fails and it says so; no lookup of any host name is attempted
	refute grep -E "Unable to fetch|ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED" "$log"
	rm -rf "$logs" # --keep: ours to remove
}
