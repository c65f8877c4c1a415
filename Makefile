# harness: build, test, install. GNU make.

VERSION := 0.1.0
# Without .git (an action's download): HARNESS_COMMIT (the action sets its own ref), never the calling
# workflow's GITHUB_SHA, which is another repository's commit (results record that as harness.ci.commit).
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo "$${HARNESS_COMMIT:-unknown}" | cut -c1-12)

PKGS := libseccomp libcap libcurl libcjson libarchive openssl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# What bin/harness links: libcurl, libarchive and OpenSSL (and the ~40 libraries they pull in) are opened by
# the verbs that use them (harness/base/dl.h), so a start costs about what libc's does (make bench-start).
START_PKGS := libseccomp libcap libcjson
START_LIBS := $(shell pkg-config --libs $(START_PKGS) 2>/dev/null)

CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wold-style-definition -Wwrite-strings -Wpointer-arith -Wundef -Wvla -Wimplicit-fallthrough \
	-Wmissing-declarations -Wredundant-decls -Wnested-externs -Wno-format-truncation
CFLAGS += -std=gnu11 $(OPT) $(WARN) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-DHX_VERSION='"$(VERSION)"' -DHX_COMMIT='"$(COMMIT)"' -I. -Iharness $(PKG_CFLAGS)
LDLIBS += $(START_LIBS) -lm
# the unit tests call libarchive and OpenSSL themselves (test tarballs, digests)
TEST_LIBS := $(PKG_LIBS)

BUILD ?= build
# the builds inside the test targets use every CPU: their compiles are independent
NPROC := $(shell nproc 2>/dev/null || echo 1)
PREFIX ?= /usr/local
DESTDIR ?=

