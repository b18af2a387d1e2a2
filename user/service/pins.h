/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A persistent instance's pinned state in bpffs, ROOT/NAME/:
 *   meta          the loader's record (struct rw_meta): layout version,
 *                 what the program enforces (kernel/enforced.h), start,
 *                 loader pid, heartbeat, last errors
 *   prog          the XDP program
 *   map_<name>    every map of the program
 *   link_<iface>  one XDP link per interface
 *   heavy         with --levels: the last tick's heavy prefixes (struct
 *                 rw_heavy_record), for `ratewall top`
 *   act           with --on-event or --bgp: what the loader acts with, and
 *                 its counts (struct rw_act_record, act/record.h)
 *   bgp_routes    with --bgp: the routes announced (bgp/journal.h)
 * Whatever lives here outlives the loader: the kernel keeps enforcing, and
 * the next loader adopts it. `meta` is pinned last when an instance is created:
 * a directory without it is a creation that never finished.
 */
#ifndef RW_PINS_H
#define RW_PINS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/config.h"
#include "kernel/enforced.h"
#include "rank/hhh.h"

#define RW_META_MAGIC "ratewall"
#define RW_META_ERRORS 10
#define RW_META_ERROR_LEN 120

struct rw_meta_iface {
	char name[IF_NAMESIZE];
	uint32_t ifindex;
	uint32_t mode; /* enum rw_xdp_mode as attached */
};

struct rw_meta_error {
	uint64_t at_ns; /* CLOCK_REALTIME */
	char msg[RW_META_ERROR_LEN];
};

/* The record in `meta`. Magic and layout come first and never move. */
struct rw_meta {
	char magic[8];
	uint32_t layout;     /* RW_LAYOUT_VERSION of the loader that created it */
	uint32_t size;       /* sizeof(struct rw_meta) at that version */
	char name[RW_NAME_MAX];
	RW_ENFORCED_MEMBERS;     /* a loader that would enforce otherwise must --replace */
	uint64_t pps, bps, window_ns; /* as given: the limits above are per window of them */
	uint64_t hash_seed;
	uint32_t ncpus;          /* possible CPUs: per-CPU state is sized by them */
	uint32_t nifaces;
	struct rw_meta_iface ifaces[RW_MAX_IFACES];
	uint64_t netns_ino;      /* network namespace of the interfaces */
	uint64_t created_ns;     /* CLOCK_REALTIME */
	uint64_t start_clock_ns; /* flow state's start on the program's clock (window spans) */
	uint64_t loader_start_ns, heartbeat_ns; /* CLOCK_REALTIME; 0 = never */
	uint64_t interval_ns;    /* the loader's tick: a heartbeat is due that often */
	uint32_t loader_pid;     /* 0 once a loader left cleanly */
	uint32_t loads;          /* loaders that ran it: 1 + adoptions + replacements */
	uint32_t nerrors;        /* ever recorded; the last RW_META_ERRORS are kept */
	struct rw_meta_error errors[RW_META_ERRORS];
};

/* The heavy prefixes a loader found last tick (the samples behind them reach it only). */
#define RW_HEAVY_MAX 32
struct rw_heavy_record {
	uint64_t at_ns;         /* CLOCK_REALTIME of the tick that wrote it */
	uint64_t total_packets; /* the window's keyed packets then: what shares are of */
	uint32_t share_pct;     /* --hhh-share */
	uint32_t n;
	struct rw_hhh_item item[RW_HEAVY_MAX];
};

struct rw_instance {
	char dir[RW_PIN_ROOT_MAX + RW_NAME_MAX + 1];
	int dir_fd;  /* held with an exclusive flock while a loader runs it */
	int meta_fd;
	struct rw_meta meta;
};

/* Makes ROOT exist on a BPF filesystem (mounting bpffs on /sys/fs/bpf if needed). */
int rw_pins_root(const char *root, char *err, size_t errlen);

