// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "act/record.h"

#include <bpf/bpf.h>
#include <errno.h>
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

int rw_act_record_read(int fd, struct rw_act_record *r)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.max_entries != 1 ||
	    info.value_size != sizeof(*r))
		return -EPROTO;
	if (bpf_map_lookup_elem(fd, &zero, r))
		return -errno;
	r->hook_command[sizeof(r->hook_command) - 1] = '\0';
	r->bgp.api[sizeof(r->bgp.api) - 1] = '\0';
	r->bgp.command[sizeof(r->bgp.command) - 1] = '\0';
	return 0;
}
