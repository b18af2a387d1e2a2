// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/multiprog.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "model/errmsg.h"
#include "xdp_pass_all.skel.h"

#define fail rw_fail

/* libxdp's own messages would interleave with ratewall's; its errors are said here. */
static int quiet(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static struct xdp_multiprog *multiprog_of(int ifindex)
{
	struct xdp_multiprog *mp;

	libxdp_set_print(quiet);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	return libxdp_get_error(mp) ? NULL : mp;
}

/*
 * Whether program id is libxdp's dispatcher, by its name. libxdp is asked
 * about an interface only then: for a legacy program, libxdp 1.3 kept a
 * descriptor of it open past xdp_multiprog__close, which held a program an
 * upgrade had swapped out in the kernel for as long as the loader ran.
 */
static bool is_dispatcher(uint32_t id)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);
	bool yes;

	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	yes = !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	      strncmp(info.name, "xdp_dispatcher", sizeof(info.name)) == 0;
	close(fd);
	return yes;
}

enum rw_xdp_holder rw_xdp_holder_of(int ifindex, uint32_t *prog_id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_multiprog *mp;
	enum rw_xdp_holder h;

	*prog_id = 0;
	if (bpf_xdp_query(ifindex, 0, &q) || q.attach_mode == XDP_ATTACHED_NONE)
		return RW_XDP_FREE;
	*prog_id = q.prog_id ? q.prog_id : q.skb_prog_id;
	if (!is_dispatcher(*prog_id))
		return RW_XDP_FOREIGN;
	mp = multiprog_of(ifindex);
	h = mp && !xdp_multiprog__is_legacy(mp) ? RW_XDP_DISPATCHER : RW_XDP_FOREIGN;
	xdp_multiprog__close(mp);
	return h;
}

bool rw_multi_wanted(enum rw_xdp_mode mode, const uint32_t *ifindex, uint32_t n)
{
	uint32_t id;

	if (mode == RW_XDP_MULTI)
		return true;
	for (uint32_t i = 0; i < n; i++) {
		if (rw_xdp_holder_of((int)ifindex[i], &id) == RW_XDP_DISPATCHER)
			return true;
	}
	return false;
}

/*
 * XDP_RUN_CONFIG(name) is a variable _name in the section .xdp_run_config
 * whose type is a struct of members `int (*priority)[N]`: N, an array's
 * length, is the value. The array and pointer types may be shared with
 * other members or maps of the same N, so the member is pointed at new
 * ones rather than changed in place.
 */
int rw_multi_set_prio(struct bpf_object *obj, const char *name, unsigned int prio)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *sec, *t;
	const struct btf_var_secinfo *v;
	const struct btf_array *arr;
	int sec_id, struct_id = -1, member = -1, arr_id, ptr_id;
	char want[64];

	if (!btf || snprintf(want, sizeof(want), "_%s", name) >= (int)sizeof(want))
		return -ENOENT;
	sec_id = btf__find_by_name_kind(btf, ".xdp_run_config", BTF_KIND_DATASEC);
	if (sec_id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, (__u32)sec_id);
	v = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec) && struct_id < 0; i++, v++) {
		t = btf__type_by_id(btf, v->type);
		if (btf_is_var(t) && !strcmp(btf__name_by_offset(btf, t->name_off), want))
			struct_id = (int)t->type;
	}
	if (struct_id < 0 || !btf_is_struct(t = btf__type_by_id(btf, (__u32)struct_id)))
		return -ENOENT;
	for (int i = 0; i < btf_vlen(t) && member < 0; i++) {
		if (!strcmp(btf__name_by_offset(btf, btf_members(t)[i].name_off), "priority"))
			member = i;
	}
	if (member < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, btf_members(t)[member].type);
	if (!btf_is_ptr(t) || !btf_is_array(t = btf__type_by_id(btf, t->type)))
		return -EINVAL;
	arr = btf_array(t);
	arr_id = btf__add_array(btf, (int)arr->index_type, (int)arr->type, (__u32)prio);
	ptr_id = arr_id < 0 ? arr_id : btf__add_ptr(btf, arr_id);
	if (ptr_id < 0)
		return ptr_id;
	/* Adding types may have moved them all: the struct is looked up again. */
	t = btf__type_by_id(btf, (__u32)struct_id);
	((struct btf_member *)btf_members(t))[member].type = (__u32)ptr_id;
	return 0;
}

