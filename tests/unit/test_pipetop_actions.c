// SPDX-License-Identifier: GPL-2.0
/* pipetop's keys and their actions on a prepared state, no terminal: what
 * each key changes and what it asks of the run loop. */
#define _GNU_SOURCE
#include <curses.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "pipetop/keys.h"
#include "unit.h"

#define REDRAW		TA_REDRAW
#define REBUILD		(TA_REBUILD | TA_REDRAW)

/* A view of three pipes, per pipe, sorted by B/s, the top row selected. */
struct screen {
	struct pt_rows raw;
	struct tm_model m;
	struct tv_state st;
	struct ta_state a;
};

static void add(struct pt_rows *r, __u32 tgid, const char *comm, __u32 dev,
		__u64 ino, const struct pt_counts *c)
{
	struct pt_key k = { .tgid = tgid, .dev = dev, .ino = ino };

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	CHECK(rows_add(r, &k, c) == 0);
}

/* The rows built into the table, as the run loop does after TA_REBUILD. */
static void rebuild(struct screen *s)
{
	CHECK(tm_build(&s->m, &s->raw, s->st.mode, s->st.filter) == 0);
	tm_sort(&s->m, s->st.sort, &s->st.env, 1);
}

/* Pipes 7, 8, 9 written by gzip, tar, sort (7 the busiest), read by cat. */
static void start(struct screen *s)
{
	static const char *const writer[] = { "gzip", "tar", "sort" };

	memset(s, 0, sizeof(*s));
	rows_init(&s->raw, PT_BY_PIPE_PID);
	for (int i = 0; i < 3; i++) {
		struct pt_counts w = { .writes = 30 - 10 * i,
				       .write_bytes = (30 - 10 * i) * 4096 };

		add(&s->raw, 20 + i, writer[i], 15, 7 + i, &w);
		add(&s->raw, 30, "cat", 15, 7 + i, &(struct pt_counts){ .reads = 1 });
	}
	tm_init(&s->m);
	s->st.mode = TM_PER_PIPE;
	s->st.sort = TM_MBPS;
	s->st.interval = 1;
	s->st.env = (struct pt_env){ .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
				     .knob_prealloc_keep = -1, .knob_read_batch = -1 };
	s->a = (struct ta_state){ .st = &s->st, .m = &s->m, .height = 6 };
	rebuild(s);
	CHECK(s->m.n == 3 && s->m.items[0].key.ino == 7);
}

static void stop(struct screen *s)
{
	tm_free(&s->m);
	rows_free(&s->raw);
}

/* Keys in: the flags of all of them, or'ed, as the run loop gathers them. */
static int press(struct screen *s, const char *keys)
{
	int what = 0;

	for (; *keys; keys++)
		what |= tk_press(&s->a, *keys);
	return what;
}

/* Every action has a key, no key two actions. */
static void bindings(void)
{
	static const ta_action every[] = {
		ta_quit, ta_sort_next, ta_sort_prev, ta_up, ta_down,
		ta_half_page_up, ta_half_page_down, ta_first, ta_last, ta_detail,
		ta_advice, ta_pipeline, ta_resize, ta_mode, ta_filter, ta_pause, ta_longer,
		ta_shorter, ta_help,
	};
	const int nevery = sizeof(every) / sizeof(every[0]);
	int bound[sizeof(every) / sizeof(every[0])] = { 0 };

	for (int i = 0; i < tk_nkeys; i++)
		for (int b = 0; b < TK_MAX_BINDS && tk_keys[i].binds[b].code; b++) {
			ta_action act = tk_keys[i].binds[b].action;
			int k = 0;

			while (k < nevery && every[k] != act)
				k++;
			CHECK(k < nevery);	/* an action this test knows */
			if (k < nevery)
				bound[k]++;
			CHECK(tk_action_of(tk_keys[i].binds[b].code) == act);
		}
	for (int k = 0; k < nevery; k++)
		CHECK(bound[k] > 0);
	CHECK(tk_action_of('x') == NULL);
}

static void quit(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, "q") == TA_QUIT);
	CHECK(press(&s, "Q") == TA_QUIT);
	/* an unbound key: nothing to do */
	CHECK(press(&s, "x") == 0);
	CHECK(tk_press(&s.a, KEY_RESIZE) == REDRAW);
	stop(&s);
}

