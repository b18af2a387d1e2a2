/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* frame.c: the template frame (index 0) and where the generator patches it. */
#ifndef RWGEN_FRAME_H
#define RWGEN_FRAME_H

#include "opts.h"
#include "layout.h"
#include "safety.h"

unsigned char *rwgen_build_frame(const struct gen_opts *o, const struct gen_addrs *a,
				 struct rwgen_layout *lay);

#endif
