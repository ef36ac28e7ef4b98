/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Side channel (see chan.h): perftest's ethernet_client_connect(),
 * ethernet_server_connect(), ethernet_write_data()/ethernet_read_data().
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "chan.h"
#include "cm_chan.h"

static bool
quitting(const struct chan *c)
{
	return c->quit != NULL && *c->quit;
}

static void
chan_idle(struct chan *c)
{
	if (c->progress != NULL)
		c->progress(c->arg);
}

/*
 * Wait until @p fd is ready for @p events, polling the port meanwhile.
 * While it polls, the socket is looked at once every CHAN_CHECK_US: a
 * system call every few port polls was a tenth of a bandwidth server's
 * time (it waits here for the client's "done" while the data arrive).
 */
#define CHAN_CHECK_US 50

static int
chan_wait(struct chan *c, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t next = 0, period = rte_get_tsc_hz() * CHAN_CHECK_US / 1000000;
	uint64_t now;
	int ret;

	for (;;) {
		if (quitting(c))
			return -EINTR;
		now = rte_get_tsc_cycles();
		if (c->progress == NULL || now >= next) {
			next = now + period;
			ret = poll(&p, 1, c->progress != NULL ? 0 : 100);
			if (ret > 0)
				return 0;
			if (ret < 0 && errno != EINTR)
				return -errno;
		}
		chan_idle(c);
	}
}

int
chan_connect(struct chan *c, const char *host, uint16_t port,
	     unsigned int wait_s)
{
	struct addrinfo hints, *res, *t;
	char service[8];
	time_t end = time(NULL) + wait_s;
	int fd = -1, ret, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret != 0) {
		fprintf(stderr, "ernic-testpmd: cannot resolve server \"%s\": %s\n",
			host, gai_strerror(ret));
		return -EINVAL;
	}
	for (;;) {
		for (t = res; t != NULL; t = t->ai_next) {
			fd = socket(t->ai_family, t->ai_socktype,
				    t->ai_protocol);
			if (fd < 0)
				continue;
			if (connect(fd, t->ai_addr, t->ai_addrlen) == 0)
				break;
			close(fd);
			fd = -1;
		}
		if (fd >= 0 || time(NULL) >= end || quitting(c))
			break;
		/* the server may not listen yet: keep the port polled */
		for (ret = 0; ret < 1000 && !quitting(c); ret++) {
			chan_idle(c);
			usleep(c->progress != NULL ? 200 : 1000);
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "ernic-testpmd: couldn't connect to %s:%u\n",
			host, port);
		return -ECONNREFUSED;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	c->client = true;
	return 0;
}

int
chan_accept(struct chan *c, uint16_t port)
{
	struct sockaddr_in6 a;
	int lfd, fd, one = 1, zero = 0, ret;

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0)
		return -errno;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* accept IPv4 clients too (perftest listens on INADDR_ANY) */
	setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_addr = in6addr_any;
	a.sin6_port = htons(port);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(lfd, 1) != 0) {
		ret = -errno;
		fprintf(stderr, "ernic-testpmd: couldn't listen to port %u: %s\n",
			port, strerror(-ret));
		close(lfd);
		return ret;
	}
	ret = chan_wait(c, lfd, POLLIN);
	if (ret != 0) {
		close(lfd);
		return ret;
	}
	fd = accept(lfd, NULL, NULL);
	ret = -errno;
	close(lfd);
	if (fd < 0) {
		fprintf(stderr, "ernic-testpmd: accept() failed: %s\n",
			strerror(-ret));
		return ret;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	c->client = false;
	return 0;
}

int
chan_pair(struct chan c[2])
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -errno;
	c[0].fd = sv[0];
	c[0].client = true;
	c[1].fd = sv[1];
	c[1].client = false;
	return 0;
}

void
chan_close(struct chan *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int
chan_write(struct chan *c, const void *buf, size_t n)
{
	ssize_t w;

	if (c->cm != NULL)
		return cm_chan_write(c->cm, buf, n);
	/* one write() per message: the peer does one read() of that size */
	w = send(c->fd, buf, n, MSG_NOSIGNAL);
	if (w != (ssize_t)n) {
		fprintf(stderr, "ernic-testpmd: side channel: write of %zu bytes failed: %s\n",
			n, w < 0 ? strerror(errno) : "short write");
		return -EIO;
	}
	return 0;
}

int
chan_read(struct chan *c, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;
	int ret;

	if (c->cm != NULL)
		return cm_chan_read(c->cm, buf, n);
	while (got < n) {
		ret = chan_wait(c, c->fd, POLLIN);
		if (ret != 0)
			return ret;
		r = recv(c->fd, (char *)buf + got, n - got, MSG_DONTWAIT);
		if (r == 0) {
			fprintf(stderr, "ernic-testpmd: side channel closed by the peer after %zu of %zu bytes\n",
				got, n);
			return -ECONNRESET;
		}
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "ernic-testpmd: side channel: %s\n",
				strerror(errno));
			return -errno;
		}
		got += (size_t)r;
	}
	return 0;
}

int
chan_xchg(struct chan *c, const void *mine, void *theirs, size_t n)
{
	int ret;

	if (c->client) {
		ret = chan_write(c, mine, n);
		return ret != 0 ? ret : chan_read(c, theirs, n);
	}
	ret = chan_read(c, theirs, n);
	return ret != 0 ? ret : chan_write(c, mine, n);
}