static void sorting(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, "s") == REBUILD && s.st.sort == TM_WAITR);
	CHECK(tk_press(&s.a, KEY_RIGHT) == REBUILD && s.st.sort == TM_WAITW);
	CHECK(tk_press(&s.a, KEY_LEFT) == REBUILD && s.st.sort == TM_WAITR);
	/* round the columns both ways */
	s.st.sort = TM_RPS;
	CHECK(tk_press(&s.a, KEY_LEFT) == REBUILD && s.st.sort == TM_LOCK);
	CHECK(press(&s, "s") == REBUILD && s.st.sort == TM_RPS);
	/* only the columns on screen: the first four at a narrow width */
	s.st.shown = 4;
	s.st.sort = TM_WAITR;
	CHECK(press(&s, "s") == REBUILD && s.st.sort == TM_RPS);
	CHECK(tk_press(&s.a, KEY_LEFT) == REBUILD && s.st.sort == TM_WAITR);
	s.st.sort = TM_LOCK;	/* off screen since a resize: back on it */
	CHECK(press(&s, "s") == REBUILD && s.st.sort == TM_RPS);
	s.st.sort = TM_LOCK;
	CHECK(tk_press(&s.a, KEY_LEFT) == REBUILD && s.st.sort == TM_WAITR);
	stop(&s);
}

/* The selection moves and stays on the table (three rows, six lines). */
static void selection(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, "j") == REDRAW && s.st.sel == 1);
	CHECK(tk_press(&s.a, KEY_DOWN) == REDRAW && s.st.sel == 2);
	CHECK(press(&s, "j") == REDRAW && s.st.sel == 2);
	CHECK(press(&s, "k") == REDRAW && s.st.sel == 1);
	CHECK(tk_press(&s.a, KEY_UP) == REDRAW && s.st.sel == 0);
	CHECK(press(&s, "k") == REDRAW && s.st.sel == 0);
	/* half a screen: 3 lines */
	CHECK(tk_press(&s.a, KEY_NPAGE) == REDRAW && s.st.sel == 2);
	CHECK(tk_press(&s.a, KEY_PPAGE) == REDRAW && s.st.sel == 0);
	s.a.height = 2;
	CHECK(tk_press(&s.a, KEY_NPAGE) == REDRAW && s.st.sel == 1);
	CHECK(tk_press(&s.a, KEY_END) == REDRAW && s.st.sel == 2);
	CHECK(tk_press(&s.a, KEY_HOME) == REDRAW && s.st.sel == 0);
	/* an empty table (nothing matches the filter): row 0 */
	snprintf(s.st.filter, sizeof(s.st.filter), "zz");
	rebuild(&s);
	CHECK(s.m.n == 0);
	CHECK(tk_press(&s.a, KEY_END) == REDRAW && s.st.sel == 0);
	CHECK(press(&s, "j") == REDRAW && s.st.sel == 0);
	stop(&s);
}

/* p: per process and back, the selection to the top. */
static void per_process(void)
{
	struct screen s;

	start(&s);
	s.st.sel = 2;
	CHECK(press(&s, "p") == REBUILD && s.st.mode == TM_PER_PROC && s.st.sel == 0);
	rebuild(&s);
	CHECK(s.m.mode == TM_PER_PROC && s.m.n == 4);	/* gzip, tar, sort, cat */
	CHECK(press(&s, "p") == REBUILD && s.st.mode == TM_PER_PIPE);
	stop(&s);
}

/* Enter and a: one pane at a time. */
static void panes(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, "\n") == REDRAW && s.st.detail && !s.st.advice);
	CHECK(press(&s, "a") == REDRAW && s.st.advice && !s.st.detail);
	CHECK(tk_press(&s.a, KEY_ENTER) == REDRAW && s.st.detail && !s.st.advice);
	CHECK(press(&s, "\r") == REDRAW && !s.st.detail && !s.st.advice);
	CHECK(press(&s, "aa") == REDRAW && !s.st.advice);
	/* g: the pipeline is drawn from rebuilt rows; g again, the table */
	CHECK(press(&s, "g") == REBUILD && s.st.pipeline);
	CHECK(press(&s, "g") == REBUILD && !s.st.pipeline);
	stop(&s);
}

/* f: the keys go to the prompt (q is a letter there) until Enter or Esc. */
static void filtering(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, "f") == REDRAW && s.st.prompt.kind == TP_FILTER);
	CHECK(press(&s, "tq") == REDRAW && s.st.prompt.kind == TP_FILTER);
	CHECK_STR(s.st.filter, "");
	CHECK(press(&s, "\n") == REBUILD && s.st.prompt.kind == TP_NONE);
	CHECK_STR(s.st.filter, "tq");
	/* the prompt opens on the filter in use; Esc leaves it */
	CHECK(press(&s, "f") == REDRAW);
	CHECK_STR(s.st.prompt.edit, "tq");
	CHECK(press(&s, "\b\bta\x1b") == REDRAW && s.st.prompt.kind == TP_NONE);
	CHECK_STR(s.st.filter, "tq");
	CHECK(press(&s, "f\b\bta\n") == REBUILD);
	CHECK_STR(s.st.filter, "ta");
	rebuild(&s);
	CHECK(s.m.n == 1 && s.m.items[0].key.ino == 8);	/* tar's */
	stop(&s);
}

