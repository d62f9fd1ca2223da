// SPDX-License-Identifier: GPL-2.0
/*
 * Keeps N pipes live for pipetop's cost bench: W worker processes each own
 * N/W pipes and, every PERIOD ms, write one byte into each and read it
 * back. Each pipe is one (pipe, process) key in the kernel's counters, so
 * 10,000 pipes fit the 16384-key map.
 *
 *   pipetop_pipes N W PERIOD_MS [pair]
 *
 * With "pair" each worker forks a reader for its pipes: two processes per
 * pipe, so 2N keys (more than the default map holds for N = 10,000).
 *
 * Prints "ready pipes=N" once every worker has its pipes, runs until
 * SIGTERM/SIGINT.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int reader(int (*fds)[2], long n)
{
	char c;

	while (!stop)
		for (long i = 0; i < n && !stop; i++)
			if (read(fds[i][0], &c, 1) != 1)
				return 1;
	return 0;
}

static int worker(long n, long period_ms, int ready_fd, int pair)
{
	int (*fds)[2] = calloc(n, sizeof(*fds));
	struct timespec next;
	char c = 'x';
	pid_t r = -1;

	if (!fds)
		return 1;
	for (long i = 0; i < n; i++)
		if (pipe(fds[i])) {
			perror("pipetop_pipes: pipe");
			return 1;
		}
	if (pair) {
		r = fork();
		if (r == 0)
			_exit(reader(fds, n));
	}
	if (write(ready_fd, "r", 1) != 1)
		return 1;
	close(ready_fd);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		for (long i = 0; i < n && !stop; i++) {
			if (write(fds[i][1], &c, 1) != 1 ||
			    (!pair && read(fds[i][0], &c, 1) != 1))
				return 1;
		}
		next.tv_nsec += period_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
			;
	}
	if (r > 0) {
		kill(r, SIGTERM);
		waitpid(r, NULL, 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n, w, period;
	struct sigaction sa;
	struct rlimit rl;
	int ready[2];
	pid_t *kids;
	char c;

	int pair = argc == 5 && !strcmp(argv[4], "pair");

	if ((argc != 4 && !pair) || (n = atol(argv[1])) <= 0 || (w = atol(argv[2])) <= 0 ||
	    (period = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: pipetop_pipes N WORKERS PERIOD_MS [pair]\n");
		return 2;
	}
	rl.rlim_cur = rl.rlim_max = 2 * (n / w + 1) + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("pipetop_pipes: RLIMIT_NOFILE");
		return 1;
	}
	/* no SA_RESTART: a reader blocked in read() must see the signal */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (pipe(ready))
		return 1;
	kids = calloc(w, sizeof(*kids));
	for (long i = 0; i < w; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			close(ready[0]);
			_exit(worker(n / w + (i < n % w), period, ready[1], pair));
		}
	}
	close(ready[1]);
	for (long i = 0; i < w; i++)
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "pipetop_pipes: a worker failed\n");
			return 1;
		}
	printf("ready pipes=%ld\n", n);
	fflush(stdout);
	while (!stop)
		pause();
	for (long i = 0; i < w; i++) {
		kill(kids[i], SIGTERM);
		waitpid(kids[i], NULL, 0);
	}
	return 0;
}