int rw_multi_prepare(struct bpf_object *obj, struct bpf_program *prog, unsigned int prio)
{
	struct xdp_pass_all_bpf *anchor;
	int fd, e;

	e = rw_multi_set_prio(obj, bpf_program__name(prog), prio);
	if (e)
		return e;
	anchor = xdp_pass_all_bpf__open_and_load();
	if (!anchor)
		return -errno;
	fd = dup(bpf_program__fd(anchor->progs.xdp_pass_all));
	xdp_pass_all_bpf__destroy(anchor);
	if (fd < 0)
		return -errno;
	e = bpf_program__set_type(prog, BPF_PROG_TYPE_EXT);
	if (!e)
		e = bpf_program__set_expected_attach_type(prog, 0);
	if (!e)
		e = bpf_program__set_attach_target(prog, fd, "xdp_pass_all");
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

static uint32_t prog_id_of(int fd)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static struct xdp_program *program_of(uint32_t prog_id)
{
	struct xdp_program *p;

	libxdp_set_print(quiet);
	p = xdp_program__from_id(prog_id);
	return libxdp_get_error(p) ? NULL : p;
}

/* ifname's MTU in this network namespace, 0 if unknown. */
static int mtu_of(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = 0;

	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	close(fd);
	return mtu;
}

int rw_multi_attach(int prog_fd, int ifindex, const char *ifname, enum rw_xdp_mode *mode,
		    char *err, size_t errlen)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	uint32_t id;
	int e;

	if (rw_xdp_holder_of(ifindex, &id) == RW_XDP_FOREIGN)
		return fail(err, errlen, -EBUSY,
			    "%s already has an XDP program (id %u) that is not in libxdp's dispatcher; "
			    "ratewall will not replace it (load it through the dispatcher instead, "
			    "e.g.: xdp-loader load %s PROGRAM.o; then start ratewall again)",
			    ifname, id, ifname);
	p = program_of(prog_id_of(prog_fd));
	if (!p)
		return fail(err, errlen, -ENOENT, "cannot open the loaded program for libxdp");
	/*
	 * Its priority and chain-call actions (a pass goes on to the next
	 * program, a drop ends the chain) are its BTF's: libxdp's setters
	 * refuse a loaded program (rw_multi_set_prio put --xdp-priority there).
	 */
	e = xdp_program__attach(p, ifindex, XDP_MODE_UNSPEC, 0);
	xdp_program__close(p);
	if (e) {
		char why[128];
		int mtu = mtu_of(ifname);

		libxdp_strerror(e, why, sizeof(why));
		/*
		 * libxdp 1.3 makes a frags-aware dispatcher only of programs it
		 * loads itself, and ratewall loads its own (to fill its maps
		 * first): a driver refuses its dispatcher when frames may be
		 * larger than a page (a veth: ERANGE above an MTU of 3 506).
		 */
		if (mtu > RW_XDP_ONE_PAGE_MTU)
			return fail(err, errlen, e,
				    "cannot join libxdp's dispatcher on %s: its MTU, %d, passes "
				    "frames over a page, which libxdp 1.3 cannot take with ratewall; "
				    "lower it, or use --xdp-mode native",
				    ifname, mtu);
		return fail(err, errlen, e, "cannot join libxdp's dispatcher on %s: %s", ifname, why);
	}
	mp = multiprog_of(ifindex);
	*mode = mp && xdp_multiprog__attach_mode(mp) == XDP_MODE_SKB ? RW_XDP_GENERIC : RW_XDP_NATIVE;
	xdp_multiprog__close(mp);
	return 0;
}

bool rw_multi_attached(uint32_t prog_id, int ifindex)
{
	struct xdp_multiprog *mp = multiprog_of(ifindex);
	struct xdp_program *p = NULL;
	bool found = false;

	if (!mp || xdp_multiprog__is_legacy(mp)) {
		xdp_multiprog__close(mp);
		return false;
	}
	while ((p = xdp_multiprog__next_prog(p, mp)))
		found |= xdp_program__id(p) == prog_id;
	xdp_multiprog__close(mp);
	return found;
}

int rw_multi_detach(uint32_t prog_id, int ifindex)
{
	struct xdp_program *p;
	int e;

	if (!rw_multi_attached(prog_id, ifindex))
		return 0;
	p = program_of(prog_id);
	if (!p)
		return -ENOENT;
	e = xdp_program__detach(p, ifindex, XDP_MODE_UNSPEC, 0);
	xdp_program__close(p);
	return e;
}

uint32_t rw_multi_link_id(uint32_t prog_id)
{
	uint32_t id = 0, found = 0;

	while (!found && prog_id && !bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone since it was listed */
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.prog_id == prog_id &&
		    info.type == BPF_LINK_TYPE_TRACING)
			found = id;
		close(fd);
	}
	return found;
}