LIB_SRC := $(filter-out harness/cli/main.c,$(wildcard harness/*/*.c)) $(wildcard cgroups/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)
SOURCES := $(wildcard harness/*/*.[ch] cgroups/*.[ch] tests/unit/*.[ch] tests/helpers/*.c)

.PHONY: all test test-busy check-tree unit integration guest asan install uninstall deps test-deps format format-check run clean

# The binary is bin/harness: ./harness is the folder of its sources. The man page and the shell completions are
# made from its option tables (harness --dump), so they list exactly the options it has.
GEN_DOCS := $(BUILD)/man/harness.1 $(BUILD)/completion/harness.bash $(BUILD)/completion/_harness
all: bin/harness $(GEN_DOCS)

$(BUILD)/man/harness.1: bin/harness
	@mkdir -p $(dir $@)
	bin/harness --dump man >$@.tmp && mv $@.tmp $@
$(BUILD)/completion/harness.bash: bin/harness
	@mkdir -p $(dir $@)
	bin/harness --dump bash >$@.tmp && mv $@.tmp $@
$(BUILD)/completion/_harness: bin/harness
	@mkdir -p $(dir $@)
	bin/harness --dump zsh >$@.tmp && mv $@.tmp $@

bin/harness: $(BUILD)/harness/cli/main.o $(BUILD)/libharness.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/libharness.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# The commit is baked into main.o only, so a new commit relinks nothing else.
$(BUILD)/harness/cli/main.o: .git-commit
.git-commit: FORCE
	@echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' > $@
FORCE:

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libharness.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libharness.a $(LDFLAGS) $(LDLIBS) $(TEST_LIBS) -lcmocka

# the one helper that is harness's own code: an install of a lock as a run makes it
$(BUILD)/helpers/npm-deps: tests/helpers/npm-deps.c $(BUILD)/libharness.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libharness.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-missing-prototypes -o $@ $< -lpthread -lssl -lcrypto

-include $(LIB_OBJ:.o=.d) $(BUILD)/harness/cli/main.d

# The README's test command: the dependency check, then unit tests, integration tests on this host (the
# sanitizer set of files against the ASan+UBSan build of bin/harness: tests/run.sh) and the cgroup v2 guest
# tests. The check comes first and alone: the build needs what it installs.
ASAN_OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_MAKE = $(MAKE) -j$(NPROC) BUILD=build-asan OPT='$(ASAN_OPT)' LDFLAGS='-fsanitize=address,undefined'
test: test-deps
	tests/check-tree.sh
	$(MAKE) -j$(NPROC) bin/harness $(UNIT_BIN) $(HELPER_BIN)
	$(ASAN_MAKE) build-asan/bin/harness
	$(MAKE) images
	tests/run.sh --build $(BUILD) --asan-harness build-asan/bin/harness all

# Every shipped image in the cache, so no test depends on another having pulled it (a no-op when present).
.PHONY: images
images: bin/harness
	bin/harness images pull --all

# The same with a `harness run` looping beside the suites (a busy host: tests judge only what they made).
test-busy: test-deps
	$(MAKE) bin/harness $(UNIT_BIN) $(HELPER_BIN)
	$(MAKE) images
	tests/run.sh --build $(BUILD) --busy all

# The tree's rules (docs/architecture.md): include graph, cJSON's place, cgroups/ on base/, path names.
check-tree:
	tests/check-tree.sh

unit: $(UNIT_BIN)
	tests/run.sh --build $(BUILD) unit

integration: bin/harness $(HELPER_BIN)
	tests/run.sh --build $(BUILD) integration

guest: bin/harness $(HELPER_BIN)
	tests/run.sh --build $(BUILD) guest

# ASan + UBSan build of the library, running the unit tests.
asan:
	$(ASAN_MAKE) unit

# The same build of bin/harness (as build-asan/bin/harness) running every host integration file with the test
# helpers of $(BUILD), or ASAN_FILES (a file each: "run.bats timeline.bats"); any sanitizer report fails it.
# make test runs the sanitizer set of files so (tests/run.sh); this is the whole suite, on request.
.PHONY: asan-integration
asan-integration: $(HELPER_BIN)
	$(ASAN_MAKE) build-asan/bin/harness
	@if [ -z "$(ASAN_FILES)" ]; then tests/run.sh --build $(BUILD) --asan-harness build-asan/bin/harness --asan-all integration; \
	else rc=0; for f in $(ASAN_FILES); do tests/run.sh --build $(BUILD) --asan-harness build-asan/bin/harness --asan-all integration $$f || rc=1; done; exit $$rc; fi

# bin/harness of another build (BUILD=build-asan)
$(BUILD)/bin/harness: $(BUILD)/harness/cli/main.o $(BUILD)/libharness.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

install: bin/harness $(GEN_DOCS)
	install -D -m 0755 bin/harness $(DESTDIR)$(PREFIX)/bin/harness
	install -d $(DESTDIR)$(PREFIX)/share/harness
	cp -R images scenarios $(DESTDIR)$(PREFIX)/share/harness/
	install -D -m 0644 $(BUILD)/man/harness.1 $(DESTDIR)$(PREFIX)/share/man/man1/harness.1
	install -D -m 0644 $(BUILD)/completion/harness.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness
	install -D -m 0644 $(BUILD)/completion/_harness $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_harness

# What install put there, and nothing else (the image cache is data: harness images gc / rm manage it).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/harness $(DESTDIR)$(PREFIX)/share/man/man1/harness.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_harness
	rm -rf $(DESTDIR)$(PREFIX)/share/harness

# Two dependency sets (ci/deps.sh): what building and `make run` need, and that plus what the tests need.
deps:
	@ci/deps.sh run
test-deps:
	@ci/deps.sh test

format:
	clang-format -i $(SOURCES)

format-check:
	clang-format --dry-run --Werror $(SOURCES)

# The main job: everything a fresh machine needs, the host report (informational), then the default suite
# (RUN_ARGS: other arguments of harness run).
RUN_ARGS ?=
run: deps
	$(MAKE) all
	-bin/harness doctor
	bin/harness run $(RUN_ARGS)

clean:
	rm -rf $(BUILD) build-asan bin .git-commit

# Benchmarks print figures and ratios against their peer tools; they assert nothing.
.PHONY: bench-ab bench-ab-tries bench-ab-window bench-host-noise bench-sandbox bench-sandbox-effect bench-load bench-instrument bench-startup bench-fixture bench-trial bench-noise bench-report bench-soak soak
bench-sandbox: bin/harness
	bench/sandbox.sh
# the same comparison in the cgroup v2 guest (TCG: only the ratios mean anything; GUEST_RUNS in all, 3 rounds)
.PHONY: bench-sandbox-guest
bench-sandbox-guest: bin/harness
	tests/guest/run-guest.sh --command "ROUNDS=3 bench/sandbox.sh $(or $(GUEST_RUNS),60)"
# a harness process's start (--version, the load client, a noise generator) against /bin/true
.PHONY: bench-start
bench-start: bin/harness $(BUILD)/helpers/hello-server
	bench/start.sh
bench-load: bin/harness $(BUILD)/helpers/hello-server
	bench/load.sh
# 10,000 and 50,000 connections held 60 s with zero errors; the client's memory per connection
# (CONNS_SECONDS, CONNS: the sizes). Not in make test.
CONNS_SECONDS ?= 60
CONNS ?= 10000 50000
bench-soak: bin/harness $(BUILD)/helpers/hello-server
	bench/conns.sh $(CONNS_SECONDS) $(CONNS)
# harness run SOAK_N times in a row (SOAK_ARGS: its arguments, default the default suite): nothing leaked,
# the RSS slope. Not in make test.
SOAK_N ?= 50
SOAK_ARGS ?=
soak: bin/harness
	tests/soak.sh $(SOAK_N) -- $(SOAK_ARGS)
bench-startup: bin/harness
	bench/startup.sh
# harness ab against two runs + compare, and against hyperfine -N (docs/ab.md): AB_ROUNDS rounds (default 3) of four
# measurements of AB_SECONDS each (default 60: about 15 minutes), or AB_BUDGET seconds in all. Not in make test.
bench-ab: bin/harness
	AB_BUDGET=$(AB_BUDGET) bench/ab.sh $(or $(AB_RUNTIME),bun) $(or $(AB_SECONDS),60) $(or $(AB_ROUNDS),3)
# harness ab's verdicts tried many times: A/A and a B 3% slower on purpose (bench/ab-tries.sh's arguments)
bench-ab-tries: bin/harness
	bench/ab-tries.sh $(AB_TRIES_ARGS)
# which --window buys the most precision a minute here now: A/A duets at each window, alternated (bench/ab-window.sh's
# arguments: SCENARIO RUNTIME WINDOWS TRIES MAX_TIME)
bench-ab-window: bin/harness
	bench/ab-window.sh $(AB_WINDOW_ARGS)
# the shape of this host's noise: two probes on two CPUs, their rates per bin (bench/host-noise.sh KIND SECONDS)
bench-host-noise: $(BUILD)/helpers/spin-rate
	bench/host-noise.sh $(HOST_NOISE_ARGS)
bench-instrument: bin/harness
	bench/instrument.sh
bench-fixture: bin/harness
	bench/fixture.sh
bench-trial: bin/harness
	bench/trial.sh
# ALTS alternations in and out of the sandbox (default 6), PROFILE of each run (default standard)
bench-sandbox-effect: bin/harness $(BUILD)/helpers/syscall-cost
	bench/sandbox-effect.sh $(or $(ALTS),6) $(or $(PROFILE),standard)
bench-noise: bin/harness $(BUILD)/helpers/spin-rate
	bench/noise.sh
# the modules watch on react-ssr's tree: arm, record, close, and node24's load of react-dom watched and not
.PHONY: bench-modules
bench-modules: bin/harness $(BUILD)/bench/modules-cost
	bench/modules.sh $(BUILD)/bench/modules-cost $(or $(ROUNDS),60)
$(BUILD)/bench/modules-cost: bench/modules-cost.c $(BUILD)/libharness.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libharness.a $(LDFLAGS) $(LDLIBS) $(TEST_LIBS)
# REAL: a results file of a real run with startup and http trials (bench/report.sh makes a 10 MB one from it)
bench-report: bin/harness
	bench/report.sh $(REAL)

# Fuzz targets (clang libFuzzer + ASan/UBSan) for the parsers of outside input, from their committed seed
# corpora (tests/fuzz/corpus/NAME): FUZZ_SECONDS each; fuzz-long is the campaign, FUZZ_LONG_SECONDS each.
FUZZ_SECONDS ?= 20
FUZZ_LONG_SECONDS ?= 600
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
.PHONY: fuzz fuzz-long
fuzz: $(FUZZ_TARGETS)
	tests/fuzz/campaign.sh $(FUZZ_SECONDS) $(BUILD) $(FUZZ_TARGETS)
fuzz-long: $(FUZZ_TARGETS)
	tests/fuzz/campaign.sh $(FUZZ_LONG_SECONDS) $(BUILD) $(FUZZ_TARGETS)

FUZZ_SRC := harness/load/http.c harness/load/ws.c harness/load/dsproto.c harness/image/manifest.c harness/image/npmtree.c \
	harness/run/scenario.c harness/run/scenario_routes.c \
	harness/run/scenario_wire.c harness/run/wire.c harness/base/proc.c \
	harness/base/err.c harness/base/esc.c harness/base/util.c harness/base/valid.c harness/run/pgwire.c harness/run/script.c \
	harness/load/check.c harness/base/dl.c harness/base/dl_curl.c harness/base/dl_ossl.c
# The parsers are compiled once, instrumented for coverage without libFuzzer's main (fuzzer-no-link), into one
# archive each target links: ten targets compiled them ten times (43 s of CI's time, now a quarter of it).
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-sanitize-recover=all -D_GNU_SOURCE -I. -Iharness $(PKG_CFLAGS)
FUZZ_OBJ := $(FUZZ_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
$(BUILD)/fuzz/libparsers.a: $(FUZZ_OBJ)
	rm -f $@
	ar rcs $@ $^
-include $(FUZZ_OBJ:.o=.d)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libparsers.a
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(BUILD)/fuzz/libparsers.a \
		-lcurl -lcrypto -lcjson -lm
