// SPDX-License-Identifier: GPL-2.0
/*
 * Built with -m32: pipe I/O through the 32-bit system call entry.
 *   pipework32 N   N writes of 100 bytes, each read back (read, then
 *                  writev/readv, alternating)
 * Prints "pid=P io32=N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/uio.h>

int main(int argc, char **argv)
{
	char buf[100] = { 0 };
	struct iovec iov = { buf, sizeof(buf) };
	long n = argc > 1 ? atol(argv[1]) : 0;
	int p[2];

	if (n <= 0 || pipe(p))
		return 2;
	for (long i = 0; i < n; i++) {
		if (i & 1) {
			if (writev(p[1], &iov, 1) != 100 || readv(p[0], &iov, 1) != 100)
				return 1;
		} else if (write(p[1], buf, 100) != 100 || read(p[0], buf, 100) != 100) {
			return 1;
		}
	}
	printf("pid=%d io32=%ld\n", getpid(), n);
	return 0;
}
