// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "os/clock.h"
#include "auth_pool.h"

#define REST_FACTOR	3	/* after a failure: 3 times its time idle */
#define FAILERS		64	/* client addresses whose last check failed */

struct auth_addr {
	unsigned char b[AUTH_ADDR_MAX];
	size_t len;
};

struct auth_job {
	struct auth_job *next;
	struct auth_addr addr;
	char *password;
	char *hash;
	bool known;
	auth_done_fn *done;	/* NULL once called */
	void *arg;
};

/*
 * Freed by the last one out: the server, or a worker still in a bcrypt
 * when the server stopped.
 */
struct auth_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* a job queued, or stopping */
	struct auth_job *queue, **tail;
	struct auth_job *running;
	struct failer {
		struct auth_addr addr;
		double at;	/* 0: a free slot */
	} failers[FAILERS];
	int refs;
	bool stopping;
};

static bool same_addr(const struct auth_addr *a, const struct auth_addr *b)
{
	return a->len == b->len && !memcmp(a->b, b->b, a->len);
}

/* addr's slot, or where to put it: a free one, else the oldest */
static struct failer *failer_of(struct auth_pool *p, const struct auth_addr *addr)
{
	struct failer *f = &p->failers[0];

	for (int i = 0; i < FAILERS; i++) {
		if (p->failers[i].at && same_addr(&p->failers[i].addr, addr))
			return &p->failers[i];
		if (p->failers[i].at < f->at)
			f = &p->failers[i];
	}
	return f;
}

/* a client whose last check failed, less than AUTH_FAILED_S ago */
static bool failing(struct auth_pool *p, const struct auth_addr *addr)
{
	struct failer *f = failer_of(p, addr);

	return f->at && same_addr(&f->addr, addr) &&
	       pt_now(CLOCK_MONOTONIC) - f->at < AUTH_FAILED_S;
}

/* the client's last check, remembered if it failed (lock held) */
static void outcome(struct auth_pool *p, const struct auth_addr *addr, bool right)
{
	struct failer *f = failer_of(p, addr);

	if (right && f->at && same_addr(&f->addr, addr))
		f->at = 0;
	else if (!right)
		*f = (struct failer){ .addr = *addr, .at = pt_now(CLOCK_MONOTONIC) };
}

static void job_free(struct auth_job *j)
{
	if (j->password)
		explicit_bzero(j->password, strlen(j->password));
	free(j->password);
	free(j->hash);
	free(j);
}

/* calls the job's done, once */
static void job_done(struct auth_job *j, bool right)
{
	if (!j->done)
		return;
	j->done(j->arg, right);
	j->done = NULL;
}

static void pool_put(struct auth_pool *p)
{
	bool last;

	pthread_mutex_lock(&p->lock);
	last = !--p->refs;
	pthread_mutex_unlock(&p->lock);
	if (!last)
		return;
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* the next job, moved to the running list, once the worker has rested;
 * NULL when stopping (lock held) */
static struct auth_job *take(struct auth_pool *p, double rest_until)
{
	struct auth_job *j;
	struct timespec ts;
	double t;

	for (;;) {
		if (p->stopping)
			return NULL;
		t = pt_now(CLOCK_MONOTONIC);
		if (p->queue && t >= rest_until)
			break;
		if (!p->queue) {
			pthread_cond_wait(&p->wake, &p->lock);
			continue;
		}
		ts.tv_sec = (time_t)rest_until;
		ts.tv_nsec = (long)((rest_until - ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
	}
	j = p->queue;
	p->queue = j->next;
	if (!p->queue)
		p->tail = &p->queue;
	j->next = p->running;
	p->running = j;
	return j;
}

static void unlink_running(struct auth_pool *p, struct auth_job *j)
{
	struct auth_job **at = &p->running;

	while (*at != j)
		at = &(*at)->next;
	*at = j->next;
}

/* bcrypt (libcrypt); a hash it cannot use is never right */
static bool bcrypt_right(const char *password, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *r = cd ? crypt_r(password, hash, cd) : NULL;
	bool right = r && !strcmp(r, hash);

	if (cd)
		explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return right;
}

static void *worker(void *arg)
{
	struct auth_pool *p = arg;
	double rest_until = 0, took;
	struct auth_job *j;
	bool right;

	pthread_mutex_lock(&p->lock);
	while ((j = take(p, rest_until))) {
		pthread_mutex_unlock(&p->lock);
		took = pt_now(CLOCK_MONOTONIC);
		right = bcrypt_right(j->password, j->hash) && j->known;
		took = pt_now(CLOCK_MONOTONIC) - took;
		if (!right)
			rest_until = pt_now(CLOCK_MONOTONIC) + REST_FACTOR * took;
		pthread_mutex_lock(&p->lock);
		unlink_running(p, j);
		outcome(p, &j->addr, right);
		job_done(j, right);
		job_free(j);
	}
	pthread_mutex_unlock(&p->lock);
	pool_put(p);
	return NULL;
}

static int count(const struct auth_job *list, const struct auth_addr *addr, int *same)
{
	int n = 0;

	for (; list; list = list->next, n++)
		if (same_addr(&list->addr, addr))
			(*same)++;
	return n;
}

/* room for one more check from addr (lock held) */
static bool room(struct auth_pool *p, const struct auth_addr *addr)
{
	int same = 0, all;

	all = count(p->queue, addr, &same) + count(p->running, addr, &same);
	return all < AUTH_PENDING_MAX && !(same && failing(p, addr));
}

bool auth_pool_submit(struct auth_pool *p, const void *addr, size_t len,
		      const char *password, const char *hash, bool known,
		      auth_done_fn *done, void *arg)
{
	struct auth_job *j = calloc(1, sizeof(*j));
	bool queued = false;

	if (!j || len > AUTH_ADDR_MAX)
		goto out;
	memcpy(j->addr.b, addr, len);
	j->addr.len = len;
	j->password = strdup(password);
	j->hash = strdup(hash);
	j->known = known;
	j->done = done;
	j->arg = arg;
	if (!j->password || !j->hash)
		goto out;
	pthread_mutex_lock(&p->lock);
	queued = room(p, &j->addr);
	if (queued) {
		*p->tail = j;
		p->tail = &j->next;
		/* the one signalled could be resting: an idle one takes it */
		pthread_cond_broadcast(&p->wake);
	}
	pthread_mutex_unlock(&p->lock);
out:
	if (!queued && j)
		job_free(j);
	return queued;
}

struct auth_pool *auth_pool_start(char *err, size_t n)
{
	struct auth_pool *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t t;
	int rc = p ? 0 : ENOMEM;

	if (rc)
		goto fail;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	p->tail = &p->queue;
	p->refs = 1;
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < AUTH_WORKERS && !rc; i++) {
		p->refs++;
		rc = pthread_create(&t, &ta, worker, p);
		if (rc)
			p->refs--;
	}
	pthread_attr_destroy(&ta);
	if (!rc)
		return p;
	auth_pool_stop(p);
fail:
	snprintf(err, n, "password checks: %s", strerror(rc));
	return NULL;
}

void auth_pool_stop(struct auth_pool *p)
{
	struct auth_job *j;

	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	while ((j = p->queue)) {
		p->queue = j->next;
		job_done(j, false);
		job_free(j);
	}
	p->tail = &p->queue;
	/* their workers free them */
	for (j = p->running; j; j = j->next)
		job_done(j, false);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pool_put(p);
}
