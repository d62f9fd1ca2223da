// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <sys/socket.h>
#include "conn_guard.h"

/*
 * The server's loop sees the end of stream on its next turn and closes
 * the connection itself: the fd stays the server's until then.
 */
static void shut(struct conn_guard *g, struct guarded *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->closing = true;
	g->live--;
}

static void phase(struct guarded *c, bool answering, double now)
{
	c->answering = answering;
	c->since = now;
	c->deadline = now + (answering ? GUARD_ANSWER_S : GUARD_REQUEST_S);
}

bool guard_admit(struct conn_guard *g)
{
	struct guarded *oldest = NULL;

	if (g->live < GUARD_MAX_CONNS)
		return true;
	for (struct guarded *c = g->head; c; c = c->next)
		if (!c->closing && !c->answering && (!oldest || c->since < oldest->since))
			oldest = c;
	if (!oldest)
		return false;
	shut(g, oldest);
	return true;
}

struct guarded *guard_add(struct conn_guard *g, int fd, double now)
{
	struct guarded *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	phase(c, false, now);
	c->next = g->head;
	if (g->head)
		g->head->prev = c;
	g->head = c;
	g->live++;
	return c;
}

void guard_answering(struct guarded *c, double now)
{
	phase(c, true, now);
}

void guard_waiting(struct guarded *c, double now)
{
	phase(c, false, now);
}

void guard_remove(struct conn_guard *g, struct guarded *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (!c->closing)
		g->live--;
	free(c);
}

int guard_expire(struct conn_guard *g, double now)
{
	double next = INFINITY;

	for (struct guarded *c = g->head; c; c = c->next) {
		if (c->closing)
			continue;
		if (c->deadline <= now)
			shut(g, c);
		else if (c->deadline < next)
			next = c->deadline;
	}
	return isinf(next) ? -1 : (int)ceil((next - now) * 1e3);
}
