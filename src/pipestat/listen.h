/* SPDX-License-Identifier: GPL-2.0 */
/* pipestat --listen ADDR:PORT: the address checked, resolved and bound. */
#ifndef PIPESTAT_LISTEN_H
#define PIPESTAT_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

#define LISTEN_HOST_MAX	256

/*
 * Splits "HOST:PORT", "[V6]:PORT" into host (brackets off) and port
 * (0 to 65535, digits only). ":PORT" alone is refused: every interface
 * only when asked, as [::]:PORT. False with a one-line reason in err.
 */
bool listen_parse(const char *s, char host[LISTEN_HOST_MAX], unsigned int *port,
		  char *err, size_t n);

/*
 * A listening TCP socket for s (a name binds its first IPv4 address, or
 * its first IPv6 one; [::] takes IPv4 too), non-blocking; "ADDR:PORT" it
 * got in bound (port 0: the one the kernel chose). -1 with a reason.
 */
int listen_open(const char *s, char *bound, size_t blen, char *err, size_t n);

#endif
