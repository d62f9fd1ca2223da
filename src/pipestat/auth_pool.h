/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipestat --listen: bcrypt password checks on worker threads, off the
 * server's loop, which meanwhile answers every other client (a check
 * of cost 14 takes seconds). Checks wait their turn in order; only
 * failures are limited. A client address whose last check failed (less
 * than AUTH_FAILED_S ago) may have one check under way, not two; after
 * a failure its worker rests three times as long as the check took, so
 * a flood of wrong passwords gets at most a quarter of each worker. All
 * together at most AUTH_PENDING_MAX checks are under way, so that they
 * never hold most of the server's connections. Beyond those limits a
 * request is answered 429 at once, unchecked.
 */
#ifndef PIPESTAT_AUTH_POOL_H
#define PIPESTAT_AUTH_POOL_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_WORKERS		2
#define AUTH_PENDING_MAX	32	/* half of GUARD_MAX_CONNS */
#define AUTH_FAILED_S		60.0
#define AUTH_ADDR_MAX		16	/* an IPv6 address */

struct auth_pool;

/* the check's end, on a worker thread or in auth_pool_stop(); once */
typedef void auth_done_fn(void *arg, bool right);

/* NULL with a one-line reason */
struct auth_pool *auth_pool_start(char *err, size_t n);
/*
 * Checks password against hash for the client at addr (its address
 * bytes, len at most AUTH_ADDR_MAX): done(arg, right) is called when it
 * is done; right is false whatever the password when known is false (an
 * unknown user's password is checked all the same, so it takes as long).
 * False, with nothing queued, beyond the limits above, or without memory.
 */
bool auth_pool_submit(struct auth_pool *p, const void *addr, size_t len,
		      const char *password, const char *hash, bool known,
		      auth_done_fn *done, void *arg);
/*
 * Every check not done yet is done at once, as wrong; a worker in the
 * middle of one is not waited for (it ends when its bcrypt does).
 */
void auth_pool_stop(struct auth_pool *p);

#endif
