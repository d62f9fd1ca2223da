// SPDX-License-Identifier: GPL-2.0
/*
 * make bench only: bpfattach OBJ loads a BPF object, attaches each of its
 * programs (not those marked SEC("?...")), says "attached" on stdout and
 * holds them until SIGINT/SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	sigset_t block, old;

	if (argc != 2) {
		fprintf(stderr, "usage: bpfattach OBJ\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bpfattach: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "bpfattach: cannot attach %s\n",
				bpf_program__name(prog));
			return 1;
		}
	}
	/* blocked until sigsuspend(): a signal cannot slip in between the
	 * test of stop and the wait */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* wait with both open even if the caller had them blocked */
	sigdelset(&old, SIGINT);
	sigdelset(&old, SIGTERM);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	bpf_object__close(obj);
	return 0;
}
