// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "act/record.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int rw_act_record_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rw_act", sizeof(__u32),
				sizeof(struct rw_act_record), 1, &opts);

	return fd < 0 ? -errno : fd;
}

int rw_act_record_write(int fd, const struct rw_act_record *r)
{
	__u32 zero = 0;

	return bpf_map_update_elem(fd, &zero, r, BPF_ANY) ? -errno : 0;
}

/*
 * The record's earlier forms, told apart by their size (it has no version):
 * each the same up to bgp and in bgp up to the client (api, command); then,
 * at these offsets in bgp, what a withdrawal needs. Before --bgp-helper
 * there was no helper (the one found beside ratewall), before --bgp-owner
 * no owner (4240 bytes both before and after it: a record made before holds
 * 0 there, the padding of a zeroed configuration). A new form of the record
 * adds today's as a row here: the assertion below fails until it does.
 */
struct older_form {
	uint32_t size;
	uint32_t next_hop4, next_hop6, community, ncommunities, owner; /* 0: none */
};
static const struct older_form older_forms[] = {
	{ 2480, 320, 336, 384, 416, 0 },    /* the first */
	{ 2504, 320, 336, 384, 416, 0 },    /* --bgp-hold, --bgp-prefix-floor */
	{ 4240, 320, 336, 384, 416, 3336 }, /* --bgp-own, then --bgp-owner */
	{ 4560, 320, 336, 384, 416, 3656 }, /* a flow rule's rate */
	{ 4576, 320, 336, 384, 416, 3656 }, /* --bgp-victim-floor */
};
_Static_assert(sizeof(struct rw_act_record) == 5472 && offsetof(struct rw_act_record, bgp) == 896,
	       "a new form of the act record: add the one before it to older_forms");

/* An earlier form's value as today's record: what status shows and stop withdraws with. */
static void from_older(const struct older_form *f, const uint8_t *v, struct rw_act_record *r)
{
	const uint8_t *b = v + offsetof(struct rw_act_record, bgp);

	memset(r, 0, sizeof(*r));
	memcpy(r, v, offsetof(struct rw_act_record, bgp));
	memcpy(r->bgp.api, b, sizeof(r->bgp.api) + sizeof(r->bgp.command));
	memcpy(r->bgp.next_hop4, b + f->next_hop4, sizeof(r->bgp.next_hop4));
	memcpy(r->bgp.next_hop6, b + f->next_hop6, sizeof(r->bgp.next_hop6));
	memcpy(r->bgp.community, b + f->community, sizeof(r->bgp.community));
	memcpy(&r->bgp.ncommunities, b + f->ncommunities, sizeof(r->bgp.ncommunities));
	if (f->owner)
		memcpy(&r->bgp.owner, b + f->owner, sizeof(r->bgp.owner));
}

int rw_act_record_read(int fd, struct rw_act_record *r)
{
	static uint8_t buf[sizeof(struct rw_act_record)];
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	const struct older_form *form = NULL;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	for (size_t i = 0; i < sizeof(older_forms) / sizeof(older_forms[0]); i++) {
		if (info.value_size == older_forms[i].size)
			form = &older_forms[i];
	}
	if (info.type != BPF_MAP_TYPE_ARRAY || info.max_entries != 1 ||
	    (info.value_size != sizeof(*r) && !form))
		return -EPROTO;
	if (bpf_map_lookup_elem(fd, &zero, form ? (void *)buf : (void *)r))
		return -errno;
	if (form)
		from_older(form, buf, r);
	r->bgp.ncommunities = r->bgp.ncommunities < RW_BGP_COMMUNITIES ? r->bgp.ncommunities :
									  RW_BGP_COMMUNITIES;
	r->hook_command[sizeof(r->hook_command) - 1] = '\0';
	r->bgp.api[sizeof(r->bgp.api) - 1] = '\0';
	r->bgp.command[sizeof(r->bgp.command) - 1] = '\0';
	return 0;
}
