// SPDX-License-Identifier: GPL-2.0
/*
 * bpfsmoke OBJ N: load OBJ (bpfsmoke.bpf.c), attach every program, run
 * N O_NONBLOCK reads on an empty pipe, print the counters as
 * "eagain=.. copy=.. pageget_ok=.. fentry=..".  Exit 0 if everything
 * loaded and attached.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct stat st;
	int fds[2], n, map_fd;
	__u64 v[4] = { 0 };
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: bpfsmoke OBJ N\n");
		return 2;
	}
	n = atoi(argv[2]);
	if (pipe2(fds, O_NONBLOCK) || fstat(fds[0], &st)) {
		perror("pipe");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		perror("open");
		return 1;
	}
	{
		struct bpf_map *rod = bpf_object__find_map_by_name(obj, ".rodata");
		__u64 ino = st.st_ino;

		if (!rod || bpf_map__set_initial_value(rod, &ino, sizeof(ino))) {
			fprintf(stderr, "cannot set target_ino\n");
			return 1;
		}
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "load failed: %d\n", errno);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "attach %s failed: %d\n",
				bpf_program__name(prog), errno);
			return 1;
		}
		printf("attached %s (%s)\n", bpf_program__name(prog),
		       bpf_program__section_name(prog));
	}
	for (int i = 0; i < n; i++)
		if (read(fds[0], &c, 1) != -1 || errno != EAGAIN)
			return 3;
	if (write(fds[1], "x", 1) != 1)
		return 3;
	map_fd = bpf_object__find_map_fd_by_name(obj, "ctr");
	for (__u32 k = 0; k < 4; k++)
		bpf_map_lookup_elem(map_fd, &k, &v[k]);
	printf("eagain=%llu copy=%llu pageget_ok=%llu fentry=%llu\n",
	       (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)v[2], (unsigned long long)v[3]);
	return 0;
}
