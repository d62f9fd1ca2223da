// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "verdict.h"

/* A share of the interval from a % column; false if not known. */
static bool share(enum pt_col col, const struct pt_counts *c,
		  const struct pt_env *env, double *d)
{
	struct pt_value v = pt_get(col, c, env);

	if (v.q == PT_NA)
		return false;
	*d = v.d > 100 ? 1 : v.d / 100;
	return true;
}

bool pl_shares_of(const struct pt_counts *c, const struct pt_env *env,
		  struct pl_shares *s)
{
	memset(s, 0, sizeof(*s));
	s->sched = share(PT_COL_CPU_PCT, c, env, &s->cpu) &&
		   share(PT_COL_RUNQ_PCT, c, env, &s->runq);
	if (!s->sched)
		s->cpu = s->runq = 0;
	return share(PT_COL_WAIT_READ_PCT, c, env, &s->wait_read) &&
	       share(PT_COL_WAIT_WRITE_PCT, c, env, &s->wait_write);
}

enum pl_state pl_verdict(const struct pl_shares *s)
{
	double rest = 1 - s->wait_read - s->wait_write;

	if (s->wait_write >= s->wait_read && s->wait_write > rest)
		return PL_WAITS_WRITE;
	if (s->wait_read > s->wait_write && s->wait_read > rest)
		return PL_WAITS_READ;
	/* starved: waiting for a CPU is most of what it did outside its
	 * pipe waits, not a sliver of a sleep elsewhere (sh in sleep 1) */
	return s->sched && s->runq > s->cpu && 2 * s->runq >= rest ? PL_STARVED : PL_BUSY;
}

const char *pl_state_name(enum pl_state s)
{
	static const char *const names[] = {
		[PL_BUSY] = "busy", [PL_STARVED] = "starved",
		[PL_WAITS_WRITE] = "waits writing",
		[PL_WAITS_READ] = "waits reading", [PL_UNKNOWN] = "waits unknown",
		[PL_IDLE] = "idle",
	};

	return names[s];
}
