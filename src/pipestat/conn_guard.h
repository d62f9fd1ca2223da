/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipestat --listen: the connections' time limits and their cap. Each
 * phase has an absolute deadline that no amount of trickling extends:
 * the whole request within GUARD_REQUEST_S of the connection opening (or
 * of the previous answer, on a kept-alive one), the whole answer within
 * GUARD_ANSWER_S. A connection past its deadline is shut down. With
 * every slot taken, a new client comes in in place of the oldest
 * connection still waiting for its request.
 */
#ifndef PIPESTAT_CONN_GUARD_H
#define PIPESTAT_CONN_GUARD_H

#include <stdbool.h>

#define GUARD_MAX_CONNS	64
#define GUARD_REQUEST_S	5.0
#define GUARD_ANSWER_S	10.0

struct guarded {
	struct guarded *prev, *next;
	int fd;
	double since;		/* start of this phase */
	double deadline;
	bool answering;		/* request in, answer going out */
	bool closing;		/* shut down, not yet closed */
};

struct conn_guard {
	struct guarded *head;
	int live;		/* connections not closing */
};

/*
 * May one more client come in? With GUARD_MAX_CONNS live, shuts down the
 * one waiting longest for its request to make room; false if all of them
 * are answering.
 */
bool guard_admit(struct conn_guard *g);
/* a new connection on fd, waiting for its request; NULL without memory */
struct guarded *guard_add(struct conn_guard *g, int fd, double now);
void guard_answering(struct guarded *c, double now);
/* answered; waits for the next request */
void guard_waiting(struct guarded *c, double now);
void guard_remove(struct conn_guard *g, struct guarded *c);
/* shuts down those past their deadline; ms to the next one, -1 if none */
int guard_expire(struct conn_guard *g, double now);

#endif
