/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What ratewall does beyond its own drop, as the options give it: --on-event
 * runs a command for chosen events; --bgp announces blackhole routes through
 * a GoBGP daemon. Parsing only: user/act/ acts on it.
 */
#ifndef RW_ACTCONF_H
#define RW_ACTCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ratewall.h"

#define RW_CMD_MAX 512         /* --on-event's command line, bytes */
#define RW_CMD_WORDS 32        /* and its words */
#define RW_BGP_COMMUNITIES 8
#define RW_BGP_NEVER_MAX 64
#define RW_BGP_OWN_MAX 16
#define RW_BGP_MAX_ROUTES 100000 /* --bgp-max's ceiling */

/* --on-event-kinds: a bit per enum rw_event_type. */
#define RW_EV_BIT(type) (1u << (type))
#define RW_HOOK_DEFAULT_KINDS (RW_EV_BIT(RW_EV_BANNED) | RW_EV_BIT(RW_EV_UNBANNED))

struct rw_hook_config {
	char command[RW_CMD_MAX]; /* --on-event, as typed; "" = none */
	uint32_t kinds;           /* RW_EV_BIT()s */
	uint64_t timeout_ns;      /* killed (its process group) after this long */
	uint32_t running;         /* commands at once, at most */
	uint32_t rate;            /* commands started a second, at most */
};

/*
 * What a route asks of the upstream: drop everything to a destination of
 * ours (RTBH: BLACKHOLE, RFC 7999), or discard one source's traffic to
 * destinations of ours (a FlowSpec rule, RFC 8955 and 8956).
 */
/*
 * Where --bgp's session helper is looked for after the directory of
 * ratewall's own executable (the Makefile's LIBEXECDIR).
 */
#ifndef RW_LIBEXEC_DIR
#define RW_LIBEXEC_DIR "/usr/lib/ratewall"
#endif

enum rw_route_kind { RW_ROUTE_BLACKHOLE = 0, RW_ROUTE_FLOW = 1 };

/*
 * A route as BGP carries it. A blackhole: the destination prefix addr/len,
 * inside --bgp-own. A flow rule: the traffic from the source prefix
 * addr/len to the destination prefix dst/dst_len (inside --bgp-own), of
 * protocol proto and ports sport, dport where they are not 0 (a flow key's,
 * or a rule's), discarded, or held to rate bytes a second
 * (--bgp-flowspec-rate). The prefixes of --bgp-never and --bgp-own are
 * blackhole-shaped, the rest zero. No padding: it is a journal's key, and
 * routes compare byte by byte.
 */
struct rw_route {
	uint8_t family; /* AF_INET, AF_INET6 */
	uint8_t len;
	uint8_t addr[16]; /* host bits zero */
	uint8_t kind;     /* enum rw_route_kind */
	uint8_t dst_len;  /* a flow rule's destination */
	uint8_t dst[16];
	uint32_t rate;    /* a flow rule's traffic-rate, bytes a second; 0: discard */
	uint8_t proto;    /* a flow rule's IP protocol (IPv6: next header); 0: any */
	uint8_t zero;
	uint16_t sport, dport; /* a flow rule's TCP or UDP ports, host order; 0: any */
	uint16_t zero2;
};
_Static_assert(sizeof(struct rw_route) == 48, "struct rw_route has no padding");

