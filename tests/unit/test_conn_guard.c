// SPDX-License-Identifier: GPL-2.0
/*
 * pipestat --listen's connection limits on real sockets: deadlines that
 * activity does not move, and room for a new client at the cap.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "pipestat/conn_guard.h"
#include "unit.h"

/* has the guard shut this connection down? (its peer reads end of stream) */
static bool shut_down(int peer)
{
	char c;

	return recv(peer, &c, 1, MSG_DONTWAIT) == 0;
}

static void deadlines(void)
{
	struct conn_guard g = {};
	struct guarded *c;
	int sv[2];

	CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	c = guard_add(&g, sv[0], 100.0);
	CHECK(g.live == 1 && c->deadline == 100.0 + GUARD_REQUEST_S);
	CHECK(guard_expire(&g, 101.0) == (int)((GUARD_REQUEST_S - 1) * 1e3));
	/* bytes trickling in change nothing: only the request's end does */
	CHECK(guard_expire(&g, 104.5) == 500 && !shut_down(sv[1]));
	guard_answering(c, 104.5);
	CHECK(guard_expire(&g, 105.5) == (int)((GUARD_ANSWER_S - 1) * 1e3));
	guard_waiting(c, 106.0);
	CHECK(guard_expire(&g, 110.5) == 500 && !shut_down(sv[1]));
	CHECK(guard_expire(&g, 111.0) == -1 && shut_down(sv[1]));
	CHECK(g.live == 0 && c->closing);
	/* shut down once: the loop closes it, then it goes */
	CHECK(guard_expire(&g, 200.0) == -1 && g.live == 0);
	guard_remove(&g, c);
	CHECK(!g.head && g.live == 0);
	close(sv[0]);
	close(sv[1]);
}

static void cap(void)
{
	struct guarded *c[GUARD_MAX_CONNS];
	int fd[GUARD_MAX_CONNS][2];
	struct conn_guard g = {};
	int n = GUARD_MAX_CONNS;

	for (int i = 0; i < n; i++) {
		CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, fd[i]));
		CHECK(guard_admit(&g));
		c[i] = guard_add(&g, fd[i][0], 10.0 + i);
	}
	CHECK(g.live == n);
	/* the first two are being answered: the third waited longest */
	guard_answering(c[0], 80.0);
	guard_answering(c[1], 80.0);
	CHECK(guard_admit(&g) && g.live == n - 1);
	CHECK(!shut_down(fd[0][1]) && !shut_down(fd[1][1]) && shut_down(fd[2][1]));
	CHECK(!shut_down(fd[3][1]));
	/* a kept-alive connection waits again from its answer on */
	guard_waiting(c[0], 81.0);
	for (int i = 3; i < n; i++)
		guard_answering(c[i], 81.0);
	guard_add(&g, -1, 82.0);	/* the one admitted above */
	CHECK(guard_admit(&g) && shut_down(fd[0][1]));
	/* every other slot answering: nobody to make room */
	g.head->answering = true;
	guard_add(&g, -1, 83.0)->answering = true;
	CHECK(g.live == n && !guard_admit(&g));
	while (g.head)
		guard_remove(&g, g.head);
	CHECK(g.live == 0);
	for (int i = 0; i < n; i++) {
		close(fd[i][0]);
		close(fd[i][1]);
	}
}

int main(void)
{
	deadlines();
	cap();
	return unit_summary("test_conn_guard");
}
