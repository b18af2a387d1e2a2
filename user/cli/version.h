/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one place the version is written (the man page's header must match: tested). */
#ifndef RW_VERSION_H
#define RW_VERSION_H

#define RATEWALL_VERSION "0.2.0"

#endif
