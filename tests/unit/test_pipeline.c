// SPDX-License-Identifier: GPL-2.0
/* The pipeline's graph (src/pipeline/pipeline.h) from ends of known counts. */
#include <unistd.h>
#include "os/sched_stat.h"
#include "output/ends.h"
#include "pipeline/pipe_seen.h"
#include "pipeline/pipeline.h"
#include "unit.h"

#define SEC 1000000000ULL

static const struct pt_env env = { .tier = PT_TIER_SYSCALL, .interval_s = 2.0 };

/* process pid (comm) on pipe ino: bytes written or read, seconds waited */
static void end(struct pt_rows *r, __u32 pid, const char *comm, __u64 ino,
		__u64 wbytes, __u64 rbytes, double wait_w, double wait_r)
{
	struct pt_key k = { .tgid = pid, .dev = 15, .ino = ino };
	struct pt_counts c = {
		.writes = wbytes ? wbytes / 4096 + 1 : 0, .write_bytes = wbytes,
		.reads = rbytes ? rbytes / 4096 + 1 : 0, .read_bytes = rbytes,
		.wait_write_ns = wait_w * SEC, .wait_read_ns = wait_r * SEC,
	};

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	CHECK(!rows_add(r, &k, &c));
}

static long node(const struct pl_graph *g, __u32 pid)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].pid == pid)
			return i;
	return -1;
}

/* head | gzip | wc: the busy middle is the bottleneck */
static void t_chain(void)
{
	struct pt_rows r;
	struct pl_graph g;
	char fig[96];

	rows_init(&r, PT_BY_PIPE_PID);
	pl_init(&g);
	/* added out of order: the graph is sorted all the same */
	end(&r, 30, "wc", 2, 0, 1000, 0, 1.9);
	end(&r, 10, "head", 1, 209715200, 0, 1.8, 0);
	end(&r, 20, "gzip", 1, 0, 209715200, 0, 0.1);
	end(&r, 20, "gzip", 2, 1000, 0, 0, 0);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(g.nnodes == 3 && g.nedges == 2);
	CHECK(g.nodes[0].pid == 10 && g.nodes[1].pid == 20 && g.nodes[2].pid == 30);
	CHECK(g.nodes[0].state == PL_WAITS_WRITE);
	CHECK(g.nodes[1].state == PL_BUSY && g.nodes[1].bottleneck);
	CHECK(g.nodes[2].state == PL_WAITS_READ && !g.nodes[2].bottleneck);
	CHECK(g.bottleneck == 1);
	CHECK(g.nodes[0].share.wait_write > 0.89 && g.nodes[0].share.wait_write < 0.91);
	CHECK(g.nodes[0].stage == 0 && g.nodes[1].stage == 1 && g.nodes[2].stage == 2);
	CHECK(g.edges[0].from == 0 && g.edges[0].to == 1 && g.edges[0].bytes == 209715200);
	CHECK(g.edges[0].known && !g.edges[0].by_reader && g.edges[0].ino == 1);
	CHECK(g.edges[1].from == 1 && g.edges[1].to == 2 && g.edges[1].bytes == 1000);
	CHECK(g.max_bytes == 209715200);
	pl_edge_figures(fig, sizeof(fig), &g, &g.edges[0]);
	CHECK_STR(fig, "100MiB/s 25.6k writes/s");
	pl_free(&g);
	rows_free(&r);
}

