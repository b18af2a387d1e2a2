// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/loader.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kernel/multiprog.h"
#include "kernel/window.h"
#include "model/errmsg.h"
#include "ratewall.h"
#include "ratewall.skel.h"

uint32_t rw_possible_cpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? (uint32_t)n : 1;
}

static uint64_t random_seed(void)
{
	uint64_t seed = 0;

	/* Without entropy, the clock still keeps seeds apart across loads. */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	return seed | 1;
}

/*
 * A field the program reads as is goes to its constant cfg_<field>, of the
 * field's size: a constant renamed or resized in bpf/ fails the build here.
 */
#define RODATA_as_is(type, field)                                                          \
	_Static_assert(sizeof(r->cfg_##field) == sizeof(type), "cfg_" #field " is a " #type); \
	r->cfg_##field = p->field;
#define RODATA_derived(type, field)
#define RODATA_OF(type, field, option, text, rodata, change) RODATA_##rodata(type, field)

/* The program's constants: the enforced fields, and what the loader derives. */
static void set_rodata(struct ratewall_bpf__rodata *r, const struct rw_load_params *p,
		       uint32_t ncpus, uint32_t nbuckets)
{
	RW_ENFORCED_FIELDS(RODATA_OF)
	r->cfg_cap_packets = rw_limit_threshold(p->limit_packets, ncpus, RW_MAX_THRESHOLD);
	r->cfg_cap_bytes = rw_limit_threshold(p->limit_bytes, ncpus, RW_MAX_THRESHOLD_BYTES);
	r->cfg_nr_cpus = ncpus;
	r->cfg_nbuckets = nbuckets; /* of max_flows */
	r->cfg_entries = nbuckets * RW_WAYS;
	r->cfg_bucket_size = rw_bucket_size(p->slots);
	r->cfg_hash_mask = ~p->hash_clear;
	r->cfg_bank_ns = rw_bank_of(p->burst_ns);
	/* Other kinds ranked: the parser reads the whole flow, every kind's source. */
	r->cfg_parse_kind = p->rank_mask ? RW_KIND_FLOW : p->key_kind;
	r->cfg_v6_prefix = p->v6_prefix ? p->v6_prefix : RW_DEFAULT_V6_PREFIX;
	r->cfg_hash_seed = p->hash_seed ? p->hash_seed : random_seed();
	r->cfg_test_clock = p->test_clock;
	rw_crowd_lc_table((uint32_t *)r->cfg_crowd_lc);
	r->cfg_nr_ifaces = p->nifaces;
	for (uint32_t i = 0; i < p->nifaces && i < RW_MAX_IFACES; i++)
		r->cfg_ifindex[i] = p->ifindex[i];
}

/* The verifier's statistics (BPF_LOG_STATS) say "processed N insns (limit ...". */
static uint32_t processed_insns(const char *log)
{
	const char *at = strstr(log, "processed ");

	return at ? (uint32_t)strtoul(at + strlen("processed "), NULL, 10) : 0;
}

/*
 * Opens the skeleton, configures it for p and loads it; stats, when given,
 * gets the verifier's statistics (BPF_LOG_STATS, a few lines: a log that
 * overflows fails the load, so a refused load's second try only asks).
 */
static int load_skeleton(const struct rw_load_params *p, uint32_t ncpus, uint32_t nbuckets,
			 char *stats, size_t stats_len, struct ratewall_bpf **out)
{
	struct ratewall_bpf *skel = ratewall_bpf__open();
	int err, anchor = -1;

	if (!skel)
		return -errno;
	set_rodata(skel->rodata, p, ncpus, nbuckets);

	err = bpf_map__set_max_entries(skel->maps.dir, nbuckets);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.keys, nbuckets * RW_WAYS);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.hot, ncpus * nbuckets * RW_WAYS);
	if (!err)
		err = bpf_map__set_value_size(skel->maps.hist, rw_hist_size(p->slots));
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.hist, nbuckets * RW_WAYS);
	if (!err)
		err = bpf_map__set_value_size(skel->maps.sketch, rw_bucket_size(p->slots));
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.sketch,
					       ncpus * RW_SKETCH_ROWS * RW_SKETCH_COLS);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.crowd, rw_crowd_entries(p->slots));
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.rule_stats,
					       p->max_rules ? p->max_rules : RW_MAX_RULES);
	/* --samples off: the smallest ring and key set the kernel takes, never written. */
	if (!err && !p->pcap)
		err = bpf_map__set_max_entries(skel->maps.pcap_ring, (uint32_t)getpagesize());
	if (!err && !p->pcap)
		err = bpf_map__set_max_entries(skel->maps.pcap_keys, 1);
	if (!err && !p->pcap)
		err = bpf_map__set_max_entries(skel->maps.pcap_nets, 1);
	if (!err && stats) {
		err = bpf_program__set_log_level(skel->progs.ratewall_xdp, 4 /* BPF_LOG_STATS */);
		if (!err)
			err = bpf_program__set_log_buf(skel->progs.ratewall_xdp, stats, stats_len);
	}
	if (!err && p->prepare)
		err = p->prepare(skel, p->prepare_arg);
	if (!err && p->multi) {
		anchor = rw_multi_prepare(skel->obj, skel->progs.ratewall_xdp, p->xdp_priority);
		err = anchor < 0 ? anchor : 0;
	}
	if (!err)
		err = ratewall_bpf__load(skel);
	if (anchor >= 0)
		close(anchor);
	if (err) {
		ratewall_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

/*
 * E2BIG is the maps' (one too big for the kernel) or the verifier's (more
 * instructions than it walks): a second load that only asks the verifier's
 * count tells which.
 */
static uint32_t refused_insns(const struct rw_load_params *p, uint32_t ncpus, uint32_t nbuckets)
{
	static char stats[64 * 1024];
	/* libbpf's messages (-v) were said by the first load. */
	libbpf_print_fn_t said = libbpf_set_print(NULL);
	struct ratewall_bpf *skel;

	stats[0] = 0;
	if (!load_skeleton(p, ncpus, nbuckets, stats, sizeof(stats), &skel))
		ratewall_bpf__destroy(skel);
	libbpf_set_print(said);
	return processed_insns(stats);
}

int rw_bpf_load(const struct rw_load_params *p, struct ratewall_bpf **out)
{
	uint32_t ncpus = rw_possible_cpus(), nbuckets = rw_table_buckets(p->max_flows);
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	struct ratewall_bpf *skel;
	int err;

	libbpf_set_print(p->libbpf_log);
	if (p->verified_insns)
		*p->verified_insns = 0;
	/* Every CPU's records of every entry are one array: its index must fit 32 bits. */
	if (ncpus > RW_MAX_CPUS || (uint64_t)ncpus * nbuckets * RW_WAYS > 0xffffffffULL)
		return -E2BIG;
	if (p->key_kind >= RW_KIND_COUNT || p->v6_prefix > 128 ||
	    (p->rank_mask & ((1u << p->key_kind) | ~((1u << RW_KIND_COUNT) - 1))))
		return -EINVAL;
	err = load_skeleton(p, ncpus, nbuckets, NULL, 0, &skel);
	if (err == -E2BIG && p->verified_insns)
		*p->verified_insns = refused_insns(p, ncpus, nbuckets);
	if (err)
		return err;
	if (p->verified_insns &&
	    !bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.ratewall_xdp), &info, &len))
		*p->verified_insns = info.verified_insns;
	*out = skel;
	return 0;
}

