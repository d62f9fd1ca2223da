# pipetrace: BPF programs (clang -target bpf) + skeletons (bpftool) + tools.
# V=1 shows the commands.

CLANG      ?= clang
BPFTOOL    ?= bpftool
CC         ?= cc
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
# ARCH, the kernel's name (x86, arm64): the machine the tools are for.
# make ARCH=arm64 on another machine cross-builds (cross.mk).
HOST_ARCH  := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
ARCH       := $(HOST_ARCH)
OUT        := build
VERSION    := 0.1.0
PKG_CONFIG := pkg-config
ifneq ($(ARCH),$(HOST_ARCH))
include cross.mk
endif

# Debian's build flags with all its hardening (dpkg-buildflags,
# hardening=+all: stack protector, _FORTIFY_SOURCE, PIE, relro, bindnow)
# for every build, as the .deb's lintian checks want them; -O2 -g alone
# without dpkg-dev. Preprocessor flags ride in CFLAGS, which every
# compile gets; each link gets LDFLAGS.
buildflags = $(shell $(DEB_HOST) DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get $(1) 2>/dev/null)
ifeq ($(origin CFLAGS),undefined)
CFLAGS     := $(or $(call buildflags,CFLAGS),-O2 -g)
endif
ifeq ($(origin CPPFLAGS),undefined)
CPPFLAGS   := $(call buildflags,CPPFLAGS)
endif
ifeq ($(origin LDFLAGS),undefined)
LDFLAGS    := $(call buildflags,LDFLAGS)
endif
override CFLAGS += $(CPPFLAGS) -std=gnu11 -Wall -Wextra -Werror -Iinclude -I$(OUT) -Isrc \
	      -DPIPETRACE_VERSION='"$(VERSION)"' $(CROSS_CFLAGS)
