# pipetop: the live ncurses view (src/pipetop*.c)
TOOLS += pipetop
PIPETOP_OBJS := $(OUT)/pipetop.o $(OUT)/pipetop_view.o $(OUT)/pipetop_model.o \
		$(OUT)/pipetop_opts.o
CURSES_LIBS ?= $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

pipetop: $(PIPETOP_OBJS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(CURSES_LIBS) $(LDLIBS) -lm -o $@

# its unit tests need its own objects, not pipestat's
$(OUT)/test_pipetop: tests/unit/test_pipetop.c tests/unit/unit.h \
		     $(OUT)/pipetop_model.o $(OUT)/pipetop_opts.o $(COMMON_OBJS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(OUT)/pipetop_model.o \
		$(OUT)/pipetop_opts.o $(COMMON_OBJS) $(LDLIBS) -lm -o $@

# make bench: tests/bench/pipetop_cost.sh keeps 10,000 pipes live with this
$(OUT)/pipetop_pipes: tests/bench/pipetop_pipes.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@
