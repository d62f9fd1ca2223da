# pipetrace: BPF programs (clang -target bpf) + skeletons (bpftool) + tools.
# V=1 shows the commands.

OUT        := build
CLANG      ?= clang
BPFTOOL    ?= bpftool
CC         ?= cc
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
ARCH       := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
VERSION    := 0.1.0

CFLAGS     ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Iinclude -I$(OUT) -Isrc \
	      -DPIPETRACE_VERSION='"$(VERSION)"'
LDLIBS     ?= -lbpf -lelf -lz
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Iinclude -I$(OUT) \
	      -Wall -Werror

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Each tier adds itself in mk/tier_<name>.mk (BPF_OBJS, and TIER_OBJS: its
# loader glue, linked into every tool); each front end in mk/tool_<name>.mk
# (TOOLS and its link rule).
.DEFAULT_GOAL := all
TOOLS      :=
BPF_OBJS   :=
TIER_OBJS  :=
include $(sort $(wildcard mk/tier_*.mk))
SKELS      := $(patsubst %,$(OUT)/%.skel.h,$(BPF_OBJS))

# user-space objects shared by every front end
COMMON     := loader btf_probe metrics rows out_table out_csv fmt privs workload cli
COMMON_OBJS := $(patsubst %,$(OUT)/%.o,$(COMMON) $(TIER_OBJS))
include $(sort $(wildcard mk/tool_*.mk))

TEST_PROGS := tests/host/pipework
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/%,$(wildcard tests/unit/test_*.c))

.PHONY: all clean check unit unit-asan hostcheck bench vmtest deps demo test
all: $(TOOLS) $(TEST_PROGS)

deps:
	$(Q)scripts/install-deps.sh

$(OUT):
	$(Q)mkdir -p $@

$(OUT)/vmlinux.h: $(VMLINUX_BTF) | $(OUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $< format c > $@

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.bpf.h include/pipetrace.h $(OUT)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUT)/%.o: src/%.c src/*.h include/pipetrace.h $(SKELS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

tests/host/pipework: tests/host/pipework.c $(OUT)/workload.o
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

$(OUT)/test_%: tests/unit/test_%.c tests/unit/unit.h $(OUT)/pipestat_opts.o $(COMMON_OBJS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(OUT)/pipestat_opts.o $(COMMON_OBJS) $(LDLIBS) -o $@

unit: $(UNIT_TESTS)
	$(Q)set -e; for t in $(UNIT_TESTS); do $$t; done

# each tests/host/test_*.sh is one front end's known-answer suite
hostcheck: all
	$(Q)set -e; for t in tests/host/test_*.sh; do echo "== $$t"; $$t; done

# the unit tests again under AddressSanitizer and UBSan, in their own tree
unit-asan:
	$(Q)$(MAKE) --no-print-directory OUT=$(OUT)/asan \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" unit

check: unit unit-asan hostcheck

# The README's two commands: each installs what it needs first.
demo:
	$(Q)scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./pipestat --demo

test:
	$(Q)scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory check
	$(Q)$(MAKE) --no-print-directory vmtest

vmtest: all
	$(Q)tests/vm/vmtest.sh

$(OUT)/benchwork: tests/bench/benchwork.c $(OUT)/workload.o
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

bench: all $(OUT)/benchwork
	$(Q)tests/bench/bench.sh
	$(Q)tests/bench/pipetop_cost.sh
	$(Q)tests/bench/prog_cost.sh

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUT) $(TOOLS) $(TEST_PROGS)

.DELETE_ON_ERROR:
.SECONDARY:
