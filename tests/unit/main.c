// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Userspace unit tests, room by room of user/, with one closing line for CI. */
#include "unit.h"

int main(void)
{
	run_cli_tests();
	run_actconf_tests();
	run_kinds_tests();
	run_kernel_tests();
	run_crowd_tests();
	run_rank_tests();
	run_views_tests();
	run_metrics_tests();
	run_history_tests();
	run_hook_tests();
	run_bgp_tests();
	run_samples_tests();
	return tl_finish();
}
