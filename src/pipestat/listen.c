// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "listen.h"

/* digits only: strtol would take " 19441" and "+80" */
static bool parse_port(const char *s, unsigned int *port)
{
	size_t len = strspn(s, "0123456789");

	if (!len || len > 5 || s[len])
		return false;
	*port = atoi(s);
	return *port <= 65535;
}

/* a numeric IPv4 address or a host name (RFC 1123 letters) */
static bool plain_host(const char *h)
{
	struct in_addr a;

	if (!h[strspn(h, "0123456789.")])
		return inet_pton(AF_INET, h, &a) == 1;
	return h[strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789.-_")] == '\0';
}

bool listen_parse(const char *s, char host[LISTEN_HOST_MAX], unsigned int *port,
		  char *err, size_t n)
{
	const char *colon = strrchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : 0;
	struct in6_addr a6;

	if (!colon) {
		snprintf(err, n, "invalid --listen '%s': want ADDR:PORT, e.g. "
			 "127.0.0.1:9432, localhost:9432 or [::]:9432", s);
		return false;
	}
	if (!parse_port(colon + 1, port)) {
		snprintf(err, n, "invalid --listen '%s': the port is a number, "
			 "0 to 65535 (0: any free one)", s);
		return false;
	}
	if (!len) {
		snprintf(err, n, "--listen '%s' has no address: give 127.0.0.1%s "
			 "for this host only, or [::]%s for every interface",
			 s, colon, colon);
		return false;
	}
	if (len >= LISTEN_HOST_MAX) {
		snprintf(err, n, "invalid --listen: the address is longer than %d bytes",
			 LISTEN_HOST_MAX - 1);
		return false;
	}
	if (s[0] == '[' && s[len - 1] == ']') {
		snprintf(host, LISTEN_HOST_MAX, "%.*s", (int)len - 2, s + 1);
		if (inet_pton(AF_INET6, host, &a6) == 1)
			return true;
	} else if (memchr(s, ':', len)) {
		snprintf(err, n, "invalid --listen '%s': an IPv6 address goes in "
			 "brackets, e.g. [::1]:9432", s);
		return false;
	} else {
		snprintf(host, LISTEN_HOST_MAX, "%.*s", (int)len, s);
		if (plain_host(host))
			return true;
	}
	snprintf(err, n, "invalid --listen '%s': '%.*s' is no IPv4 address, "
		 "[IPv6] address or host name", s, (int)len, s);
	return false;
}

/* the first IPv4 address: 'localhost' is both, and scrapers say 127.0.0.1 */
static const struct addrinfo *pick(const struct addrinfo *ai)
{
	for (const struct addrinfo *a = ai; a; a = a->ai_next)
		if (a->ai_family == AF_INET)
			return a;
	return ai;
}

static void addr_text(const struct sockaddr *sa, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(out, n, "%s:%u", host, port);
	} else {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(out, n, "[%s]:%u", host, port);
	}
}

int listen_open(const char *s, char *bound, size_t blen, char *err, size_t n)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct sockaddr_storage got;
	socklen_t got_len = sizeof(got);
	char host[LISTEN_HOST_MAX], port_s[8];
	const struct addrinfo *a;
	struct addrinfo *ai;
	unsigned int port;
	int fd, rc, one = 1, zero = 0;

	if (!listen_parse(s, host, &port, err, n))
		return -1;
	snprintf(port_s, sizeof(port_s), "%u", port);
	rc = getaddrinfo(host, port_s, &hints, &ai);
	if (rc) {
		snprintf(err, n, "--listen %s: %s", s,
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -1;
	}
	a = pick(ai);
	fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* a restarted exporter must not wait for TIME_WAIT to pass */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto fail;
	/* [::] is every interface, IPv4 included, whatever bindv6only says */
	if (a->ai_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
		goto fail;
	if (bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&got, &got_len))
		goto fail;
	freeaddrinfo(ai);
	addr_text((struct sockaddr *)&got, bound, blen);
	return fd;
fail:
	snprintf(err, n, "--listen %s: %s", s, strerror(errno));
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return -1;
}
