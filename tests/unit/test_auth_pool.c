// SPDX-License-Identifier: GPL-2.0
/*
 * --listen's password checks on worker threads: bcrypt's answer for
 * right, wrong and unknown users, the limits on checks under way (per
 * client address and in all), the rest after a failure, and a stop that
 * ends every check not done, once, without waiting for a bcrypt.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "os/clock.h"
#include "pipestat/auth_pool.h"
#include "unit.h"

/* 'right pw', cost 4 (about 1 ms) and cost 10 (tens of ms) */
#define FAST	"$2y$04$SPsF5a8m5PDuhvFSPfnKIeU.uC2jpteGvPtJ0e8Dbe/qQGsm7Y.ra"
#define SLOW	"$2y$10$qBG3UzBoC.COWqs0lZVqB.CH/kFxOcUbcU4CI1euvzgxhNT2EJvie"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

struct result {
	int calls;
	bool right;
	double at;		/* when done (monotonic s) */
};

static void done(void *arg, bool right)
{
	struct result *r = arg;

	pthread_mutex_lock(&lock);
	r->calls++;
	r->right = right;
	r->at = pt_now(CLOCK_MONOTONIC);
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* a check's answer, waited for; a minute without it fails (a check the
 * pool refused, or lost, must not hang the suite) */
static void wait_done(struct result *r)
{
	struct timespec limit;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += 60;
	pthread_mutex_lock(&lock);
	while (!r->calls && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&cond, &lock, &limit);
	pthread_mutex_unlock(&lock);
	CHECK(rc != ETIMEDOUT);
}

static bool submit(struct auth_pool *p, unsigned char addr, const char *pw,
		   const char *hash, bool known, struct result *r)
{
	unsigned char a[4] = { 127, 0, 0, addr };

	return auth_pool_submit(p, a, sizeof(a), pw, hash, known, done, r);
}

/* one check's answer, waited for */
static struct result check(struct auth_pool *p, const char *pw, bool known)
{
	struct result r = {};

	if (submit(p, 1, pw, FAST, known, &r))
		wait_done(&r);
	return r;
}

static void answers(void)
{
	struct auth_pool *p;
	struct result r;
	char err[128];

	p = auth_pool_start(err, sizeof(err));
	CHECK(p);
	r = check(p, "right pw", true);
	CHECK(r.calls == 1 && r.right);
	r = check(p, "right pw ", true);
	CHECK(r.calls == 1 && !r.right);
	r = check(p, "", true);
	CHECK(r.calls == 1 && !r.right);
	/* an unknown user: checked, never right */
	r = check(p, "right pw", false);
	CHECK(r.calls == 1 && !r.right);
	auth_pool_stop(p);
}

/*
 * A client is held to one check under way only once one of its checks
 * failed, until one is right; all together to AUTH_PENDING_MAX.
 */
static void limits(void)
{
	struct result r[AUTH_PENDING_MAX + 8] = {};
	struct auth_pool *p;
	char err[128];
	int n = 0, calls = 0, wrong;

	p = auth_pool_start(err, sizeof(err));
	/* a client that never failed: its checks all wait their turn (right
	 * ones: with two workers, a wrong one could end before the next is
	 * submitted, and the client would be held to one) */
	CHECK(submit(p, 1, "right pw", FAST, true, &r[n]));
	CHECK(submit(p, 1, "right pw", FAST, true, &r[n + 1]));
	CHECK(submit(p, 1, "right pw", FAST, true, &r[n + 2]));
	for (int i = 0; i < 3; i++)
		wait_done(&r[n++]);
	CHECK(r[0].right && r[1].right && r[2].right);
	/* two wrong ones from a client not failing: both taken */
	CHECK(submit(p, 1, "wrong", SLOW, true, &r[n++]));
	CHECK(submit(p, 1, "wrong", SLOW, true, &r[n++]));
	wait_done(&r[n - 2]);
	wait_done(&r[n - 1]);
	/* failed: one under way at a time, the others refused */
	CHECK(submit(p, 1, "right pw", SLOW, true, &r[n++]));
	CHECK(!submit(p, 1, "right pw", SLOW, true, &r[n]));
	wait_done(&r[n - 1]);
	CHECK(r[n - 1].right);
	/* right again: no limit; then each from a client of its own */
	wrong = n;
	CHECK(submit(p, 1, "wrong", SLOW, true, &r[n++]));
	CHECK(submit(p, 1, "wrong", SLOW, true, &r[n++]));
	for (; n < wrong + AUTH_PENDING_MAX; n++)
		CHECK(submit(p, n, "wrong", SLOW, true, &r[n]));
	CHECK(!submit(p, 200, "right pw", SLOW, true, &r[n]));
	/* a stop ends them all at once: the rest of them as wrong */
	auth_pool_stop(p);
	for (int i = 0; i < n; i++) {
		wait_done(&r[i]);
		calls += r[i].calls;
	}
	CHECK(calls == n);
	for (int i = wrong; i < n; i++)
		CHECK(!r[i].right);
	CHECK(!r[n].calls);
}

/*
 * Two failures keep both workers resting three times as long as each
 * took; a check queued meanwhile waits for that, then is answered.
 */
static void rests(void)
{
	struct result r[3] = {};
	struct auth_pool *p;
	double t0, took;
	char err[128];

	p = auth_pool_start(err, sizeof(err));
	t0 = pt_now(CLOCK_MONOTONIC);
	CHECK(submit(p, 1, "wrong", SLOW, true, &r[0]));
	CHECK(submit(p, 2, "wrong", SLOW, true, &r[1]));
	CHECK(submit(p, 3, "right pw", SLOW, true, &r[2]));
	for (int i = 0; i < 3; i++)
		wait_done(&r[i]);
	took = r[0].at < r[1].at ? r[0].at - t0 : r[1].at - t0;
	CHECK(r[2].right);
	/* the first free worker ended a failure at took, then rested 3 times that */
	CHECK(r[2].at - t0 >= 3 * took);
	printf("# a check took %.0f ms; the one after two failures ended at %.0f ms\n",
	       took * 1e3, (r[2].at - t0) * 1e3);
	auth_pool_stop(p);
}

int main(void)
{
	answers();
	limits();
	rests();
	return unit_summary("test_auth_pool");
}
