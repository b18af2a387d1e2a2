/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --samples DIR: the data path's sampled frames (bpf/samples.h, from the
 * `pcap_ring` ring buffer, which the tick drains into rw_pcap_frame) written
 * as DIR/<time>-<key>.pcap through libpcap, one file an event, with the
 * frames' nanosecond times. The tick holds at most RW_PCAP_TICK_FRAMES
 * frames and opens at most RW_PCAP_TICK_FILES files; the frames beyond are
 * counted as not written, and so are frames that do not fit under
 * --samples-max once the oldest files are gone, frames of a file removed for
 * it, and frames a file would not take. (libpcap's headers and libbpf's both define struct
 * bpf_insn: this file's unit includes libpcap's alone.)
 */
#ifndef RW_ACT_PCAP_H
#define RW_ACT_PCAP_H

#include <stdint.h>
#include <stddef.h>
#include "model/samples.h"
#include "ratewall.h"

/*
 * A tick's work, at most: frames held (and written) and files opened; each
 * file is opened once a tick, its frames written together.
 */
#define RW_PCAP_TICK_FRAMES 4096
#define RW_PCAP_TICK_FILES 256

struct pcap;
struct pcap_dumper;

/* A frame of the tick, and the file it goes to. */
struct rw_pcap_held {
	char name[RW_SAMPLE_NAMELEN];
	struct rw_pcap_frame fr;
};

struct rw_pcap_out {
	char dir[4096];
	struct rw_sample_dir files;
	struct pcap *dead;
	struct rw_pcap_held *held; /* RW_PCAP_TICK_FRAMES */
	uint32_t nheld;
	int64_t name_offset;      /* wall - the program's clock at the start: names only */
	int64_t wall_minus_clock; /* this tick's: the frames' times */
	uint64_t frames;          /* written, ever */
	uint64_t not_written;     /* over a tick's bounds, over --samples-max, or refused by a file */
	uint64_t made;            /* files made, ever */
};

/* Whether DIR is a directory this process can create files in: 0, or -errno with why. */
int rw_pcap_dir_check(const char *dir, char *err, size_t errlen);
/*
 * Starts the writer: reads DIR's samples (the bound counts those already
 * there, oldest removed first). 0 or -errno.
 */
int rw_pcap_start(struct rw_pcap_out *o, const char *dir, uint64_t max, int64_t wall_minus_clock);
/* The name of the file of key's event at clock_ns (the program's clock), as the writer names it. */
void rw_pcap_name_of(const struct rw_pcap_out *o, uint64_t clock_ns, const struct rw_key *key,
		     char *buf, size_t len);
/* A tick's start, before the ring is drained: its budget and its clock. */
void rw_pcap_tick_begin(struct rw_pcap_out *o, int64_t wall_minus_clock);
/* One record of the ring (struct rw_pcap_frame): held for the tick's end, or counted as not written. */
void rw_pcap_frame(struct rw_pcap_out *o, const void *data, size_t size);
/* A tick's end, once the ring is drained: the frames held, written file by file. */
void rw_pcap_tick_end(struct rw_pcap_out *o);
void rw_pcap_stop(struct rw_pcap_out *o);

#endif
