// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/metrics.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/listen.h"
#include "model/errmsg.h"

void rw_metrics_publish(struct rw_metrics *m, const struct rw_report *r)
{
	char *page = NULL;
	size_t len = 0;
	FILE *out;

	rw_metrics_count_tick(&m->ticks, r->tick_ns);
	out = open_memstream(&page, &len);
	if (!out)
		return;
	rw_metrics_render(out, &m->ticks, r);
	if (fclose(out)) {
		free(page);
		return;
	}
	pthread_mutex_lock(&m->lock);
	free(m->page);
	m->page = page;
	m->len = len;
	pthread_mutex_unlock(&m->lock);
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *c, const char *url,
			     const char *method, const char *version, const char *upload,
			     size_t *upload_size, void **state)
{
	static const char not_found[] = "ratewall serves /metrics only\n";
	struct rw_metrics *m = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char *copy = NULL;
	size_t len = 0;

	(void)version, (void)upload, (void)upload_size, (void)state;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		ret = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	if (strcmp(url, "/metrics") != 0) {
		resp = MHD_create_response_from_buffer(sizeof(not_found) - 1, (void *)not_found,
						       MHD_RESPMEM_PERSISTENT);
		ret = MHD_queue_response(c, MHD_HTTP_NOT_FOUND, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	pthread_mutex_lock(&m->lock);
	if (m->page && (copy = malloc(m->len)))
		memcpy(copy, m->page, (len = m->len));
	pthread_mutex_unlock(&m->lock);
	/* Before the first tick there is nothing to say yet: an empty, valid page. */
	resp = MHD_create_response_from_buffer(len, copy, copy ? MHD_RESPMEM_MUST_FREE
							       : MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

int rw_metrics_start(struct rw_metrics *m, const char *listen_on, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	char where[64];
	socklen_t len;
	int fd, one = 1, e;

	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	if (rw_parse_listen(listen_on, &ss, &len, err, errlen))
		return -EINVAL;
	rw_format_listen(&ss, where, sizeof(where));
	/* Our own socket: a busy port is said with its errno, before anything serves. */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rw_fail(err, errlen, -errno, "--metrics: cannot listen on %s: %s", where,
			       strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		e = errno;
		close(fd);
		return rw_fail(err, errlen, -e, "--metrics: cannot listen on %s: %s", where,
			       strerror(e));
	}
	m->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				     0, NULL, NULL, serve, m, MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10, MHD_OPTION_END);
	if (!m->daemon) {
		close(fd);
		return rw_fail(err, errlen, -EIO, "--metrics: cannot serve on %s", where);
	}
	return 0;
}

void rw_metrics_stop(struct rw_metrics *m)
{
	if (m->daemon)
		MHD_stop_daemon(m->daemon); /* closes the listening socket too */
	m->daemon = NULL;
	free(m->page);
	m->page = NULL;
	pthread_mutex_destroy(&m->lock);
}
