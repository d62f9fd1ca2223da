// SPDX-License-Identifier: GPL-2.0
/* pipetop's pipeline view laid out (src/pipetop/pipeline_view.c), no curses. */
#include <locale.h>
#include <stdlib.h>
#include <wchar.h>
#include "output/ends.h"
#include "pipetop/pipeline_view.h"
#include "unit.h"

#define SEC 1000000000ULL

static const struct pt_env env = { .tier = PT_TIER_SYSCALL, .interval_s = 1.0 };

static void end(struct pt_rows *r, __u32 pid, const char *comm, __u64 ino,
		__u64 wbytes, __u64 rbytes, double wait_w, double wait_r)
{
	struct pt_key k = { .tgid = pid, .dev = 15, .ino = ino };
	struct pt_counts c = {
		.writes = wbytes ? 4 : 0, .write_bytes = wbytes,
		.reads = rbytes ? 8 : 0, .read_bytes = rbytes,
		.wait_write_ns = wait_w * SEC, .wait_read_ns = wait_r * SEC,
	};

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	CHECK(!rows_add(r, &k, &c));
}

/* row y of the grid as UTF-8, trailing blanks cut */
static const char *row(const struct pv_grid *g, int y)
{
	static char buf[1024];
	wchar_t w[256];
	int n = g->cols < 255 ? g->cols : 255;

	wmemcpy(w, g->ch + y * g->cols, n);
	while (n && w[n - 1] == L' ')
		n--;
	w[n] = L'\0';
	wcstombs(buf, w, sizeof(buf));
	return buf;
}

/* a | b | c | d, b busy: three stages on the first band, d folded below */
static void t_fold(void)
{
	struct pt_rows r;
	struct pl_graph g;
	struct pv_grid grid;

	rows_init(&r, PT_BY_PIPE_PID);
	pl_init(&g);
	end(&r, 1, "a", 1, 2048, 0, 0.9, 0);
	end(&r, 2, "b", 1, 0, 2048, 0, 0);
	end(&r, 2, "b", 2, 1024, 0, 0, 0);
	end(&r, 3, "c", 2, 0, 1024, 0, 0.9);
	end(&r, 3, "c", 3, 1024, 0, 0, 0);
	end(&r, 4, "d", 3, 0, 1024, 0, 0.9);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(!pv_layout(&grid, &g, 80, 100));
	CHECK(grid.rows == 10 && grid.cols == 80);
	/* bytes as the tables show them (fmt_iec) */
	CHECK_STR(row(&grid, 0), "┌──────────────┐  2.0KiB/s  ┌──────────────┐  1.0KiB/s  ┌──────────────┐");
	CHECK_STR(row(&grid, 1), "│a[1]          │───────────▶│b[2]          │───────────▶│c[3]          │───────▶");
	CHECK_STR(row(&grid, 2), "│waits wr 90%  │  4 w/s     │BOTTLENECK    │  4 w/s     │waits rd 90%  │");
	CHECK_STR(row(&grid, 5), " 1.0KiB/s   ┌──────────────┐");
	CHECK_STR(row(&grid, 6), "───────────▶│d[4]          │");
	CHECK(grid.look[1 * 80 + 28] == PV_HOT && grid.look[1 * 80 + 0] == PV_PLAIN);
	pv_grid_free(&grid);
	/* at most the rows asked for */
	CHECK(!pv_layout(&grid, &g, 80, 4) && grid.rows == 4);
	pv_grid_free(&grid);
	pl_free(&g);
	rows_free(&r);
}

/* t writes into two pipes: a bus down the gap, each reader's figures */
static void t_fan_out(void)
{
	struct pt_rows r;
	struct pl_graph g;
	struct pv_grid grid;

	rows_init(&r, PT_BY_PIPE_PID);
	pl_init(&g);
	end(&r, 1, "t", 1, 100, 0, 0, 0);
	end(&r, 1, "t", 2, 100, 0, 0, 0);
	end(&r, 2, "x", 1, 0, 100, 0, 0.6);
	end(&r, 3, "y", 2, 0, 100, 0, 0.6);
	ends_sort(&r);
	CHECK(!pl_build(&g, &r, &env, NULL));
	CHECK(!pv_layout(&grid, &g, 80, 100));
	CHECK_STR(row(&grid, 0), "┌──────────────┐  100B/s    ┌──────────────┐");
	CHECK_STR(row(&grid, 1), "│t[1]          │─┬─────────▶│x[2]          │");
	CHECK_STR(row(&grid, 2), "│BOTTLENECK    │ │4 w/s     │waits rd 60%  │");
	CHECK_STR(row(&grid, 5), "                 │100B/s    ┌──────────────┐");
	CHECK_STR(row(&grid, 6), "                 └─────────▶│y[3]          │");
	pv_grid_free(&grid);
	pl_free(&g);
	rows_free(&r);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	t_fold();
	t_fan_out();
	return unit_summary("test_pipeline_view");
}
