/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Loading the embedded BPF object and attaching it to an interface. */
#ifndef RW_LOADER_H
#define RW_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "cli/config.h"
#include "kernel/enforced.h"
#include "kernel/memplan.h"
#include "kernel/table.h"

struct ratewall_bpf;

/* Everything fixed at load time. Shared by `ratewall run` and the BPF tests. */
struct rw_load_params {
	RW_ENFORCED_MEMBERS;    /* what the program enforces (kernel/enforced.h) */
	uint32_t max_rules;     /* rule_stats entries: rules in force at once; 0 = RW_MAX_RULES */
	uint64_t hash_seed;     /* 0: a random one */
	uint64_t hash_clear;    /* tests only: these bits of every hash are cleared (collisions) */
	bool test_clock;
	/* Where libbpf's own messages go (--verbose); NULL: nowhere. */
	libbpf_print_fn_t libbpf_log;
	uint32_t nifaces;       /* per-interface totals for these; 0: all in one entry */
	uint32_t ifindex[RW_MAX_IFACES];
	/* Called after configuration, before the kernel load (e.g. to reuse pinned maps). */
	int (*prepare)(struct ratewall_bpf *skel, void *arg);
	void *prepare_arg;
	/*
	 * Where the verifier's count of instructions goes, whether it accepted
	 * the program or refused it with E2BIG (NULL: nowhere; 0: not known).
	 */
	uint32_t *verified_insns;
	/* Loaded to join libxdp's dispatcher (kernel/multiprog.h) rather than an interface. */
	bool multi;
	unsigned int xdp_priority; /* multi: its run priority there (--xdp-priority) */
};

/* Past this many instructions the kernel's verifier gives up (E2BIG). */
#define RW_VERIFIER_INSNS_LIMIT 1000000u

/* Opens, configures and loads the skeleton. Negative errno on failure. */
int rw_bpf_load(const struct rw_load_params *p, struct ratewall_bpf **out);

/* The maps the loader reads each tick, from a skeleton or from pins. */
struct rw_maps {
	struct rw_table_fds table;
	int window, stats, thresholds, rules, rule_hint, match_index, rule_ports, rule_stats;
	int samples, events;
	int pcap_keys, pcap_ring, pcap_nets; /* --samples */
};
void rw_maps_of(const struct ratewall_bpf *skel, struct rw_maps *m);

uint32_t rw_possible_cpus(void);

struct rw_attachment {
	int ifindex;
	int link_fd;
	enum rw_xdp_mode mode; /* native or generic, as attached */
	int native_err;        /* --xdp-mode auto fell back to generic: why native was refused (-errno) */
	bool multi;            /* in libxdp's dispatcher (link_fd -1: libxdp pins its own link) */
	bool keep;             /* --persist: stays in the dispatcher when the loader leaves */
	uint32_t prog_id;      /* multi: the program to take out of the dispatcher */
};

/* How the pinned record keeps an attachment's mode: native or generic, and this bit if multi. */
#define RW_XDP_IN_DISPATCHER 0x100u
static inline uint32_t rw_xdp_stored_mode(const struct rw_attachment *at)
{
	return (uint32_t)at->mode | (at->multi ? RW_XDP_IN_DISPATCHER : 0);
}
/* "native", "generic", "multi native" or "multi generic". */
static inline const char *rw_xdp_mode_name(uint32_t stored)
{
	bool native = (stored & ~RW_XDP_IN_DISPATCHER) == RW_XDP_NATIVE;

	if (stored & RW_XDP_IN_DISPATCHER)
		return native ? "multi native" : "multi generic";
	return native ? "native" : "generic";
}

/*
 * Attaches prog_fd through a BPF link, so the program goes away with the
 * process however it ends (unless the link is pinned). Refuses an interface
 * that already has XDP (libxdp's dispatcher: rw_xdp_attach_as).
 * Returns 0 or a negative errno with a one-line reason in err.
 */
int rw_xdp_attach(int prog_fd, int ifindex, const char *ifname, enum rw_xdp_mode mode,
		  struct rw_attachment *at, char *err, size_t errlen);
/*
 * rw_xdp_attach, or a place in libxdp's dispatcher when multi (at the
 * priority the program was loaded with: rw_load_params.xdp_priority).
 */
int rw_xdp_attach_as(int prog_fd, int ifindex, const char *ifname, enum rw_xdp_mode mode, bool multi,
		     struct rw_attachment *at, char *err, size_t errlen);
void rw_xdp_detach(struct rw_attachment *at);
/* False once the interface is gone: the kernel then detaches the link itself. */
bool rw_xdp_still_attached(const struct rw_attachment *at);

#endif