/* two writers into one reader; one writer into two readers; two and two */
static void t_fans(void)
{
	struct pt_rows r;
	struct pl_graph g;
	char fig[96];

	rows_init(&r, PT_BY_PIPE_PID);
	pl_init(&g);
	end(&r, 1, "a", 7, 1000, 0, 0, 0);	/* fan-in on 7: each its own */
	end(&r, 2, "b", 7, 3000, 0, 0, 0);
	end(&r, 3, "c", 7, 0, 4000, 0, 0);
	end(&r, 4, "d", 8, 500, 0, 0, 0);	/* fan-out on 8: each reader's */
	end(&r, 5, "e", 8, 0, 200, 0, 0);
	end(&r, 6, "f", 8, 0, 300, 0, 0);
	end(&r, 11, "w1", 9, 10, 0, 0, 0);	/* 2 x 2 on 9: not known */
	end(&r, 12, "w2", 9, 10, 0, 0, 0);
	end(&r, 13, "r1", 9, 0, 10, 0, 0);
	end(&r, 14, "r2", 9, 0, 10, 0, 0);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(g.nnodes == 10 && g.nedges == 2 + 2 + 4);
	CHECK(g.edges[0].from == (size_t)node(&g, 1) && g.edges[0].to == (size_t)node(&g, 3));
	CHECK(g.edges[0].bytes == 1000 && g.edges[1].bytes == 3000);
	CHECK(g.edges[2].to == (size_t)node(&g, 5) && g.edges[2].bytes == 200 &&
	      g.edges[2].by_reader);
	CHECK(g.edges[3].bytes == 300 && g.edges[3].by_reader);
	for (size_t i = 4; i < g.nedges; i++)
		CHECK(!g.edges[i].known && !g.edges[i].bytes);
	pl_edge_figures(fig, sizeof(fig), &g, &g.edges[4]);
	CHECK_STR(fig, "?");
	/* nobody waited on anything: all busy, the first the bottleneck */
	CHECK(g.nodes[0].state == PL_BUSY && g.bottleneck == 0);
	pl_free(&g);
	rows_free(&r);
}

/* no waits timed: unknown, no bottleneck; an end seen before, idle now */
static void t_unknown_idle(void)
{
	struct pt_env nowaits = env;
	struct pipe_seen seen;
	struct pt_rows r, before;
	struct pl_graph g;

	nowaits.lacks = PT_NA_NO_WAITS;
	nowaits.tier = PT_TIER_TRACEPOINT;
	rows_init(&r, PT_BY_PIPE_PID);
	rows_init(&before, PT_BY_PIPE_PID);
	seen_init(&seen);
	pl_init(&g);
	end(&before, 1, "w", 3, 100, 0, 0, 0);
	end(&before, 2, "r", 3, 0, 100, 0, 0);
	CHECK(!seen_learn(&seen, &before));
	CHECK(seen.n == 2 && seen.v[0].writer && !seen.v[0].reader && seen.v[1].reader);
	end(&r, 2, "r", 3, 0, 100, 0, 0);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &nowaits, &seen));
	CHECK(g.nnodes == 2 && g.nedges == 1);
	CHECK(g.nodes[0].state == PL_IDLE && g.nodes[1].state == PL_UNKNOWN);
	CHECK(g.bottleneck == -1 && !g.edges[0].bytes && g.edges[0].known);
	/* pids 1 and 2 are no processes here holding pipe 0:15:3: forgotten */
	seen_prune(&seen, &r);
	CHECK(seen.n == 1 && seen.v[0].key.tgid == 2);
	pl_free(&g);
	seen_free(&seen);
	rows_free(&r);
	rows_free(&before);
}

/* a jobserver's pipe: every process writes and reads it; not drawn */
static void t_many_pairs(void)
{
	struct pt_rows r;
	struct pl_graph g;

	rows_init(&r, PT_BY_PIPE_PID);
	pl_init(&g);
	for (__u32 pid = 100; pid < 109; pid++)
		end(&r, pid, "make", 5, 1, 1, 0, 0);
	end(&r, 200, "a", 6, 10, 0, 0, 0);
	end(&r, 201, "b", 6, 0, 10, 0, 0);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(g.nnodes == 11 && g.nedges == 1 && g.pipes_left_out == 1);
	CHECK(g.edges[0].from == 9 && g.edges[0].to == 10);
	pl_free(&g);
	rows_free(&r);
}

/* The verdict from fixed shares: pipe waits first, then busy vs starved */
static void t_verdict(void)
{
	struct pl_shares s = { .wait_write = 0.6, .wait_read = 0.1 };

	CHECK(pl_verdict(&s) == PL_WAITS_WRITE);
	s = (struct pl_shares){ .wait_read = 0.7 };
	CHECK(pl_verdict(&s) == PL_WAITS_READ);
	/* neither: busy when not known ... */
	s = (struct pl_shares){ .wait_read = 0.1, .wait_write = 0.1 };
	CHECK(pl_verdict(&s) == PL_BUSY);
	/* ... on a CPU more than waiting for one, or the reverse */
	s.sched = true;
	s.cpu = 0.6;
	s.runq = 0.2;
	CHECK(pl_verdict(&s) == PL_BUSY);
	s.cpu = 0.3;
	s.runq = 0.5;
	CHECK(pl_verdict(&s) == PL_STARVED);
	/* asleep elsewhere, its few runnable moments no starvation */
	s.cpu = 0.001;
	s.runq = 0.01;
	CHECK(pl_verdict(&s) == PL_BUSY);
	/* a long pipe wait wins over a starved rest */
	s = (struct pl_shares){ .wait_write = 0.55, .cpu = 0.1, .runq = 0.3, .sched = true };
	CHECK(pl_verdict(&s) == PL_WAITS_WRITE);
}