void rw_maps_of(const struct ratewall_bpf *skel, struct rw_maps *m)
{
	m->table = (struct rw_table_fds){ .dir = bpf_map__fd(skel->maps.dir),
					  .keys = bpf_map__fd(skel->maps.keys),
					  .hot = bpf_map__fd(skel->maps.hot),
					  .hist = bpf_map__fd(skel->maps.hist) };
	m->window = bpf_map__fd(skel->maps.window);
	m->stats = bpf_map__fd(skel->maps.stats);
	m->thresholds = bpf_map__fd(skel->maps.thresholds);
	m->rules = bpf_map__fd(skel->maps.rules);
	m->rule_hint = bpf_map__fd(skel->maps.rule_hint);
	m->match_index = bpf_map__fd(skel->maps.match_index);
	m->rule_ports = bpf_map__fd(skel->maps.rule_ports);
	m->rule_stats = bpf_map__fd(skel->maps.rule_stats);
	m->samples = bpf_map__fd(skel->maps.samples);
	m->events = bpf_map__fd(skel->maps.events);
	m->pcap_keys = bpf_map__fd(skel->maps.pcap_keys);
	m->pcap_ring = bpf_map__fd(skel->maps.pcap_ring);
	m->pcap_nets = bpf_map__fd(skel->maps.pcap_nets);
}

