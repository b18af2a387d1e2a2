# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ratewall: `make` builds build/ratewall; `make test` runs every test layer;
# `make demo` shows it on a namespace testbed. Generated files live in build/.

BUILD    ?= build
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iuser -I$(BUILD) \
	    -DRW_LIBEXEC_DIR='"$(LIBEXECDIR)"'
LDLIBS   += $(shell pkg-config --libs libxdp 2>/dev/null || echo -lxdp) \
	    $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) -lm \
	    $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd) -lpthread \
	    $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo) \
	    $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3) \
	    $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Iinclude -Ibpf \
	      $(if $(MULTIARCH),-I/usr/include/$(MULTIARCH))

# The rooms of user/ (see docs/development.md), lowest first; a file
# includes its own room and those before it (tools/check_rooms.py checks).
ROOMS := model cli kernel rank views proc bgp act service
USER_LIB_SRCS := $(foreach r,$(ROOMS),$(wildcard user/$(r)/*.c)) $(filter-out user/main.c,$(wildcard user/*.c))
USER_LIB_OBJS := $(USER_LIB_SRCS:user/%.c=$(BUILD)/user/%.o)
# What the userspace unit tests link: every room's code that needs no kernel.
PURE_SRCS := $(wildcard user/model/*.c user/cli/*.c user/rank/*.c) user/kernel/window.c user/kernel/memplan.c \
	     user/kernel/enforced.c user/kernel/meminfo.c user/views/view.c user/views/history.c \
	     user/views/events.c user/views/report.c user/views/metrics_page.c \
	     user/views/actview.c user/bgp/gobgp.c user/proc/capture.c user/bgp/routes.c \
	     user/act/hook.c user/proc/spawn.c user/bgp/session.c
HDRS := $(wildcard user/*.h user/*/*.h include/*.h tests/*.h)
# tests/unit/*/: a room's tests grown into a folder of their own (metrics/: the /metrics page)
UNIT_TEST_SRCS := $(wildcard tests/unit/*.c tests/unit/*/*.c)

BPF_OBJS := $(BUILD)/ratewall.bpf.o $(BUILD)/xdp_drop_all.bpf.o $(BUILD)/xdp_pass_all.bpf.o \
	    $(BUILD)/rwgen.bpf.o
SKELS    := $(BUILD)/ratewall.skel.h $(BUILD)/xdp_drop_all.skel.h $(BUILD)/xdp_pass_all.skel.h \
	    $(BUILD)/rwgen.skel.h

# --bgp's session to gobgpd (user/bgp/ratewall-gobgp), found beside the
# binary: the helper, and GoBGP's API messages compiled by protoc from
# Debian's copy of its .proto files (golang-github-osrg-gobgp-dev) into
# rwgobgp/ beside it; the sanitizer build's binary finds it by a link.
GOBGP_PROTO := /usr/share/gocode/src/github.com/osrg/gobgp/api
GOBGP_MESSAGES := gobgp attribute capability
GOBGP_HELPER := $(BUILD)/ratewall-gobgp $(BUILD)/rwgobgp/gobgp_pb2.py $(BUILD)/asan/ratewall-gobgp

TOOLS := $(BUILD)/rwgen $(BUILD)/rwsink $(BUILD)/rwdelay $(BUILD)/progcost $(BUILD)/tickbench $(BUILD)/decisions

# The benchmark's reference programs (bench/toys/toy.bpf.c): the parse alone,
# and direct-mapped state of 8 or 64 bytes a source with 64 Ki or 1 Mi
# entries, each dropping a source's later packets (drop) or none (pass);
# rank: the 64-byte one with a line more for a destination and for a pair.
TOY_VARIANTS := parse_drop parse_pass $(foreach k,d8 d64,$(foreach n,64k 1m,$(foreach v,drop pass,$(k)_$(n)_$(v)))) \
		rank_64k_drop
TOYS := $(TOY_VARIANTS:%=$(BUILD)/toys/%.bpf.o)
toy_kind = $(word 1,$(subst _, ,$(1)))
toy_size = $(if $(filter 1m,$(word 2,$(subst _, ,$(1)))),1048576,65536)
toy_limit = $(if $(filter drop,$(lastword $(subst _, ,$(1)))),1,0)
TESTS := $(BUILD)/test_unit $(BUILD)/test_bpf

# A recipe that fails leaves no target behind (a skeleton written by a failed bpftool
# was empty, and the next make took it as made).
.DELETE_ON_ERROR:

.PHONY: all deps test-deps test test-slow test-cpus test-unit test-asan check-rooms demo docs bench bench-ab clean format install uninstall fuzz \
	deb test-package
all: $(BUILD)/ratewall $(BUILD)/ratewall.8 $(GOBGP_HELPER) $(TOOLS) $(TESTS) $(BPF_OBJS) $(BUILD)/layout-prev/ratewall

# make deps: what building and running need; make test-deps: that and the
# test rig (tools/install-deps.sh says which package is for what). Neither
# leaves a service of theirs enabled or running.
deps:
	@./tools/install-deps.sh build

test-deps:
	@./tools/install-deps.sh build test

$(BUILD) $(BUILD)/asan:
	@mkdir -p $@

$(BUILD)/ratewall-gobgp: user/bgp/ratewall-gobgp | $(BUILD)
	install -m 0755 $< $@

$(BUILD)/rwgobgp/gobgp_pb2.py: | $(BUILD)
	@mkdir -p $(dir $@)
	protoc -I$(GOBGP_PROTO) --python_out=$(dir $@) $(GOBGP_MESSAGES:%=$(GOBGP_PROTO)/%.proto)

$(BUILD)/asan/ratewall-gobgp: | $(BUILD)/asan
	ln -sf ../ratewall-gobgp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard include/*.h) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/rwgen.bpf.o: tools/rwgen/rwgen.bpf.c include/ratewall.h tools/rwgen/layout.h tools/rwgen/patch.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/toys:
	@mkdir -p $@

$(BUILD)/toys/%.bpf.o: bench/toys/toy.bpf.c bpf/parse.h include/ratewall.h | $(BUILD)/toys
	$(CLANG) $(BPF_CFLAGS) -DTOY_$(shell echo $(call toy_kind,$*) | tr a-z A-Z) \
		-DTOY_ENTRIES=$(call toy_size,$*) -DTOY_LIMIT=$(call toy_limit,$*) -c $< -o $@

$(BUILD)/ratewall.skel.h: $(BUILD)/ratewall.bpf.o
	$(BPFTOOL) gen skeleton $< name ratewall_bpf > $@
$(BUILD)/xdp_drop_all.skel.h: $(BUILD)/xdp_drop_all.bpf.o
	$(BPFTOOL) gen skeleton $< name xdp_drop_all_bpf > $@
$(BUILD)/xdp_pass_all.skel.h: $(BUILD)/xdp_pass_all.bpf.o
	$(BPFTOOL) gen skeleton $< name xdp_pass_all_bpf > $@
$(BUILD)/rwgen.skel.h: $(BUILD)/rwgen.bpf.o
	$(BPFTOOL) gen skeleton $< name rwgen_bpf > $@

# CPPFLAGS and LDFLAGS as make's conventions have them (empty here): the
# Debian build passes its hardening flags through them (debian/rules).
$(BUILD)/user/%.o: user/%.c $(HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

$(BUILD)/ratewall: user/main.c $(USER_LIB_OBJS)
	$(CC) $(CFLAGS) $(CPPFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# A loader one pinned-layout version behind, to test an upgrade across versions
# (tests/integration/service/test_upgrade.sh): the files that read the version
# compiled again with it overridden, the rest shared.
LAYOUT_PREV := $(shell expr $$(sed -n 's/^\#define RW_LAYOUT_VERSION //p' include/ratewall.h) - 1)
LAYOUT_SRCS := $(shell grep -l RW_LAYOUT_VERSION $(USER_LIB_SRCS))
$(BUILD)/layout-prev/%.o: user/%.c $(HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DRW_LAYOUT_VERSION=$(LAYOUT_PREV) -c $< -o $@

$(BUILD)/layout-prev/ratewall: user/main.c $(filter-out $(LAYOUT_SRCS:user/%.c=$(BUILD)/user/%.o),$(USER_LIB_OBJS)) \
			       $(LAYOUT_SRCS:user/%.c=$(BUILD)/layout-prev/%.o)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The traffic generator (tools/rwgen/): its driver and parts, and the BPF program above.
RWGEN_SRCS := $(filter-out %.bpf.c,$(wildcard tools/rwgen/*.c))
$(BUILD)/rwgen: $(RWGEN_SRCS) $(wildcard tools/rwgen/*.h) $(HDRS) $(BUILD)/rwgen.skel.h $(BUILD)/user/model/units.o
	$(CC) $(CFLAGS) $(RWGEN_SRCS) $(BUILD)/user/model/units.o -o $@ $(LDLIBS) -lpthread -lm

# The test harness (tests/harness/): the receiving observer, the delay line and
# the loader's tick over a filled table, which the benchmark runs too.
$(BUILD)/rwsink: tests/harness/rwsink.c $(HDRS) $(BUILD)/user/model/units.o
	$(CC) $(CFLAGS) tests/harness/rwsink.c $(BUILD)/user/model/units.o -o $@ $(LDLIBS)

$(BUILD)/rwdelay: tests/harness/rwdelay.c $(HDRS) $(BUILD)/user/model/units.o
	$(CC) $(CFLAGS) tests/harness/rwdelay.c $(BUILD)/user/model/units.o -o $@ $(LDLIBS)

$(BUILD)/tickbench: tests/harness/tickbench.c tests/harness/flowfill.c tests/harness/flowfill.h $(USER_LIB_OBJS) $(SKELS)
	$(CC) $(CFLAGS) -Itests/harness tests/harness/tickbench.c tests/harness/flowfill.c $(USER_LIB_OBJS) -o $@ $(LDLIBS)

# The benchmark's own programs (bench/): the program's cost a packet in L1 (over a
# table the harness's flowfill fills) and its decisions against an exact limiter.
$(BUILD)/progcost: bench/progcost.c tests/harness/flowfill.c tests/harness/flowfill.h $(USER_LIB_OBJS) $(SKELS)
	$(CC) $(CFLAGS) -Itests/harness bench/progcost.c tests/harness/flowfill.c $(USER_LIB_OBJS) -o $@ $(LDLIBS)

$(BUILD)/decisions: bench/decisions.c $(USER_LIB_OBJS) $(SKELS)
	$(CC) $(CFLAGS) bench/decisions.c $(USER_LIB_OBJS) -o $@ $(LDLIBS) -lm

# Each test source is an object of its own, so that make -j compiles them side by side.
PURE_OBJS := $(PURE_SRCS:user/%.c=$(BUILD)/user/%.o)
UNIT_TEST_OBJS := $(UNIT_TEST_SRCS:tests/%.c=$(BUILD)/tests/%.o)
BPF_TEST_SRCS := $(wildcard tests/bpf/*.c tests/bpf/*/*.c)
BPF_TEST_OBJS := $(BPF_TEST_SRCS:tests/%.c=$(BUILD)/tests/%.o)
TEST_HDRS := $(wildcard tests/unit/*.h tests/unit/*/*.h tests/bpf/*.h tests/bpf/*/*.h)
$(BUILD)/tests/%.o: tests/%.c $(HDRS) $(TEST_HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -Itests/bpf -c $< -o $@

$(BUILD)/test_unit: $(UNIT_TEST_OBJS) $(PURE_OBJS) | $(BUILD)
	$(CC) $(CFLAGS) $^ -o $@ -lm -lsqlite3 -lpthread

# test_rwgen.c checks the generator's two ways out against each other: its
# parts that build a frame, load the program and patch the copies are linked in.
RWGEN_PARTS := die frame packet program safety schedule
$(BUILD)/tools/rwgen/%.o: tools/rwgen/%.c $(wildcard tools/rwgen/*.h) $(HDRS) $(BUILD)/rwgen.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(BUILD)/asan/tools/rwgen/%.o: tools/rwgen/%.c $(wildcard tools/rwgen/*.h) $(HDRS) $(BUILD)/rwgen.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(BUILD)/tests/bpf/test_rwgen.o $(BUILD)/asan/tests/bpf/test_rwgen.o: CFLAGS += -Itools/rwgen

$(BUILD)/test_bpf: $(BPF_TEST_OBJS) $(USER_LIB_OBJS) $(RWGEN_PARTS:%=$(BUILD)/tools/rwgen/%.o)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) -lpthread

# The same code again under AddressSanitizer and UBSan: the unit tests, the BPF
# tests (loader, map reads) and a ratewall binary the integration tests can run.
SAN_FLAGS := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
# Every source is compiled once under them (build/asan/user/, build/asan/tests/)
# and linked into the three.
ASAN := $(BUILD)/asan/test_unit $(BUILD)/asan/test_bpf $(BUILD)/asan/ratewall
ASAN_LIB_OBJS := $(USER_LIB_SRCS:user/%.c=$(BUILD)/asan/user/%.o)

$(BUILD)/asan/user/%.o: user/%.c $(HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/asan/tests/%.o: tests/%.c $(HDRS) $(TEST_HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -Itests -Itests/bpf -c $< -o $@

$(BUILD)/asan/test_unit: $(UNIT_TEST_OBJS:$(BUILD)/%=$(BUILD)/asan/%) $(PURE_OBJS:$(BUILD)/%=$(BUILD)/asan/%)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $^ -o $@ -lm -lsqlite3 -lpthread

$(BUILD)/asan/test_bpf: $(BPF_TEST_OBJS:$(BUILD)/%=$(BUILD)/asan/%) $(ASAN_LIB_OBJS) \
			$(RWGEN_PARTS:%=$(BUILD)/asan/tools/rwgen/%.o)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $^ -o $@ $(LDLIBS) -lpthread

$(BUILD)/asan/ratewall: $(BUILD)/asan/user/main.o $(ASAN_LIB_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $^ -o $@ $(LDLIBS)

# libFuzzer targets for every parser of outside input (clang's fuzzer runtime,
# with ASan and UBSan): `make test` runs each for FUZZ_TEST_TIME seconds on the
# kept corpus in tests/fuzz/corpus, `make fuzz` for FUZZ_TIME.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
COMMA := ,
FUZZ_FLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
	      -fno-sanitize-recover=all -Iinclude -Iuser -Itests/fuzz
FUZZ_TEST_TIME ?= 4
FUZZ_TIME ?= 300

$(BUILD)/fuzz:
	@mkdir -p $@

# The code under test is compiled once with the fuzzer's coverage
# (fuzzer-no-link), each target's own file with its main.
FUZZ_LIB_OBJS := $(PURE_SRCS:user/%.c=$(BUILD)/fuzz/user/%.o)
# Named only by the fuzzers' pattern rule, make would take them for
# intermediate files and remove them after each build.
.SECONDARY: $(FUZZ_LIB_OBJS)
$(BUILD)/fuzz/user/%.o: user/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(subst fuzzer$(COMMA),fuzzer-no-link$(COMMA),$(FUZZ_FLAGS)) -c $< -o $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJS) $(HDRS) | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_FLAGS) $< $(FUZZ_LIB_OBJS) -o $@ -lm -lsqlite3

fuzz: test-deps
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS)
	@./tests/fuzz/run.sh $(FUZZ_TIME) $(BUILD)

test-unit: $(BUILD)/test_unit
	$(BUILD)/test_unit

test-asan: $(ASAN)
	$(BUILD)/asan/test_unit

# The layout: include edges between the rooms of user/, include cycles anywhere,
# folder sizes; fails on an include that points up, a cycle, or an oversized tooling folder.
check-rooms:
	@python3 tools/check_rooms.py

# Every layer but the slow suites (tests/run.sh says which), one closing
# "N passed, N failed" line; under 6 minutes here. Needs root (BPF, netns).
# The three builds (plain, sanitized, fuzzers) on every CPU: half the build
# time on two. make test-slow: the slow integration suites, which CI runs too.
test: test-deps
	@$(MAKE) --no-print-directory -j$$(nproc) all $(ASAN) $(FUZZ_TARGETS)
	@./tests/run.sh $(BUILD)

test-slow: test-deps
	@$(MAKE) --no-print-directory -j$$(nproc) all $(ASAN)
	@./tests/run.sh --slow $(BUILD)

# The cross-CPU checks (tests/cpus/) in QEMU guests of 16 and 64 CPUs (TCG, no
# KVM needed): installs QEMU and fetches Debian's 6.12 kernel into
# $(BUILD)/guest once. Needs root. About 30 minutes here; not part of `make test`.
test-cpus: test-deps
	@$(MAKE) --no-print-directory -j$$(nproc) all
	@./tests/cpus/run.sh $(BUILD)

# Benchmarks (needs root, bench/bench.py): table on stdout, JSON in bench/results/,
# the page docs/performance.md rendered from it. BENCH_QUICK=1: < 2 min.
bench: test-deps
	@$(MAKE) --no-print-directory all $(TOYS)
	@python3 bench/bench.py $(BUILD)

# Same-host A/B (needs root, bench/ab.py): every throughput row for BASE (a git
# revision, built in a worktree in $(BUILD)/ab/base, removed after) and for the
# working tree, interleaved over ROUNDS rounds; prints HEAD/BASE a case with its
# spread. make bench-ab BASE=<rev> [ROUNDS=3] [ROWS=key,...]; BENCH_QUICK=1: shorter.
ROUNDS ?= 3
bench-ab:
	@$(if $(BASE),,echo "make bench-ab: BASE is required: make bench-ab BASE=<git revision> [ROUNDS=3]" >&2; exit 2)
	@git rev-parse --verify --quiet '$(BASE)^{commit}' >/dev/null || \
		{ echo "make bench-ab: BASE=$(BASE) names no commit of this repository" >&2; exit 2; }
	@$(MAKE) --no-print-directory test-deps
	@$(MAKE) --no-print-directory all $(TOYS)
	@python3 bench/ab.py --base '$(BASE)' --rounds '$(ROUNDS)' $(if $(ROWS),--rows '$(ROWS)') $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory all
	@./tools/demo.sh $(BUILD)

# The captures of README.md and docs/ made again and written into their blocks
# (needs root and the test rig: the slow suites make theirs, `captures.py slow`;
# about 5 minutes).
# tests/integration/service/test_captures.sh checks their format in make test.
docs: test-deps
	@$(MAKE) --no-print-directory all
	@./tools/captures/make.sh $(BUILD)/captures $(BUILD)
	@python3 tools/captures/captures.py write . $(BUILD)/captures

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, ratewall(8), the
# systemd unit ratewall@.service, an example configuration, the bash and
# zsh completions (printed by the binary from its options' table), the
# Grafana dashboard and the Prometheus alert rules. The Debian package is
# this target with PREFIX=/usr (debian/rules).
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/ratewall
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
DATADIR ?= $(PREFIX)/share/ratewall
LIBEXECDIR ?= $(PREFIX)/lib/ratewall

$(BUILD)/completion/ratewall: $(BUILD)/ratewall
	@mkdir -p $(dir $@)
	$(BUILD)/ratewall completion bash > $@.tmp && mv $@.tmp $@

$(BUILD)/completion/_ratewall: $(BUILD)/ratewall
	@mkdir -p $(dir $@)
	$(BUILD)/ratewall completion zsh > $@.tmp && mv $@.tmp $@

# ratewall(8): dist/ratewall.8's prose with each command's options, printed by
# the binary from its options' table, where the page marks them.
$(BUILD)/ratewall.8: dist/ratewall.8 tools/manpage.awk $(BUILD)/ratewall
	$(BUILD)/ratewall completion --man > $@.options
	awk -f tools/manpage.awk $@.options dist/ratewall.8 > $@.tmp && mv $@.tmp $@
	rm -f $@.options

install: $(BUILD)/ratewall $(BUILD)/ratewall.8 $(BUILD)/completion/ratewall $(BUILD)/completion/_ratewall $(GOBGP_HELPER)
	install -D -m 0755 $(BUILD)/ratewall $(DESTDIR)$(SBINDIR)/ratewall
	install -D -m 0755 $(BUILD)/ratewall-gobgp $(DESTDIR)$(LIBEXECDIR)/ratewall-gobgp
	install -d $(DESTDIR)$(LIBEXECDIR)/rwgobgp
	install -m 0644 $(GOBGP_MESSAGES:%=$(BUILD)/rwgobgp/%_pb2.py) $(DESTDIR)$(LIBEXECDIR)/rwgobgp/
	install -D -m 0644 $(BUILD)/ratewall.8 $(DESTDIR)$(MANDIR)/man8/ratewall.8
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/ratewall@.service.in > $(DESTDIR)$(UNITDIR)/ratewall@.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ratewall@.service
	install -D -m 0644 dist/ratewall.conf.example $(DESTDIR)$(DOCDIR)/ratewall.conf.example
	install -D -m 0644 $(BUILD)/completion/ratewall $(DESTDIR)$(BASHCOMPDIR)/ratewall
	install -D -m 0644 $(BUILD)/completion/_ratewall $(DESTDIR)$(ZSHCOMPDIR)/_ratewall
	install -D -m 0644 dist/ratewall-dashboard.json $(DESTDIR)$(DATADIR)/grafana/ratewall-dashboard.json
	install -D -m 0644 dist/ratewall.rules.yml $(DESTDIR)$(DATADIR)/prometheus/ratewall.rules.yml

uninstall:
	rm -rf $(DESTDIR)$(LIBEXECDIR)
	rm -f $(DESTDIR)$(SBINDIR)/ratewall $(DESTDIR)$(MANDIR)/man8/ratewall.8 \
	      $(DESTDIR)$(UNITDIR)/ratewall@.service $(DESTDIR)$(DOCDIR)/ratewall.conf.example \
	      $(DESTDIR)$(BASHCOMPDIR)/ratewall $(DESTDIR)$(ZSHCOMPDIR)/_ratewall \
	      $(DESTDIR)$(DATADIR)/grafana/ratewall-dashboard.json \
	      $(DESTDIR)$(DATADIR)/prometheus/ratewall.rules.yml

# make deb: $(BUILD)/ratewall_VERSION_ARCH.deb (debian/: debhelper, the
# install target above), built by dpkg-buildpackage in a copy of the working
# tree's files as git lists them (tracked or not, never ignored) in
# $(BUILD)/deb/, so the tree itself stays clean; then lintian, whose report
# is kept in $(BUILD)/deb/lintian.txt and fails the target on any error.
# RW_VERSION is user/cli/version.h's; debian/changelog is written into the
# copy from CHANGELOG.md (tools/changelog.py), whose newest entry must say
# the same version.
# The caller's make flags and BUILD stay out of the package's own make.
RW_VERSION := $(shell sed -n 's/^\#define RATEWALL_VERSION "\(.*\)"/\1/p' user/cli/version.h)
DEB_SRC := $(BUILD)/deb/ratewall-$(RW_VERSION)
DEB = $(BUILD)/ratewall_$(RW_VERSION)_$(shell dpkg --print-architecture).deb

deb: deps
	@./tools/install-deps.sh deb
	@python3 tools/changelog.py --check || { echo "deb: fix CHANGELOG.md" >&2; exit 1; }
	@git rev-parse --is-inside-work-tree >/dev/null || \
		{ echo "deb: needs a git checkout: it copies the files git lists" >&2; exit 1; }
	rm -rf $(BUILD)/deb && mkdir -p $(DEB_SRC)
	git ls-files -z -co --exclude-standard | \
		xargs -0 sh -c 'for f; do [ ! -e "$$f" ] || printf "%s\0" "$$f"; done' _ | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_SRC)
	python3 tools/changelog.py >$(DEB_SRC)/debian/changelog
	cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD \
		dpkg-buildpackage -b -us -uc -Jauto >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; echo "deb: dpkg-buildpackage failed: $(BUILD)/deb/build.log" >&2; exit 1; }
	cp $(BUILD)/deb/$(notdir $(DEB)) $(DEB)
	@lintian -I --fail-on error $(DEB) >$(BUILD)/deb/lintian.txt 2>&1; rc=$$?; \
		cat $(BUILD)/deb/lintian.txt; echo "lintian: $$(grep -c '^E:' $(BUILD)/deb/lintian.txt) errors," \
		"$$(grep -c '^W:' $(BUILD)/deb/lintian.txt) warnings, $$(grep -c '^I:' $(BUILD)/deb/lintian.txt) notes"; \
		[ $$rc -eq 0 ] || { echo "deb: lintian fails $(DEB) (exit $$rc)" >&2; exit 1; }

# The package installed, run and purged on this machine (tests/package/):
# root; refuses to run when a ratewall package it did not install is there.
test-package: test-deps
	@./tools/install-deps.sh deb
	@$(MAKE) --no-print-directory $(BUILD)/rwgen
	@./tests/package/test_package.sh $(BUILD)

format:
	clang-format -i bpf/*.c bpf/*.h user/*.c user/*.h user/*/*.c user/*/*.h include/*.h tools/rwgen/*.c \
		tools/rwgen/*.h bench/*.c bench/toys/*.c tests/*/*.c tests/*/*.h tests/*.h

clean:
	rm -rf $(BUILD)