static void pause_and_interval(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, " ") == REDRAW && s.st.paused);
	CHECK(press(&s, " ") == REDRAW && !s.st.paused);
	CHECK(press(&s, "+") == REDRAW && s.st.interval == 2);
	CHECK(press(&s, "=") == REDRAW && s.st.interval == 3);
	CHECK(press(&s, "-") == REDRAW && s.st.interval == 2);
	CHECK(press(&s, "__") == REDRAW && s.st.interval == 0.5);
	stop(&s);
}

/* h or ?: any key closes the help and does nothing else; q and Q quit. */
static void help_overlay(void)
{
	struct screen s;

	start(&s);
	CHECK(press(&s, "h") == REDRAW && s.st.help);
	CHECK(press(&s, "s") == REDRAW && !s.st.help && s.st.sort == TM_MBPS);
	CHECK(press(&s, "?") == REDRAW && s.st.help);
	CHECK(press(&s, "x") == REDRAW && !s.st.help);
	CHECK(press(&s, "?") == REDRAW && s.st.help);
	CHECK(press(&s, "Q") == TA_QUIT);
	CHECK(press(&s, "h") == REDRAW && s.st.help);
	CHECK(press(&s, "q") == TA_QUIT);
	stop(&s);
}

/* R: a pipe row selected, else why not; y resizes, the outcome shown
 * until the next key. */
static void resize(void)
{
	struct screen s;
	struct stat pst;
	char want[256];
	int p[2], hold[2], status;
	pid_t kid;

	start(&s);
	s.st.sel = 1;
	CHECK(press(&s, "R") == REDRAW && s.st.prompt.kind == TP_SIZE);
	CHECK(s.st.prompt.pipe.dev == 15 && s.st.prompt.pipe.ino == 8);
	CHECK_STR(s.st.prompt.edit, "");	/* no advice, no ring seen */
	CHECK(press(&s, "\x1b") == REDRAW && s.st.prompt.kind == TP_NONE);
	s.st.mode = TM_PER_PROC;
	rebuild(&s);
	CHECK(press(&s, "R") == REDRAW && s.st.prompt.kind == TP_NONE);
	CHECK_STR(s.st.msg, "resize: select a pipe first (p shows pipes)");
	/* the message goes at the next key, even one that does nothing */
	CHECK(press(&s, "x") == REDRAW);
	CHECK_STR(s.st.msg, "");
	s.st.mode = TM_PER_PIPE;
	snprintf(s.st.filter, sizeof(s.st.filter), "zz");	/* nothing matches */
	rebuild(&s);
	CHECK(press(&s, "R") == REDRAW);
	CHECK_STR(s.st.msg, "resize: select a pipe first");

	/* a pipe a child holds (pipetop takes it from a holder not itself),
	 * resized through the prompt */
	CHECK(pipe(p) == 0 && pipe(hold) == 0 && fstat(p[0], &pst) == 0);
	kid = fork();
	if (kid == 0) {
		close(hold[1]);
		_exit(read(hold[0], &status, 1) == 0 ? 0 : 1);	/* until hold[1] closes */
	}
	close(hold[0]);
	s.st.filter[0] = '\0';
	add(&s.raw, kid, "holder", major(pst.st_dev) << 20 | minor(pst.st_dev),
	    pst.st_ino, &(struct pt_counts){ .writes = 1000, .write_bytes = 1 << 30 });
	rebuild(&s);
	CHECK(s.m.n == 4 && s.m.items[0].key.ino == pst.st_ino);
	s.st.sel = 0;
	CHECK(press(&s, "R") == REDRAW && s.st.prompt.kind == TP_SIZE);
	/* whatever is offered, backspaced away */
	CHECK(press(&s, "\b\b\b\b\b\b\b\b\b\b\b\b128k\n") == REDRAW &&
	      s.st.prompt.kind == TP_CONFIRM && s.st.prompt.size == 128 << 10);
	CHECK(press(&s, "y") == REDRAW && s.st.prompt.kind == TP_NONE);
	snprintf(want, sizeof(want), "resized pipe 0:%u:%llu (pid %d fd %d, pidfd_getfd): "
		 "65536 -> 131072 bytes (16 -> 32 slots), confirmed by F_GETPIPE_SZ",
		 minor(pst.st_dev), (unsigned long long)pst.st_ino, kid, p[0]);
	CHECK_STR(s.st.msg, want);
	CHECK(fcntl(p[1], F_GETPIPE_SZ) == 131072);
	close(hold[1]);
	CHECK(waitpid(kid, &status, 0) == kid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	close(p[0]);
	close(p[1]);
	stop(&s);
}

int main(void)
{
	bindings();
	quit();
	sorting();
	selection();
	per_process();
	panes();
	filtering();
	pause_and_interval();
	help_overlay();
	resize();
	return unit_summary("test_pipetop_actions");
}
