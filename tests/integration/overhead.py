# The checks of a results file's fixed costs shared by the bats files (python3 - FILE "$BATS_TEST_DIRNAME", then
# sys.path.insert(0, sys.argv[2]) and from overhead import check_overhead):
# a trial's overhead_ms by phase (docs/results.md) and the run's share of wall time spent measuring.


def check_overhead(d):
    for t in d["trials"]:
        oh = t["overhead_ms"]
        want = {"slices", "teardown", "total"}
        if "server" in t:
            want |= {"sandboxes", "ready", "stop"}
        if "process" in t:
            want |= {"sandboxes"}
        if "fixture" in t:
            want |= {"fixture"}
        assert want <= set(oh), (want, oh)
        assert all(v >= 0 for v in oh.values()), oh
        phases = sum(v for k, v in oh.items() if k != "total")
        assert phases <= t["wall_s"] * 1e3, (oh, t["wall_s"])
        assert abs(oh["total"] - (phases - oh.get("fixture", 0))) < 1e-6, oh
        assert oh["sandboxes" if "sandboxes" in oh else "slices"] > 0, oh  # something was timed
        assert 0 < t["measuring_s"] <= t["wall_s"], t
        if "load" in t:  # the measured load, not the warm-up: at least the time its requests took
            assert t["measuring_s"] >= t["load"]["duration_s"], (t["measuring_s"], t["load"]["duration_s"])
    r = d["run"]
    assert 0 < r["measuring_s"] < r["wall_s"], r
    assert abs(r["measuring_s"] - sum(t["measuring_s"] for t in d["trials"])) < 1e-6, r
    assert abs(r["measuring_share"] - r["measuring_s"] / r["wall_s"]) < 1e-9, r