#define fail rw_fail

static int link_xdp(int prog_fd, int ifindex, __u32 flags)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	int fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);

	return fd < 0 ? -errno : fd;
}

int rw_xdp_attach(int prog_fd, int ifindex, const char *ifname, enum rw_xdp_mode mode,
		  struct rw_attachment *at, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int fd;

	at->ifindex = ifindex;
	at->link_fd = -1;
	at->native_err = 0;
	if (bpf_xdp_query(ifindex, 0, &q) == 0 && q.attach_mode != XDP_ATTACHED_NONE)
		return fail(err, errlen, -EBUSY,
			    "%s already has an XDP program (id %u); ratewall will not replace it "
			    "(to run both, load it through libxdp's dispatcher, e.g. xdp-loader load "
			    "%s PROGRAM.o, then start ratewall again; to remove it: ip link set dev %s "
			    "xdp off; if ratewall --persist pinned it: ratewall stop %s)",
			    ifname, q.prog_id ? q.prog_id : q.skb_prog_id, ifname, ifname, ifname);

	if (mode == RW_XDP_NATIVE || mode == RW_XDP_AUTO) {
		fd = link_xdp(prog_fd, ifindex, XDP_FLAGS_DRV_MODE);
		if (fd >= 0) {
			at->link_fd = fd;
			at->mode = RW_XDP_NATIVE;
			return 0;
		}
		if (mode == RW_XDP_NATIVE || fd == -EBUSY || fd == -EPERM)
			return fail(err, errlen, fd,
				    "cannot attach native XDP to %s: %s%s", ifname, strerror(-fd),
				    fd == -EBUSY || fd == -EPERM ? "" :
				    " (the driver may not support it; try --xdp-mode generic)");
		at->native_err = fd; /* the caller says it: generic runs later and costs more */
	}
	fd = link_xdp(prog_fd, ifindex, XDP_FLAGS_SKB_MODE);
	if (fd < 0)
		return fail(err, errlen, fd, "cannot attach generic XDP to %s: %s", ifname,
			    strerror(-fd));
	at->link_fd = fd;
	at->mode = RW_XDP_GENERIC;
	return 0;
}

int rw_xdp_attach_as(int prog_fd, int ifindex, const char *ifname, enum rw_xdp_mode mode, bool multi,
		     struct rw_attachment *at, char *err, size_t errlen)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int e;

	memset(at, 0, sizeof(*at));
	if (!multi)
		return rw_xdp_attach(prog_fd, ifindex, ifname, mode, at, err, errlen);
	at->ifindex = ifindex;
	at->link_fd = -1;
	e = rw_multi_attach(prog_fd, ifindex, ifname, &at->mode, err, errlen);
	if (e)
		return e;
	at->multi = true;
	if (!bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		at->prog_id = info.id;
	return 0;
}

bool rw_xdp_still_attached(const struct rw_attachment *at)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	if (at->multi)
		return rw_multi_attached(at->prog_id, at->ifindex);
	memset(&info, 0, sizeof(info));
	if (at->link_fd < 0 || bpf_obj_get_info_by_fd(at->link_fd, &info, &len))
		return false;
	return info.xdp.ifindex != 0;
}

void rw_xdp_detach(struct rw_attachment *at)
{
	/* libxdp pins the dispatcher's link: leaving it is asked for (the others stay). */
	if (at->multi && !at->keep && at->prog_id)
		rw_multi_detach(at->prog_id, at->ifindex);
	at->multi = false;
	/* Closing the only reference to the link detaches the program. */
	if (at->link_fd >= 0)
		close(at->link_fd);
	at->link_fd = -1;
}
