# pipebench: reference workloads, metrics beside throughput, A/B over knobs
TOOLS += pipebench
PIPEBENCH_OBJS := $(patsubst %,$(OUT)/%.o,pipebench_opts pipebench_knob pipebench_out pipebench_uring)

pipebench: $(OUT)/pipebench.o $(PIPEBENCH_OBJS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -luring -lm -o $@

# its unit tests need its objects, not pipestat's options
$(OUT)/test_pipebench: tests/unit/test_pipebench.c tests/unit/unit.h $(PIPEBENCH_OBJS) $(COMMON_OBJS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(PIPEBENCH_OBJS) $(COMMON_OBJS) $(LDLIBS) -luring -lm -o $@
