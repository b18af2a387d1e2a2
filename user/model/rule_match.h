/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of a rule after its prefix that picks packets by protocol, port,
 * TCP flags or ICMP type (struct rw_match), as operators write it:
 *   tcp dport 22                  udp sport 53,123,11211
 *   tcp flags syn                 (SYN set, ACK clear)    tcp flags rst
 *   tcp dport 8000-8100 flags ack icmp type echo-request  47 (GRE)
 * or a class of packets whose header hides from those (enum rw_l4_class),
 * of a protocol or of any:
 *   udp frag (a fragment after the first)   tcp tiny-frag   long-chain (IPv6)
 */
#ifndef RW_RULE_MATCH_H
#define RW_RULE_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "ratewall.h"

/* The protocol a word names (tcp, udp, icmp, icmpv6, sctp, gre, esp, ah, or 1..255), or -1. */
int rw_proto_parse(const char *word);
/*
 * A match from tok[*i] on (a protocol, then sport/dport/flags/type), for an
 * address of `family`; *i is left on the first word after it. -EINVAL with
 * the reason in err. A word that is no protocol leaves *i and m empty (0).
 */
int rw_match_parse(char **tok, int n, int *i, unsigned int family, struct rw_match *m, char *err,
		   size_t errlen);
/* The match as it is written ("" for none), for a rule's text. */
void rw_match_format(const struct rw_match *m, char *buf, size_t len);
bool rw_match_equal(const struct rw_match *a, const struct rw_match *b);
/* Whether there is a match at all (a protocol or a class), beside the prefix. */
bool rw_match_any(const struct rw_match *m);
/* Whether the match reads more than the protocol (ports, flags, a type). */
bool rw_match_reads_l4(const struct rw_match *m);
/*
 * Whether a whole packet of this protocol, ports, TCP flags and ICMP type
 * meets it (the tests' model; a class's match meets none).
 */
bool rw_match_meets(const struct rw_match *m, unsigned int proto, unsigned int sport,
		    unsigned int dport, unsigned int flags, unsigned int type);

#endif