struct rw_bgp_config {
	char api[64];             /* --bgp [HOST:]PORT of gobgpd's API; "" = no BGP */
	char command[256];        /* --bgp-command: the gobgp client */
	char helper[256];         /* --bgp-helper: the session helper; "" = ratewall-gobgp, found */
	char next_hop4[16], next_hop6[48]; /* --bgp-next-hop; "" = the speaker's own */
	uint32_t community[RW_BGP_COMMUNITIES]; /* (high << 16) | low */
	uint32_t ncommunities;
	struct rw_route never[RW_BGP_NEVER_MAX]; /* --bgp-never */
	uint32_t nnever;
	struct rw_route own[RW_BGP_OWN_MAX]; /* --bgp-own: the only destinations routes name */
	uint32_t nown;
	uint32_t max;             /* routes announced at once, at most */
	bool prefixes;            /* --bgp-prefixes: heavy prefixes (--levels) too */
	uint64_t prefix_floor;    /* --bgp-prefix-floor: a heavy prefix is announced from this pps on */
	uint64_t hold_ns;         /* --bgp-hold: an announced route stays at least this long */
	uint32_t owner;           /* --bgp-owner: the community every route carries; 0: of the name */
	bool flowspec_rate;       /* --bgp-flowspec-rate: flow rules hold to --bps, not discard */
	uint64_t victim_floor;    /* --bgp-victim-floor: a destination blackholed from this pps on; 0 off */
	bool dry_run;             /* --bgp-dry-run: say, announce nothing */
};

/* "banned,unbanned,heavy" into RW_EV_BIT()s. -EINVAL, reason in err. */
int rw_parse_event_kinds(const char *s, uint32_t *kinds, char *err, size_t errlen);
/* The names of the kinds --on-event-kinds takes, NULL-ended (completion, help). */
extern const char *const rw_event_kind_names[];
/*
 * A command line into words, the way a shell splits them but with nothing
 * expanded: blanks separate, '...' and "..." quote, \ escapes the next
 * character. The words point into buf (at least strlen(s) + 1 bytes);
 * argv ends with NULL. The number of words, or -EINVAL (reason in err):
 * none, an open quote, more than max - 1 words.
 */
int rw_split_words(const char *s, char *buf, char **argv, int max, char *err, size_t errlen);
/* A key's own address (or a prefix key's prefix) as a route of len bits (0: the whole address). */
struct rw_route rw_route_of_key(const struct rw_key *key, unsigned int len);
/* "198.18.0.0/15" or an address alone (its host route), as rules take them. -EINVAL, reason in err. */
int rw_route_parse(const char *s, struct rw_route *r, char *err, size_t errlen);
/*
 * "198.18.0.0/15"; a flow rule "flow 198.18.0.5/32 > 203.0.113.0/24", then
 * " proto 17", " sport 5353", " dport 53" where it has them, " rate 125000"
 * when held to it.
 */
void rw_route_format(const struct rw_route *r, char *buf, size_t len);
/* Whether the prefixes (addr/len) of a and b share an address (one holds the other). */
bool rw_route_overlaps(const struct rw_route *a, const struct rw_route *b);
/* Whether prefix p (addr/len) lies whole inside prefix in. */
bool rw_route_within(const struct rw_route *p, const struct rw_route *in);
/* "65535:666,64512:1" into communities. -EINVAL, reason in err. */
int rw_parse_communities(const char *s, struct rw_bgp_config *b, char *err, size_t errlen);
/* "192.0.2.1", "2001:db8::1" or both, comma-separated. -EINVAL, reason in err. */
int rw_parse_next_hops(const char *s, struct rw_bgp_config *b, char *err, size_t errlen);
/* "198.51.100.0/24,2001:db8:1::/48": more prefixes never announced. -EINVAL, reason in err. */
int rw_parse_never(const char *s, struct rw_bgp_config *b, char *err, size_t errlen);
/* --bgp-owner ASN:VALUE into b->owner. -EINVAL, reason in err. */
int rw_parse_owner(const char *s, struct rw_bgp_config *b, char *err, size_t errlen);
/*
 * The owner community of an instance named name when --bgp-owner is not
 * given: 64512 (private use) and a 16-bit hash of the name, never 0, the
 * same for every run of the name.
 */
uint32_t rw_bgp_default_owner(const char *name);
/* "203.0.113.0/24,2001:db8:1::/48": --bgp-own. -EINVAL, reason in err. */
int rw_parse_own(const char *s, struct rw_bgp_config *b, char *err, size_t errlen);

#endif
