# pipestat: one-shot and interval reports (src/pipestat*.c)
TOOLS += pipestat

pipestat: $(OUT)/pipestat.o $(OUT)/pipestat_opts.o $(OUT)/demo.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@