# $(OUT)/flags holds the flags the objects were built with: other flags
# (a dpkg-dev update, CC=clang) rebuild them, so no package gets objects
# of older flags
BUILD_FLAGS := $(CC) $(CFLAGS) $(LDFLAGS)
ifneq ($(file <$(OUT)/flags),$(BUILD_FLAGS))
$(shell mkdir -p $(OUT))
$(file >$(OUT)/flags,$(BUILD_FLAGS))
endif
LDLIBS     ?= -lbpf -lelf -lz
# CO-RE: the vendored vmlinux.h of this architecture (libbpf-tools style), so
# building never needs the build machine's BTF; without one, it is made
# from VMLINUX_BTF. BTF is needed only to run.
VMLINUX_DIR := $(if $(wildcard include/vmlinux/$(ARCH)/vmlinux.h),include/vmlinux/$(ARCH),$(OUT))
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX_DIR) \
	      -Iinclude -I$(OUT) -Wall -Werror

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Layout (docs/ARCHITECTURE.md): the SHARED_ROOMS are plain C (no libbpf),
# src/session loads and drains the BPF objects, one folder per front end.
.DEFAULT_GOAL := all
TIERS      := tracepoint function syscall
TOOLS      := pipestat pipetop pipetrace-bench
# where the tools are made: here, or a cross build's tree
BIN        := $(if $(CROSS),$(OUT)/bin/)
TOOL_BINS  := $(addprefix $(BIN),$(TOOLS))
SKELS      := $(patsubst %,$(OUT)/%_tier.skel.h,$(TIERS))
objs        = $(patsubst src/%.c,$(OUT)/%.o,$(wildcard $(1)))
# the plain-C rooms (no libbpf) every front end links, in include order
# (a room includes only those before it: docs/ARCHITECTURE.md)
SHARED_ROOMS := model os output cli tune pipeline workload
SHARED_OBJS := $(call objs,$(SHARED_ROOMS:%=src/%/*.c))
SESSION_OBJS := $(call objs,src/session/*.c)
PIPESTAT_OBJS := $(call objs,src/pipestat/*.c)
PIPETOP_OBJS := $(call objs,src/pipetop/*.c)
# pipetop's parts without curses drawing (view.c, pipeline_view.c) or the
# session (main.c)
PIPETOP_PLAIN_OBJS := $(filter-out $(OUT)/pipetop/main.o $(OUT)/pipetop/view.o \
			$(OUT)/pipetop/pipeline_view.o,$(PIPETOP_OBJS))
PIPETRACE_BENCH_OBJS := $(call objs,src/pipetrace-bench/*.c)
CURSES_LIBS ?= $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
MHD_LIBS   ?= $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
YAML_LIBS  ?= $(shell $(PKG_CONFIG) --libs yaml-0.1 2>/dev/null || echo -lyaml)
GNUTLS_LIBS ?= $(shell $(PKG_CONFIG) --libs gnutls 2>/dev/null || echo -lgnutls)
# Graphviz's layout and renderers: pipestat --graph, the exporter's /graph.svg
GVC_LIBS   ?= $(shell $(PKG_CONFIG) --libs libgvc 2>/dev/null || echo -lgvc -lcgraph -lcdt)

$(BIN)pipestat: $(PIPESTAT_OBJS) $(SESSION_OBJS) $(SHARED_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(MHD_LIBS) $(YAML_LIBS) $(GNUTLS_LIBS) $(GVC_LIBS) -lcrypt -lpthread $(LDLIBS) -o $@

$(BIN)pipetop: $(PIPETOP_OBJS) $(SESSION_OBJS) $(SHARED_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CURSES_LIBS) $(LDLIBS) -lm -o $@

$(BIN)pipetrace-bench: $(PIPETRACE_BENCH_OBJS) $(SESSION_OBJS) $(SHARED_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -luring -lm -o $@

# docgen (src/docgen): the man pages' OPTIONS entries and the bash
# completion, made from the front ends' option tables; make all writes
# them (committed) when they change, test_docs.sh checks they are current
DOCGEN_OBJS := $(OUT)/docgen/main.o $(OUT)/pipestat/opts.o $(OUT)/pipestat/listen.o \
	       $(PIPETOP_PLAIN_OBJS) \
	       $(filter-out $(OUT)/pipetrace-bench/main.o,$(PIPETRACE_BENCH_OBJS)) $(SHARED_OBJS)
$(OUT)/docgen/docgen: $(DOCGEN_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -luring -lm -o $@
# it runs at build time: a cross build uses the host's
DOCGEN     := $(if $(CROSS),build,$(OUT))/docgen/docgen
ifdef CROSS
.PHONY: $(DOCGEN)
$(DOCGEN):
	$(Q)$(MAKE) --no-print-directory ARCH=$(HOST_ARCH) OUT=build CC=cc $@
endif

MAN_PAGES  := man/pipestat.8 man/pipetop.8 man/pipetrace-bench.1
COMPLETION := scripts/pipetrace.bash-completion
# gen CMD: its output into the target, which is only touched when the same
gen = $(1) >$@.new && { cmp -s $@.new $@ && rm $@.new && touch $@ || mv $@.new $@; }
$(MAN_PAGES): $(DOCGEN)
	$(call msg,GEN,$@)
	$(Q)$(call gen,$(DOCGEN) man $(basename $(notdir $@)) $@)
$(COMPLETION): $(DOCGEN)
	$(call msg,GEN,$@)
	$(Q)$(call gen,$(DOCGEN) completion)

# the tests' programs: the host's in tests/host; a cross build's, for the
# VM of that architecture (tests/vm/guest-pipestat.sh), in $(OUT)/tests/host
TEST_DIR   := $(if $(CROSS),$(OUT)/)tests/host
TEST_PROGS := $(TEST_DIR)/pipework $(TEST_DIR)/pipework32 $(if $(CROSS),,$(TEST_DIR)/resizework)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/%,$(wildcard tests/unit/test_*.c))

.PHONY: all clean check unit unit-asan hostcheck metrics-doc bench vmbench vmtest deps demo test vmlinux-h \
	install uninstall deb cross-check
# a cross build makes the tools and the VM's test programs
all: $(TOOL_BINS) $(TEST_PROGS) $(if $(CROSS),,$(MAN_PAGES) $(COMPLETION))

deps:
	$(Q)scripts/install-deps.sh $(CROSS)

$(OUT):
	$(Q)mkdir -p $@

$(OUT)/vmlinux.h: $(VMLINUX_BTF) | $(OUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $< format c > $@

# make vmlinux-h: regenerates the vendored header from this host's BTF;
# with ARCH=arm64 from the BTF of Debian's kernel for it
ifdef CROSS
vmlinux-h:
	$(Q)mkdir -p include/vmlinux/$(ARCH)
	$(Q)BPFTOOL=$(BPFTOOL) scripts/vmlinux-h-debian.sh $(ARCH) include/vmlinux/$(ARCH)/vmlinux.h
else
vmlinux-h: $(OUT)/vmlinux.h
	$(Q)mkdir -p include/vmlinux/$(ARCH)
	$(Q)cp $< include/vmlinux/$(ARCH)/vmlinux.h
endif

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.bpf.h include/pipetrace.h $(VMLINUX_DIR)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# only the session layer includes skeletons
$(SESSION_OBJS): $(SKELS)
$(OUT)/%.o: src/%.c src/*/*.h include/pipetrace.h $(OUT)/flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# the tests' workloads: tests/lib on the tools' own (src/workload/workload.c)
TEST_WL_SRCS := tests/lib/workload.c src/workload/workload.c
TEST_WL_HDRS := tests/lib/workload.h src/workload/workload.h src/os/clock.h
$(TEST_DIR)/pipework: tests/host/pipework.c $(TEST_WL_SRCS) $(TEST_WL_HDRS) $(OUT)/flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Itests $(filter %.c,$^) -luring -o $@

# test_resize.sh's hostile descriptor holders and its open counter
tests/host/resizework: tests/host/resizework.c $(OUT)/flags
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@

# 32-bit callers (x86-64: gcc-multilib; cross.mk names another
# architecture's): static, so no 32-bit libraries at run time
CC32       ?= $(CC) -m32
$(TEST_DIR)/pipework32: tests/host/pipework32.c
	$(call msg,CC-32,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC32) -static -O2 -Wall -Wextra -Werror $< -o $@

# unit tests link the shared rooms and a front end's plain-C parts: no
# libbpf, no skeletons, no BTF needed
UNIT_LIBS  := -lm
$(OUT)/test_rows $(OUT)/test_output $(OUT)/test_metrics $(OUT)/test_advise $(OUT)/test_pipeline: $(SHARED_OBJS)
$(OUT)/test_opts: $(OUT)/pipestat/opts.o $(OUT)/pipestat/listen.o $(SHARED_OBJS)
$(OUT)/test_prom $(OUT)/test_opt_table: $(SHARED_OBJS)
$(OUT)/test_conn_guard: $(OUT)/pipestat/conn_guard.o
$(OUT)/test_web_config: $(OUT)/pipestat/web_config.o $(SHARED_OBJS)
$(OUT)/test_web_config: UNIT_LIBS += $(YAML_LIBS) $(GNUTLS_LIBS)
$(OUT)/test_auth_pool: $(OUT)/pipestat/auth_pool.o
$(OUT)/test_auth_pool: UNIT_LIBS += -lcrypt -lpthread
$(OUT)/test_pipetop $(OUT)/test_pipetop_actions: $(PIPETOP_PLAIN_OBJS) $(SHARED_OBJS)
$(OUT)/test_pipeline_view: $(OUT)/pipetop/pipeline_view.o $(PIPETOP_PLAIN_OBJS) $(SHARED_OBJS)
$(OUT)/test_pipeline_view: UNIT_LIBS += $(CURSES_LIBS)
$(OUT)/test_pipetrace_bench: $(filter-out $(OUT)/pipetrace-bench/main.o,$(PIPETRACE_BENCH_OBJS)) $(SHARED_OBJS)
$(OUT)/test_pipetrace_bench: UNIT_LIBS += -luring
$(OUT)/test_csv_layout: $(filter-out $(OUT)/pipetrace-bench/main.o,$(PIPETRACE_BENCH_OBJS)) $(SHARED_OBJS)
$(OUT)/test_csv_layout: UNIT_LIBS += -luring
# test_column: the core, pipetop's model and pipetrace-bench's output
# again, with a throwaway column appended to the metrics table
TESTCOL_OBJS := $(patsubst $(OUT)/%,$(OUT)/testcol/%,$(SHARED_OBJS) $(OUT)/pipetop/model.o \
	$(filter-out $(OUT)/pipetrace-bench/main.o,$(PIPETRACE_BENCH_OBJS)))
$(OUT)/testcol/%.o: src/%.c src/*/*.h include/pipetrace.h $(OUT)/flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -DPT_TEST_COLUMN -c $< -o $@
$(OUT)/test_column: $(TESTCOL_OBJS)
$(OUT)/test_column: override CFLAGS += -DPT_TEST_COLUMN
$(OUT)/test_column: UNIT_LIBS += -luring
$(OUT)/test_%: tests/unit/test_%.c tests/unit/unit.h tests/unit/render_unit.h $(OUT)/flags
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Itests/unit $(filter %.c %.o,$^) $(UNIT_LIBS) -o $@

unit: $(UNIT_TESTS)
	$(Q)set -e; for t in $(UNIT_TESTS); do $$t; done

# docs/METRICS.md from the metrics table's Prometheus series (test_prom
# checks it), docs/CSV.md from the CSV layouts (test_csv_layout)
metrics-doc: $(OUT)/test_prom $(OUT)/test_csv_layout
	$(Q)$(OUT)/test_prom --doc >docs/METRICS.md
	$(Q)$(OUT)/test_csv_layout --doc >docs/CSV.md

# each tests/host/test_*.sh is one front end's known-answer suite
hostcheck: all $(OUT)/ptwork
	$(Q)set -e; for t in tests/host/test_*.sh; do echo "== $$t"; $$t; done

# the unit tests again under AddressSanitizer and UBSan, in their own tree
unit-asan:
	$(Q)$(MAKE) --no-print-directory OUT=$(OUT)/asan \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" unit

# libFuzzer targets (tests/fuzz): each front end's option parser, CSV
# and table output of arbitrary rows, and pipestat's --web-config. Built
# with clang, ASan and UBSan; seeds in tests/fuzz/corpus/<target>, new
# finds under $(OUT)/fuzz.
FUZZ_TARGETS := output opts_pipestat opts_pipetop opts_pipetrace_bench web_config
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	       -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers -Iinclude -Isrc \
	       -DPIPETRACE_VERSION='"$(VERSION)"'
FUZZ_SRC_output := $(wildcard $(SHARED_ROOMS:%=src/%/*.c))
FUZZ_SRC_opts_pipestat := src/pipestat/opts.c src/pipestat/listen.c $(FUZZ_SRC_output)
FUZZ_SRC_opts_pipetop := $(filter-out src/pipetop/main.c src/pipetop/view.c src/pipetop/pipeline_view.c,$(wildcard src/pipetop/*.c)) \
			 $(FUZZ_SRC_output)
FUZZ_SRC_opts_pipetrace_bench := $(filter-out src/pipetrace-bench/main.c,$(wildcard src/pipetrace-bench/*.c)) \
			   $(FUZZ_SRC_output)
FUZZ_LIBS_opts_pipetrace_bench := -luring
FUZZ_SRC_web_config := src/pipestat/web_config.c src/os/trusted_file.c
FUZZ_LIBS_web_config := $(YAML_LIBS) $(GNUTLS_LIBS)
define fuzz_rule
$(OUT)/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/fuzz_argv.h $(FUZZ_SRC_$(1)) src/*/*.h
	$$(call msg,FUZZ-CC,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CLANG) $$(FUZZ_CFLAGS) $$(filter %.c,$$^) $(FUZZ_LIBS_$(1)) -lm -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

.PHONY: fuzz fuzz-short
fuzz: $(patsubst %,$(OUT)/fuzz/fuzz_%,$(FUZZ_TARGETS))
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		echo "== fuzz_$$t, $(FUZZ_SECONDS) s"; \
		mkdir -p $(OUT)/fuzz/$$t.corpus; \
		$(OUT)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-print_final_stats=1 -artifact_prefix=$(OUT)/fuzz/$$t- \
			$(OUT)/fuzz/$$t.corpus tests/fuzz/corpus/$$t \
			>$(OUT)/fuzz/$$t.log 2>&1 || { tail -40 $(OUT)/fuzz/$$t.log; exit 1; }; \
		grep -E '^(stat::number_of_executed_units|Done)' $(OUT)/fuzz/$$t.log; \
	done

# make check's pass: a few seconds per target
fuzz-short:
	$(Q)$(MAKE) --no-print-directory FUZZ_SECONDS=3 fuzz

check: unit unit-asan fuzz-short hostcheck

# make ARCH=arm64 and its .deb, checked (tests/cross/test_arm64.sh); not
# in check or test: it needs make deps ARCH=arm64
cross-check:
	$(Q)tests/cross/test_arm64.sh

# The README's two commands: each installs what it needs first.
demo:
	$(Q)scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./pipestat --demo

test:
	$(Q)scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory check
	$(Q)$(MAKE) --no-print-directory vmtest

# (its arm64 guest runs make ARCH=arm64's build: make deps ARCH=arm64)
vmtest: all
	$(Q)scripts/install-deps.sh arm64
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 all
	$(Q)tests/vm/vmtest.sh

$(OUT)/benchwork: tests/bench/benchwork.c $(OUT)/workload/workload.o
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

# make bench: tests/bench/pipetop_cost.sh keeps 10,000 pipes live with this
$(OUT)/pipetop_pipes: tests/bench/pipetop_pipes.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@

# make bench: the syscall tier's floor (empty programs) and their loader
$(OUT)/floor.bpf.o: tests/bench/floor.bpf.c $(OUT)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# make bench: the steps from the floor up to the syscall tier's work, and
# alternatives (g: page hook, s: sched_switch hook, c: the same reading
# the clock, t: task storage, p: per-CPU counters)
LADDER := $(patsubst %,$(OUT)/ladder%.bpf.o,1 2 3 4 1g 1s 1c 4c 3t 4p)
$(OUT)/ladder%.bpf.o: tests/bench/ladder.bpf.c tests/bench/ladder_count.bpf.h bpf/kernel_obj.bpf.h \
		     $(VMLINUX_DIR)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Ibpf -DSTEP=$(firstword $(subst g, ,$(subst s, ,$(subst c, ,$(subst t, ,$(subst p, ,$*)))))) \
		$(if $(findstring g,$*),-DPAGE_HOOK) $(if $(findstring s,$*),-DSWITCH_HOOK) \
		$(if $(findstring c,$*),-DSWITCH_CLOCK) \
		$(if $(findstring t,$*),-DTASK_STORAGE) \
		$(if $(findstring p,$*),-DPERCPU) -c $< -o $@

# make vmbench: the same for the function tier (h: state in a hash map,
# x: fexit only, k: kprobes, r: anon_pipe_buf_release; tests/bench/fladder.bpf.c)
FLADDER := $(patsubst %,$(OUT)/fladder%.bpf.o,1 2 3 4 5 4h 2x 2k 3r)
$(OUT)/fladder%.bpf.o: tests/bench/fladder.bpf.c tests/bench/ladder_count.bpf.h \
		      $(VMLINUX_DIR)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DSTEP=$(firstword $(subst h, ,$(subst x, ,$(subst k, ,$(subst r, ,$*))))) \
		$(if $(findstring h,$*),-DHASH_STATE) $(if $(findstring x,$*),-DFEXIT_ONLY) \
		$(if $(findstring k,$*),-DKPROBES) $(if $(findstring r,$*),-DRELEASE_HOOK) -c $< -o $@

$(OUT)/bpfattach: tests/bench/bpfattach.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

# make vmbench: the tracepoint tier's floor (step 0: empty programs on its
# events) and the steps up to its work (c: waits timed by the clock alone,
# o: pipe_copy alone; tests/bench/tpladder.bpf.c)
TPLADDER := $(patsubst %,$(OUT)/tpladder%.bpf.o,0 1 2 3 4 5 4c 5o)
$(OUT)/tpladder%.bpf.o: tests/bench/tpladder.bpf.c bpf/*.bpf.h include/pipetrace.h \
			$(VMLINUX_DIR)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Ibpf -DSTEP=$(subst c,,$(subst o,,$*)) \
		$(if $(findstring c,$*),-DCLOCK_ONLY) $(if $(findstring o,$*),-DCOPY_ONLY) -c $< -o $@

# the VM tests' workloads (static: the guest runs it from the host root)
$(OUT)/ptwork: tests/vm/ptwork.c $(TEST_WL_SRCS) $(TEST_WL_HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -static -O2 -Wall -Wextra -Werror -Isrc -Itests $(filter %.c,$^) \
		-luring -lpthread -o $@

# each benchmark's output goes into its section of docs/BENCH.md (record.sh),
# the one place the figures live
bench: all $(OUT)/benchwork $(OUT)/floor.bpf.o $(LADDER) $(OUT)/bpfattach
	$(Q)scripts/install-deps.sh
	$(Q)tests/bench/record.sh host tests/bench/bench.sh
	$(Q)tests/bench/record.sh pipetop tests/bench/pipetop_cost.sh
	$(Q)tests/bench/record.sh programs tests/bench/prog_cost.sh
	$(Q)$(MAKE) --no-print-directory vmbench

# the test kernels under qemu -icount: instructions per op with pipestat
# attached and not, per tier (tests/bench/vm_bench.sh)
vmbench: all $(OUT)/ptwork $(OUT)/floor.bpf.o $(LADDER) $(FLADDER) $(TPLADDER) \
	 $(OUT)/bpfattach
	$(Q)tests/bench/record.sh vm tests/bench/vm_bench.sh

# make install [PREFIX=/usr/local] [DESTDIR=]: the tools, their man pages,
# bash completion, the exporter's unit and its web drop-in (an example);
# make uninstall removes exactly those files.
PREFIX     ?= /usr/local
SBINDIR    := $(PREFIX)/sbin
BINDIR     := $(PREFIX)/bin
MANDIR     := $(PREFIX)/share/man
COMPDIR    := $(PREFIX)/share/bash-completion/completions
UNITDIR    := $(PREFIX)/lib/systemd/system
EXAMPLEDIR := $(PREFIX)/share/doc/pipetrace/examples
INSTALLED  := $(SBINDIR)/pipestat $(SBINDIR)/pipetop $(BINDIR)/pipetrace-bench \
	      $(MANDIR)/man8/pipestat.8 $(MANDIR)/man8/pipetop.8 \
	      $(MANDIR)/man1/pipetrace-bench.1 $(patsubst %,$(COMPDIR)/%,$(TOOLS)) \
	      $(UNITDIR)/pipestat.service $(EXAMPLEDIR)/pipestat-web.conf
# install_unit FILE DIR: a systemd file, with the installed pipestat's path
install_unit = sed 's|/usr/sbin/pipestat|$(SBINDIR)/pipestat|' packaging/$(1) \
	>$(DESTDIR)$(2)/$(1) && chmod 644 $(DESTDIR)$(2)/$(1)

install: $(TOOL_BINS) $(MAN_PAGES) $(COMPLETION)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(EXAMPLEDIR)
	$(Q)install -m 755 $(BIN)pipestat $(BIN)pipetop $(DESTDIR)$(SBINDIR)
	$(Q)install -m 755 $(BIN)pipetrace-bench $(DESTDIR)$(BINDIR)
	$(Q)install -m 644 man/pipestat.8 man/pipetop.8 $(DESTDIR)$(MANDIR)/man8
	$(Q)install -m 644 man/pipetrace-bench.1 $(DESTDIR)$(MANDIR)/man1
	$(Q)for t in $(TOOLS); do \
		install -m 644 scripts/pipetrace.bash-completion $(DESTDIR)$(COMPDIR)/$$t; done
	$(Q)$(call install_unit,pipestat.service,$(UNITDIR))
	$(Q)$(call install_unit,pipestat-web.conf,$(EXAMPLEDIR))

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# make deb: a binary package of a staged install under /usr, as Debian's
# policy wants it (lintian: no errors, no hardening-* tag): binaries of
# the hardened build (CFLAGS above) stripped, man pages and
# changelog gzipped, the machine-readable copyright; Depends from the
# shared libraries the tools link (dpkg-shlibdeps)
DEB_ARCH   ?= $(shell dpkg --print-architecture)
STRIP      ?= strip
DEB         = $(OUT)/pipetrace_$(VERSION)_$(DEB_ARCH).deb
MAINTAINER ?= pipetrace developers <pipetrace@pipetrace.invalid>
DEB_DOC     = $(OUT)/deb/root/usr/share/doc/pipetrace
deb: $(TOOL_BINS)
	$(call msg,DEB,$(DEB))
	$(Q)test "$$(dpkg-parsechangelog -l packaging/changelog -S Version)" = $(VERSION) || \
		{ echo "packaging/changelog: no entry for $(VERSION)" >&2; exit 1; }
	$(Q)rm -rf $(OUT)/deb && mkdir -p $(OUT)/deb/debian $(OUT)/deb/root/DEBIAN
	$(Q)$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/$(OUT)/deb/root
	$(Q)$(STRIP) --remove-section=.comment --remove-section=.note --strip-unneeded \
		$(OUT)/deb/root/usr/sbin/* $(OUT)/deb/root/usr/bin/*
	$(Q)gzip -9n $(OUT)/deb/root/usr/share/man/man*/*
	$(Q)install -d $(DEB_DOC)
	$(Q)install -m 644 packaging/copyright $(DEB_DOC)/copyright
	$(Q)install -d $(DEB_DOC)/examples
	$(Q)install -m 644 packaging/pipetrace-alerts.yml packaging/pipetrace-alerts.test.yml \
		$(DEB_DOC)/examples
	$(Q)gzip -9nc packaging/changelog >$(DEB_DOC)/changelog.gz
	$(Q)cd $(OUT)/deb/root && find usr -type f -exec md5sum {} + | sort -k2 >DEBIAN/md5sums
	$(Q)printf 'Source: pipetrace\n\nPackage: pipetrace\nArchitecture: any\n' \
		>$(OUT)/deb/debian/control
	$(Q)cd $(OUT)/deb && $(DEB_HOST) dpkg-shlibdeps $(SHLIBDEPS_FLAGS) -O root/usr/sbin/* root/usr/bin/* 2>/dev/null | \
		sed -n 's/^shlibs:Depends=/Depends: /p' >depends && test -s depends
	$(Q){ printf 'Package: pipetrace\nVersion: $(VERSION)\nArchitecture: $(DEB_ARCH)\n'; \
	   printf 'Maintainer: $(MAINTAINER)\n'; \
	   printf 'Section: admin\nPriority: optional\n'; \
	   cat $(OUT)/deb/depends; \
	   printf 'Description: BPF tools for Linux pipe paths\n'; \
	   printf ' pipestat (reports, JSON, Prometheus), pipetop (live view) and\n'; \
	   printf ' pipetrace-bench (reference workloads with the pipe metrics).\n'; \
	} >$(OUT)/deb/root/DEBIAN/control
	$(Q)dpkg-deb --root-owner-group -Zxz --build $(OUT)/deb/root $(DEB) >/dev/null

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUT) $(TOOL_BINS) $(TEST_PROGS)

.DELETE_ON_ERROR:
.SECONDARY:
