/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* "[ADDR:]PORT" as operators give a listening address (--metrics). */
#ifndef RW_LISTEN_H
#define RW_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

#define RW_LISTEN_DEFAULT_ADDR "127.0.0.1"

/*
 * "9477" (127.0.0.1), "0.0.0.0:9477", "[::1]:9477", "[::]:9477". Fills the
 * address; -EINVAL with the reason in err.
 */
int rw_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		    size_t errlen);
/* "127.0.0.1:9477" / "[::1]:9477" for messages. */
void rw_format_listen(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif
