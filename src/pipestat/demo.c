// SPDX-License-Identifier: GPL-2.0
/*
 * pipestat --demo: a known workload under its own command name, so the
 * report can be checked against what the workload says it did.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "demo.h"
#include "workload/workload.h"

#define DEMO_WRITES	2048
#define DEMO_SIZE	65536
#define DEMO_EAGAINS	1000
#define DEMO_ROUNDS	2000

static int go_fd = -1;

pid_t demo_spawn(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid) {
		close(p[0]);
		go_fd = p[1];
		return pid;
	}
	close(p[1]);
	/* named only after the go read, so that read is not in the report */
	if (read(p[0], &c, 1) != 1)
		_exit(1);
	close(p[0]);
	prctl(PR_SET_NAME, DEMO_COMM);
	_exit(wl_stream(DEMO_SIZE, DEMO_WRITES) < 0 ||
	      wl_eagain_reads(DEMO_EAGAINS) != DEMO_EAGAINS ||
	      wl_pingpong(DEMO_ROUNDS, NULL) != DEMO_ROUNDS);
}

int demo_go(void)
{
	int ok = write(go_fd, "g", 1) == 1;

	close(go_fd);
	return ok ? 0 : -1;
}

void demo_describe(FILE *f)
{
	fprintf(f, "demo workload (command '%s'):\n"
		"  %d writes of %d bytes through a pipe, drained by a child\n"
		"  %d nonblocking reads of an empty pipe (%d read EAGAINs)\n"
		"  %d one-byte round trips between two processes\n",
		DEMO_COMM, DEMO_WRITES, DEMO_SIZE, DEMO_EAGAINS, DEMO_EAGAINS,
		DEMO_ROUNDS);
}
