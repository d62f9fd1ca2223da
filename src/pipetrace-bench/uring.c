// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring workload of the IOCB_NOWAIT pipe discussion: reads on many
 * pipes submitted together, on empty pipes (each read waits for data:
 * without nowait support it was punted to an io-wq thread) and on pipes
 * that already hold the data.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>
#include "os/clock.h"
#include "pipetrace-bench.h"

static double now(void)
{
	return pt_now(CLOCK_MONOTONIC);
}

static int fill(int (*p)[2], int npipes, const char *buf, size_t size)
{
	for (int i = 0; i < npipes; i++)
		if (write(p[i][1], buf, size) != (ssize_t)size)
			return -1;
	return 0;
}

static int one_round(struct io_uring *ring, int (*p)[2], int npipes, char *bufs,
		     size_t size, bool prefilled, long long *got)
{
	struct io_uring_cqe *cqe;

	if (prefilled && fill(p, npipes, bufs, size))
		return -1;
	for (int i = 0; i < npipes; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe)
			return -1;
		io_uring_prep_read(sqe, p[i][0], bufs + i * size, size, 0);
	}
	if (io_uring_submit(ring) != npipes)
		return -1;
	if (!prefilled && fill(p, npipes, bufs, size))
		return -1;
	for (int i = 0; i < npipes; i++) {
		int err = io_uring_wait_cqe(ring, &cqe);

		if (err) {
			errno = -err;
			return -1;
		}
		if (cqe->res < 0) {
			errno = -cqe->res;
			return -1;
		}
		*got += cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

int wl_uring(int npipes, int rounds, size_t size, bool prefilled,
	     struct wl_result *r)
{
	int (*p)[2] = calloc(npipes, sizeof(*p));
	char *bufs = calloc(npipes, size);
	struct io_uring ring;
	long long got = 0;
	int made = 0, err = -1;
	double start;

	if (!p || !bufs)
		goto out;
	err = io_uring_queue_init(npipes, &ring, 0);
	if (err) {
		errno = -err;
		err = -1;
		goto out;
	}
	err = -1;
	for (; made < npipes; made++)
		if (pipe(p[made]))
			goto out_ring;
	start = now();
	for (int i = 0; i < rounds; i++)
		if (one_round(&ring, p, npipes, bufs, size, prefilled, &got))
			goto out_ring;
	r->seconds = now() - start;
	r->bytes = got;
	r->ops = (long long)npipes * rounds;
	err = got == r->ops * (long long)size ? 0 : (errno = EIO, -1);
out_ring:
	for (int i = 0; i < made; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	io_uring_queue_exit(&ring);
out:
	free(p);
	free(bufs);
	return err;
}
