/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * GoBGP's client (gobgp) as the BGP driver speaks it: the command lines that
 * announce, withdraw, look up a route and list the neighbours, and the
 * reading of what it answers (its JSON, -j). Nothing here runs it
 * (proc/capture.h does), so all of it is tested on captured answers.
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
 * global rib add -a ipv4|ipv6 PREFIX [nexthop ADDR] [community LIST]; a flow
 * rule: global rib -a ipv4-flowspec|ipv6-flowspec add match destination D
 * source S then discard
 */
void rw_gobgp_add(const struct rw_gobgp *g, const struct rw_route *r, struct rw_gobgp_argv *a);
/* global rib del -a ipv4|ipv6 PREFIX; a flow rule: ... -flowspec del match destination D source S */
void rw_gobgp_del(const struct rw_gobgp *g, const struct rw_route *r, struct rw_gobgp_argv *a);
/* global rib -a ipv4|ipv6 PREFIX -j, or a flow rule's whole table: whether the speaker holds it */
void rw_gobgp_lookup(const struct rw_gobgp *g, const struct rw_route *r, struct rw_gobgp_argv *a);
/* neighbor -j */
void rw_gobgp_neighbors(const struct rw_gobgp *g, struct rw_gobgp_argv *a);
/* global rib -a ipv4|ipv6[-flowspec] -j: a whole table (family AF_INET or AF_INET6). */
void rw_gobgp_table(const struct rw_gobgp *g, int family, bool flow, struct rw_gobgp_argv *a);
/*
 * The routes of a table (rw_gobgp_table's answer) that carry the community
 * owner, into out (at most max; the number found may be more): prefixes, or
 * flow rules of the form ratewall announces ("[destination: D][source: S]";
 * others are not ours). Their number, or -EINVAL when the answer is no table.
 */
long rw_gobgp_parse_owned(const char *json, int family, bool flow, uint32_t owner,
			  struct rw_route *out, size_t max);

/* `neighbor -j`'s answer ("[]" when it has none). 0, or -EINVAL when it is not a list of them. */
int rw_gobgp_parse_peers(const char *json, struct rw_gobgp_peers *p);
/* `global rib ... PREFIX -j`'s answer: 1 when it holds r, 0 when not, -EINVAL when not an answer. */
int rw_gobgp_parse_lookup(const char *json, const struct rw_route *r);
/* A BGP session state as GoBGP's API numbers it (6: Established), by name. */
const char *rw_gobgp_state_name(int state);
/*
 * Why a run of the client did not do what was asked, in one line: timed
 * out, its first line on stderr (or stdout: it says its errors there too,
 * as {"error":"..."} with -j), or its exit status.
 */
void rw_gobgp_reason(const struct rw_capture *c, uint64_t timeout_ns, char *buf, size_t len);

#endif
