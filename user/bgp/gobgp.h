/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * GoBGP as the BGP driver speaks it: the session's route commands (in the
 * words of GoBGP's client, session.h sends them), the client's (gobgp)
 * command lines that look up a route, list a table and the neighbours, and
 * the reading of what it answers (its JSON, -j). Nothing here runs anything
 * (proc/capture.h and session.h do), so all of it is tested on captured
 * answers.
 */
#ifndef RW_GOBGP_H
#define RW_GOBGP_H

#include <stddef.h>
#include <stdint.h>
#include "proc/capture.h"
#include "cli/actconf.h"

#define RW_GOBGP_WORDS 24

/* Whom the client asks, and what every announcement carries. */
struct rw_gobgp {
	char command[256];   /* --bgp-command */
	char helper[256];    /* --bgp-helper; "" = the session finds it */
	char host[64];       /* of --bgp [HOST:]PORT (no brackets) */
	char port[8];
	char api[80];        /* HOST:PORT, for messages */
	char next_hop4[16], next_hop6[48];
	char communities[RW_BGP_COMMUNITIES * 12]; /* a blackhole's: "65535:666,64512:1"; "" = none */
	char owner[12];      /* "64512:4242": every route's, so that ours can be found */
	uint32_t owner_value;
};

/* One command line: argv points into buf, NULL-ended. */
struct rw_gobgp_argv {
	char *argv[RW_GOBGP_WORDS];
	char buf[768];
	size_t used;
	int n;
};

/* The neighbours as `gobgp neighbor -j` lists them. */
struct rw_gobgp_peers {
	uint32_t peers, established;
	char down[96]; /* the first not established, "198.19.255.2: Active"; "" = none */
};

/* From --bgp and its options. -EINVAL with the reason in err (an API that is not [HOST:]PORT). */
int rw_gobgp_init(struct rw_gobgp *g, const struct rw_bgp_config *c, char *err, size_t errlen);
/*
 * A route command of the session (session.h), in the words gobgp takes after
 * `global rib`: add -a ipv4|ipv6 PREFIX [nexthop ADDR] [community LIST]; a
 * flow rule: -a ipv4-flowspec|ipv6-flowspec add match destination D source S
 * [protocol N] [source-port N] [destination-port N] then discard|rate-limit
 * R [community OWNER]; del: the same to the route's end.
 */
void rw_gobgp_line(const struct rw_gobgp *g, bool add, const struct rw_route *r, char *buf,
		   size_t len);
/* neighbor -j */
void rw_gobgp_neighbors(const struct rw_gobgp *g, struct rw_gobgp_argv *a);
/*
 * A route the session lists ("route WORDS": "PREFIX" of a table of family,
 * or with flow "D S [proto N] [sport N] [dport N] [rate N]", a flow rule
 * from S to D) into r; false when the words are not that.
 */
bool rw_gobgp_route_of_words(const char *words, int family, bool flow, struct rw_route *r);

/* `neighbor -j`'s answer ("[]" when it has none). 0, or -EINVAL when it is not a list of them. */
int rw_gobgp_parse_peers(const char *json, struct rw_gobgp_peers *p);
/* A BGP session state as GoBGP's API numbers it (6: Established), by name. */
const char *rw_gobgp_state_name(int state);
/*
 * Why a run of the client did not do what was asked, in one line: timed
 * out, its first line on stderr (or stdout: it says its errors there too,
 * as {"error":"..."} with -j), or its exit status.
 */
void rw_gobgp_reason(const struct rw_capture *c, uint64_t timeout_ns, char *buf, size_t len);

#endif