/* yes | sha256sum on one CPU with a hog: the reader starved, the
 * bottleneck; its figures once per process, not per end */
static void t_starved(void)
{
	struct pt_rows r;
	struct pl_graph g;

	rows_init(&r, PT_BY_PIPE_PID);
	pl_init(&g);
	end(&r, 10, "yes", 1, 1 << 30, 0, 1.6, 0);
	end(&r, 20, "sha256sum", 1, 0, 1 << 30, 0, 0.1);
	end(&r, 20, "sha256sum", 2, 64, 0, 0, 0);
	ends_sort(&r);
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].key.tgid == 20)
			r.v[i].c = (struct pt_counts){ .reads = r.v[i].c.reads,
				.read_bytes = r.v[i].c.read_bytes, .writes = r.v[i].c.writes,
				.write_bytes = r.v[i].c.write_bytes,
				.wait_read_ns = r.v[i].c.wait_read_ns,
				.sched_span_ns = 2 * SEC, .cpu_ns = SEC / 2,
				.runq_ns = 1.3 * SEC };
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(g.nnodes == 2 && g.nodes[1].pid == 20);
	CHECK(g.nodes[0].state == PL_WAITS_WRITE && !g.nodes[0].share.sched);
	CHECK(g.nodes[1].state == PL_STARVED && g.nodes[1].bottleneck);
	CHECK(g.nodes[1].share.sched && g.nodes[1].share.cpu > 0.249 &&
	      g.nodes[1].share.cpu < 0.251);
	CHECK(g.nodes[1].share.runq > 0.649 && g.nodes[1].share.runq < 0.651);
	CHECK_STR(pl_state_name(g.nodes[1].state), "starved");
	pl_free(&g);
	rows_free(&r);
}

/* Two reads of one process: the figures between them, or none */
static void t_sched_delta(void)
{
	struct sched_proc p = {
		.pid = 7, .base = { .cpu_ns = 1000, .runq_ns = 500, .at_ns = 10000 },
		.now = { .cpu_ns = 4000, .runq_ns = 2500, .at_ns = 20000 },
	};

	sched_delta(&p);
	CHECK(p.span_ns == 10000 && p.d_cpu == 3000 && p.d_runq == 2000);
	p.now.cpu_ns = 900;	/* a thread gone, its time with it */
	sched_delta(&p);
	CHECK(p.span_ns == 0 && p.d_cpu == 0);
	p.now.cpu_ns = 4000;
	p.now.at_ns = 10000;	/* no time between the reads */
	sched_delta(&p);
	CHECK(p.span_ns == 0);
	p.now.at_ns = 20000;
	p.base.at_ns = 0;	/* no read at the interval's start */
	sched_delta(&p);
	CHECK(p.span_ns == 0);
}

/* This process, read twice: it ran between the reads */
static void t_sched_self(void)
{
	struct sched_stat s;
	struct pt_rows r;
	struct pt_key k = { .tgid = getpid() };
	struct pt_counts c = { .reads = 1 };
	volatile unsigned long spin = 0;

	if (!sched_available()) {
		fprintf(stderr, "# no /proc/self/schedstat: t_sched_self skipped\n");
		return;
	}
	rows_init(&r, PT_BY_PID);
	CHECK(!rows_add(&r, &k, &c));
	/* more than a clock tick after this process started: not new */
	usleep(30000);
	sched_init(&s);
	/* before the process is known: it started before the first read */
	CHECK(!sched_update(&s, (struct pt_rows *[]){ &r }, 1));
	CHECK(r.v[0].c.sched_span_ns == 0 && s.n == 1);
	for (unsigned long i = 0; i < 50000000; i++)
		spin += i;
	CHECK(!sched_update(&s, (struct pt_rows *[]){ &r }, 1));
	CHECK(r.v[0].c.sched_span_ns > 0 && r.v[0].c.cpu_ns > 0);
	CHECK(r.v[0].c.cpu_ns + r.v[0].c.runq_ns <= r.v[0].c.sched_span_ns * 101 / 100);
	/* a -k comm row is several processes: left alone */
	r.by = PT_BY_COMM;
	r.v[0].c.sched_span_ns = 0;
	CHECK(!sched_update(&s, (struct pt_rows *[]){ &r }, 1));
	CHECK(r.v[0].c.sched_span_ns == 0);
	sched_free(&s);
	rows_free(&r);
}

static void t_format(void)
{
	CHECK(pl_format_of("g.dot") == PL_FMT_DOT);
	CHECK(pl_format_of("/tmp/a.b/g.svg") == PL_FMT_SVG);
	CHECK(pl_format_of("g.png") == PL_FMT_PNG);
	CHECK(pl_format_of("g.gif") == PL_FMT_NONE);
	CHECK(pl_format_of(".dot") == PL_FMT_NONE);
	CHECK(pl_format_of("dot") == PL_FMT_NONE);
}

/* pipe ino's row in pipes, -1 if none */
static long row_at(const struct pt_rows *pipes, __u64 ino)
{
	for (size_t i = 0; i < pipes->n; i++)
		if (pipes->v[i].key.ino == ino)
			return i;
	return -1;
}

/*
 * a | b | c | d with inodes against the flow (c -> d on 1, b -> c on 2,
 * a -> b on 3), and a second pipeline x | y with a pipe of no writer seen
 * into x: each pipeline's pipes together, upstream first, whatever the
 * inodes and bytes; ties in the order they came.
 */
static void t_order(void)
{
	struct pt_rows r, pipes;
	struct pl_graph g;

	rows_init(&r, PT_BY_PIPE_PID);
	rows_init(&pipes, PT_BY_PIPE);
	pl_init(&g);
	end(&r, 40, "c", 1, 500, 0, 0, 0);
	end(&r, 41, "d", 1, 0, 500, 0, 0);
	end(&r, 30, "b", 2, 600, 0, 0, 0);
	end(&r, 40, "c", 2, 0, 600, 0, 0);
	end(&r, 20, "a", 3, 700, 0, 0, 0);
	end(&r, 30, "b", 3, 0, 700, 0, 0);
	end(&r, 51, "y", 9, 0, 90000, 0, 0);	/* the busiest pipe */
	end(&r, 50, "x", 9, 90000, 0, 0, 0);
	end(&r, 50, "x", 8, 0, 100, 0, 0);	/* into x: no writer seen */
	end(&r, 60, "lone", 7, 10, 0, 0, 0);	/* a writer alone */
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(!rows_fold(&pipes, &r));
	rows_sort(&pipes);	/* busiest first: 9, 3, 2, 1, 8, 7 */
	CHECK(row_at(&pipes, 9) == 0 && row_at(&pipes, 1) == 3 && row_at(&pipes, 7) == 5);
	CHECK(!pl_order_pipes(&pipes, &r, &g));
	CHECK(pipes.n == 6);
	/* x | y first (its busiest pipe leads), the pipe into x before x's */
	CHECK(row_at(&pipes, 8) == 0 && row_at(&pipes, 9) == 1);
	CHECK(row_at(&pipes, 3) == 2 && row_at(&pipes, 2) == 3 && row_at(&pipes, 1) == 4);
	CHECK(row_at(&pipes, 7) == 5);
	CHECK(rows_find(&pipes, &pipes.v[3].key) == 3);	/* reindexed */
	/* ties keep their order: two pipes out of one writer */
	rows_clear(&r);
	rows_clear(&pipes);
	end(&r, 10, "tee", 5, 100, 0, 0, 0);
	end(&r, 11, "r1", 5, 0, 100, 0, 0);
	end(&r, 10, "tee", 4, 100, 0, 0, 0);
	end(&r, 12, "r2", 4, 0, 100, 0, 0);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(!rows_fold(&pipes, &r));
	rows_sort(&pipes);	/* equal bytes: by key, inode 4 first */
	CHECK(!pl_order_pipes(&pipes, &r, &g));
	CHECK(pipes.v[0].key.ino == 4 && pipes.v[1].key.ino == 5);
	pl_free(&g);
	rows_free(&r);
	rows_free(&pipes);
}

int main(void)
{
	t_chain();
	t_fans();
	t_unknown_idle();
	t_many_pairs();
	t_format();
	t_verdict();
	t_starved();
	t_sched_delta();
	t_sched_self();
	t_order();
	return unit_summary("test_pipeline");
}