/* dir/what, or -ENAMETOOLONG. */
int rw_pin_path(char *buf, size_t len, const char *dir, const char *what);
/* The pin names of a map and of an interface's link. */
void rw_pin_map_name(char *buf, size_t len, const char *map);
void rw_pin_link_name(char *buf, size_t len, const char *ifname);
/* Opens dir/what, dir/map_<map>, dir/link_<ifname>: an fd, or a negative errno. */
int rw_pin_open(const char *dir, const char *what);
int rw_pin_open_map(const char *dir, const char *map);
int rw_pin_open_link(const char *dir, const char *ifname);
/* Pins fd as dir/what, replacing whatever was pinned there. 0 or -errno. */
int rw_pin_fd(const char *dir, int fd, const char *what);
/* dir/what and dir/map_<map> for reading only: the kernel refuses every write through them. */
int rw_pin_open_ro(const char *dir, const char *what);
int rw_pin_open_map_ro(const char *dir, const char *map);
/* A program's id, 0 when it cannot be read. */
uint32_t rw_prog_id(int prog_fd);
/*
 * The program's .bss (its globals) mapped, size bytes: the map of its maps
 * whose name ends in ".bss" and whose value is size bytes but the struct's
 * tail padding (a program pinned by a loader of this layout: its variables
 * sit where this skeleton says). NULL when there is none such, or it cannot
 * be mapped. An adopted program's skeleton is not this loader's;
 * rw_prog_bss_unmap gives it back.
 */
void *rw_prog_bss_map(int prog_fd, size_t size);
void rw_prog_bss_unmap(void *bss, size_t size);
/*
 * Interface index an XDP link is attached to, 0 when detached or unreadable;
 * its program's id and its own id in *prog_id, *link_id (either may be NULL).
 */
uint32_t rw_link_target(int link_fd, uint32_t *prog_id, uint32_t *link_id);

/* A new, empty meta map (not pinned). Returns its fd or a negative errno. */
int rw_meta_create(void);
/*
 * Reads the record in a meta map. -EPROTO with the reason in err when it is
 * not a ratewall record or is of another layout version: never misread (of
 * another version, only its magic, layout and size are filled in: see
 * rw_meta_foreign).
 */
int rw_meta_read(int fd, struct rw_meta *m, char *err, size_t errlen);
/* Whether rw_meta_read refused m as a ratewall record of another layout version. */
bool rw_meta_foreign(const struct rw_meta *m);
int rw_meta_write(int fd, const struct rw_meta *m);
void rw_meta_error(struct rw_meta *m, const char *msg);

/* A new, empty heavy-prefix record map (not pinned): its fd or a negative errno. */
int rw_heavy_create(void);
int rw_heavy_write(int fd, const struct rw_heavy_record *r);
/* dir/heavy, read through a read-only fd: -ENOENT when there is none, -EPROTO when not one. */
int rw_heavy_read(const char *dir, struct rw_heavy_record *r);

/*
 * Opens ROOT/NAME: -ENOENT when there is no such instance; -EPROTO (reason in
 * err) when its record cannot be used; 0 with dir_fd and meta filled (meta_fd
 * read-only: the loader writes its record through its own fd).
 */
int rw_instance_open(const char *root, const char *name, struct rw_instance *in, char *err,
		     size_t errlen);
void rw_instance_close(struct rw_instance *in);
/* Takes the loader's lock: false (errno EWOULDBLOCK) while another loader holds it. */
bool rw_instance_lock(int dir_fd);
/* Whether a loader holds the instance's lock now. */
bool rw_instance_loader_alive(int dir_fd);

/* Detaches every link in dir, then removes every pin and dir itself. */
int rw_instance_remove(const char *dir);
/* The same, but the pins named in keep (NULL-terminated) stay, and so does dir if any did. */
int rw_instance_remove_keeping(const char *dir, const char *const *keep);

/*
 * Calls fn for each link pinned in dir (link_<ifname>), with the interface's
 * name and the link's fd (closed after fn); stops at a nonzero return. Every
 * layout version pins its links so: what an instance of another still tells.
 */
int rw_instance_links_each(const char *dir, int (*fn)(const char *ifname, int link_fd, void *arg),
			   void *arg);
/* Unpins everything in dir but the pins named in keep (NULL-terminated); detaches nothing. */
int rw_instance_unpin_keeping(const char *dir, const char *const *keep);

/* Calls fn for each instance directory under root; stops at a nonzero return. */
int rw_instances_each(const char *root, int (*fn)(const char *name, void *arg), void *arg);

/* This process's network namespace (inode), to tell same-named interfaces apart. */
uint64_t rw_netns_ino(void);

#endif
