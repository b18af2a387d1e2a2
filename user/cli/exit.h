/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ratewall's exit statuses. Only a command (main.c's table, service/'s command
 * files, run.c) turns an error into one of these; the rooms below return a
 * negative errno and a one-line reason.
 */
#ifndef RW_EXIT_H
#define RW_EXIT_H

#define RW_EXIT_OK 0
#define RW_EXIT_RUNTIME 1 /* something failed at run time: nothing is left attached or pinned */
#define RW_EXIT_USAGE 2   /* what was asked is wrong: said before anything is attached */

#endif
