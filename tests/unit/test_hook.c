// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --on-event's runner (act/hook.c) with real commands: shell scripts written
 * to a temporary directory, what they saw written back to files there.
 * Lower bounds on time are strict (a timeout is never early), upper ones
 * generous (a loaded 2-CPU machine).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "act/hook.h"
#include "model/clock.h"
#include "unit.h"

static char dir[64];

static double now_s(void)
{
	return (double)rw_clock_ns(CLOCK_MONOTONIC) / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A path in the test's directory: the last 16 stay valid, enough for one command line. */
static const char *in_dir(const char *name)
{
	static char path[16][128];
	static unsigned int next;
	char *p = path[next++ % 16];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

/* An executable shell script named name, body after its #! line; its path. */
static const char *script(const char *name, const char *body)
{
	const char *path = in_dir(name);
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return path;
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	CHECK_EQ(chmod(path, 0755), 0);
	return path;
}

/*
 * A hook script that holds an event whose payload is hold<NAME> until the
 * test makes go-hold<NAME> (release), and runs any other by writing
 * "start E", then after 0.1 s "end E", to log (none: it returns at once).
 * Each test holds names of its own: a go file stays for the tests after.
 */
static const char *held_script(const char *name, const char *log)
{
	char body[512], other[256] = "";

	if (log)
		snprintf(other, sizeof(other),
			 "*) echo \"start $e\" >>%s; sleep 0.1; echo \"end $e\" >>%s ;;\n", log, log);
	snprintf(body, sizeof(body),
		 "read -r e\ncase $e in\nhold*) while [ ! -e %s/go-$e ]; do sleep 0.01; done ;;\n%sesac",
		 dir, other);
	return script(name, body);
}

static void release(const char *hold)
{
	char name[64];

	snprintf(name, sizeof(name), "go-%s", hold);
	CHECK_EQ(fclose(fopen(in_dir(name), "w")), 0);
}

/* A file's text, NUL-terminated ("" if absent). */
static const char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static struct rw_hook_config config(const char *command, int timeout_ms, uint32_t running,
				    uint32_t rate)
{
	struct rw_hook_config c = { .kinds = RW_HOOK_DEFAULT_KINDS,
				    .timeout_ns = (uint64_t)timeout_ms * 1000000ULL,
				    .running = running,
				    .rate = rate };

	snprintf(c.command, sizeof(c.command), "%s", command);
	return c;
}

static struct rw_hook *start(const struct rw_hook_config *c)
{
	char err[160] = "";
	struct rw_hook *h = rw_hook_start(c, false, err, sizeof(err));

	if (!h)
		fprintf(stderr, "  rw_hook_start: %s\n", err);
	CHECK(h != NULL);
	return h;
}

/* Until nothing is queued or running (true), or limit_s went by (false). */
/* Until running commands number n; false when limit_s passes first. */
static bool wait_running(struct rw_hook *h, uint32_t n, double limit_s)
{
	double end = now_s() + limit_s;
	struct rw_hook_counts c;

	do {
		rw_hook_counts(h, &c);
		if (c.running == n)
			return true;
		sleep_ms(2);
	} while (now_s() < end);
	return false;
}

static bool wait_idle(struct rw_hook *h, double limit_s)
{
	double end = now_s() + limit_s;
	struct rw_hook_counts c;

	do {
		rw_hook_counts(h, &c);
		if (!c.queued && !c.running)
			return true;
		sleep_ms(2);
	} while (now_s() < end);
	return false;
}

/* Whether pid is gone: no such process, or a zombie (dead; its new parent reaps it, or not). */
static bool pid_gone(long pid)
{
	char path[64];
	const char *stat, *close_paren;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	stat = slurp(path);
	close_paren = strrchr(stat, ')');
	return !close_paren || close_paren[1] != ' ' || close_paren[2] == 'Z' || close_paren[2] == 'X';
}

/* The pid a script wrote into name; 0 if none. */
static long pid_in(const char *name)
{
	return strtol(slurp(in_dir(name)), NULL, 10);
}

static int lines(const char *path)
{
	int n = 0;

	for (const char *s = slurp(path); *s; s++)
		n += *s == '\n';
	return n;
}

/* Until pid is gone, at most limit_s. */
static bool wait_gone(long pid, double limit_s)
{
	double end = now_s() + limit_s;

	while (!pid_gone(pid) && now_s() < end)
		sleep_ms(5);
	return pid_gone(pid);
}

static void test_hook_stdin_is_the_event(void)
{
	const char *json = "{\"event\":\"banned\",\"key\":\"198.18.0.7\",\"until\":12.5}";
	const char *sh = script("copy", "cat > \"$1\"\n[ /proc/$$/fd/1 -ef /dev/null ] && echo null > \"$2\"\n"
				       "[ -e /proc/$$/fd/$3 ] && echo leaked > \"$4\" || echo closed > \"$4\"\n"
				       /* read by the shell itself: dash blocks every signal around a fork */
				       "while IFS= read -r l; do case $l in SigBlk*|SigIgn*) echo \"$l\";; "
				       "esac; done < /proc/$$/status > \"$5\"");
	int plain = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: a child must not get it anyway */
	char cmd[512], want[256];
	struct rw_hook_config c;
	struct rw_hook_result r[4];
	struct rw_hook_counts n;
	struct rw_hook *h;

	snprintf(cmd, sizeof(cmd), "%s %s %s %d %s %s", sh, in_dir("stdin"), in_dir("stdout"), plain,
		 in_dir("fd"), in_dir("signals"));
	/* As ratewall does: an ignored signal would be the command's too, through exec. */
	signal(SIGPIPE, SIG_IGN);
	c = config(cmd, 5000, 4, 20);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.7", json));
	CHECK(wait_idle(h, 5));
	snprintf(want, sizeof(want), "%s\n", json);
	CHECK_STR(slurp(in_dir("stdin")), want);
	CHECK_STR(slurp(in_dir("stdout")), "null\n");
	CHECK_STR(slurp(in_dir("fd")), "closed\n");
	/*
	 * Nothing blocked (the worker blocks all), no standard signal ignored
	 * (SIGPIPE is ours). Above 31, glibc's own two (32, 33): its
	 * posix_spawn leaves them ignored in every child, and glibc takes
	 * them back in the next program.
	 */
	{
		unsigned long long blocked = ~0ULL, ignored = ~0ULL;

		CHECK_EQ(sscanf(slurp(in_dir("signals")), "SigBlk: %llx SigIgn: %llx", &blocked,
				&ignored), 2);
		CHECK_EQ(blocked, 0);
		CHECK_EQ(ignored & 0x7fffffffULL, 0);
	}
	signal(SIGPIPE, SIG_DFL);
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 1);
	CHECK_EQ(n.ok, 1);
	CHECK_EQ(n.failed + n.timed_out + n.dropped, 0);
	CHECK_EQ(n.last_status, 0);
	CHECK_EQ(rw_hook_results(h, r, 4), 1);
	CHECK_EQ(r[0].type, RW_EV_BANNED);
	CHECK_STR(r[0].key, "198.18.0.7");
	CHECK_EQ(r[0].status, 0);
	CHECK(!r[0].timed_out);
	CHECK(r[0].seconds >= 0 && r[0].seconds < 5);
	CHECK_EQ(rw_hook_results(h, r, 4), 0); /* read once */
	rw_hook_stop(h, 0);
	close(plain);
}

static void test_hook_exit_status(void)
{
	struct rw_hook_config c = config(script("three", "exit 3"), 5000, 4, 20);
	struct rw_hook_result r;
	struct rw_hook_counts n;
	struct rw_hook *h = start(&c);

	if (!h)
		return;
	/* limited: an event of no pair (an end alone would not run: its start did not). */
	CHECK(rw_hook_offer(h, RW_EV_LIMITED, "2001:db8::1", "{}"));
	CHECK(wait_idle(h, 5));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 1);
	CHECK_EQ(n.failed, 1);
	CHECK_EQ(n.ok + n.timed_out, 0);
	CHECK_EQ(n.last_status, 3);
	CHECK_EQ(rw_hook_results(h, &r, 1), 1);
	CHECK_EQ(r.status, 3);
	CHECK_EQ(r.type, RW_EV_LIMITED);
	CHECK(!r.timed_out);
	CHECK_EQ(r.start_errno, 0);
	rw_hook_stop(h, 0);
}

static void test_hook_timeout_kills_the_group(void)
{
	char body[256];
	struct rw_hook_config c;
	struct rw_hook_result r;
	struct rw_hook_counts n;
	struct rw_hook *h;
	double t0, took;
	long leader, grandchild;

	/* A grandchild that would outlive it, both pids written down first. */
	snprintf(body, sizeof(body), "echo $$ > %s\nsleep 30 &\necho $! > %s\nexec sleep 30",
		 in_dir("leader"), in_dir("grandchild"));
	c = config(script("hang", body), 200, 4, 20);
	h = start(&c);
	if (!h)
		return;
	t0 = now_s();
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.9", "{}"));
	CHECK(wait_idle(h, 5));
	took = now_s() - t0;
	rw_hook_counts(h, &n);
	CHECK_EQ(n.timed_out, 1);
	CHECK_EQ(n.ok + n.failed, 0);
	CHECK_EQ(n.last_status, 128 + SIGKILL);
	CHECK_EQ(rw_hook_results(h, &r, 1), 1);
	CHECK(r.timed_out);
	CHECK_EQ(r.status, 128 + SIGKILL);
	CHECK(r.seconds >= 0.2 && r.seconds < 2);
	CHECK(took >= 0.2 && took < 2);
	leader = pid_in("leader");
	grandchild = pid_in("grandchild");
	CHECK(leader > 1 && grandchild > 1);
	CHECK(wait_gone(leader, 2));
	CHECK(wait_gone(grandchild, 2));
	rw_hook_stop(h, 0);
}

/* A command that exits at once leaves nothing running behind it either. */
static void test_hook_leftovers_killed_at_exit(void)
{
	char body[128];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	snprintf(body, sizeof(body), "sleep 30 &\necho $! > %s\nexit 0", in_dir("left"));
	c = config(script("detach", body), 10000, 4, 20);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.10", "{}"));
	CHECK(wait_idle(h, 5));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.ok, 1);
	CHECK(pid_in("left") > 1);
	CHECK(wait_gone(pid_in("left"), 2));
	rw_hook_stop(h, 0);
}

static void test_hook_missing_command(void)
{
	struct rw_hook_config c = config(in_dir("missing --flag"), 5000, 4, 20);
	struct rw_hook_result r;
	struct rw_hook_counts n;
	struct rw_hook *h;
	char err[160] = "";

	CHECK_EQ(rw_hook_check(&c, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "missing: not found") != NULL);
	h = start(&c); /* not an error here: each event says it */
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.11", "{}"));
	CHECK(wait_idle(h, 5));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 1);
	CHECK_EQ(n.failed, 1);
	CHECK_EQ(n.last_status, -1);
	CHECK_EQ(n.running, 0);
	CHECK_EQ(rw_hook_results(h, &r, 1), 1);
	CHECK_EQ(r.status, -1);
	CHECK_EQ(r.start_errno, ENOENT);
	CHECK(!r.timed_out);
	rw_hook_stop(h, 0);

	/* Found in PATH, through PATH, or a file without its x bit. */
	c = config("sh -c true", 5000, 4, 20);
	CHECK_EQ(rw_hook_check(&c, err, sizeof(err)), 0);
	c = config("rw-no-such-command-anywhere", 5000, 4, 20);
	CHECK_EQ(rw_hook_check(&c, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "rw-no-such-command-anywhere: not found in PATH") != NULL);
	c = config(script("noexec", "exit 0"), 5000, 4, 20);
	CHECK_EQ(chmod(c.command, 0644), 0);
	CHECK_EQ(rw_hook_check(&c, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "noexec: not executable") != NULL);
	c = config(dir, 5000, 4, 20);
	CHECK_EQ(rw_hook_check(&c, err, sizeof(err)), -EACCES); /* a directory */
}

static void test_hook_rate(void)
{
	struct rw_hook_config c = config("true", 5000, 4, 5);
	struct rw_hook_counts n;
	struct rw_hook *h = start(&c);
	unsigned int taken = 0;

	if (!h)
		return;
	for (int i = 0; i < 100; i++)
		taken += rw_hook_offer(h, RW_EV_BANNED, "198.18.0.12", "{}");
	/* The burst (5), and a token more at most if the offers took 200 ms. */
	CHECK(taken >= 5 && taken <= 6);
	rw_hook_counts(h, &n);
	CHECK_EQ(n.dropped, 100 - taken);
	CHECK_EQ(n.started + n.queued + n.dropped, 100);
	CHECK(wait_idle(h, 5));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, taken);
	CHECK_EQ(n.started + n.dropped, 100);
	CHECK_EQ(n.started, n.ok + n.failed + n.timed_out);
	CHECK_EQ(n.ok, taken);
	rw_hook_stop(h, 0);
}

/*
 * Ends and their starts: a rate of 1 a second lets banned A run and drops
 * banned B; unbanned B is not run either (its start was not), unbanned A
 * is, over the rate (its start ran). With one command at a time held up by
 * A's, banned C waits in the queue when unbanned C comes: both run, C's
 * banned first (a ban whose start and end a tick hands on together).
 */
static void test_hook_ends_follow_their_starts(void)
{
	char body[160];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	/* Each command logs its stdin; the first (A's banned) holds on until "go" exists. */
	snprintf(body, sizeof(body), "cat >>%s\nwhile [ ! -e %s ]; do sleep 0.01; done", in_dir("seen"),
		 in_dir("go"));
	c = config(script("pairs", body), 10000, 1, 1);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.1", "{\"e\": \"banned A\"}"));
	CHECK(!rw_hook_offer(h, RW_EV_BANNED, "198.18.0.2", "{\"e\": \"banned B\"}")); /* over the rate */
	for (double end = now_s() + 5; now_s() < end && lines(in_dir("seen")) < 1;)
		sleep_ms(2);
	CHECK(!rw_hook_offer(h, RW_EV_UNBANNED, "198.18.0.2", "{\"e\": \"unbanned B\"}"));
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.0.1", "{\"e\": \"unbanned A\"}"));
	sleep_ms(1100); /* a token for C */
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.3", "{\"e\": \"banned C\"}"));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, 2); /* unbanned A, banned C, behind A's command */
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.0.3", "{\"e\": \"unbanned C\"}"));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, 3);
	CHECK_EQ(fclose(fopen(in_dir("go"), "w")), 0);
	CHECK(wait_idle(h, 5));
	CHECK_STR(slurp(in_dir("seen")), "{\"e\": \"banned A\"}\n{\"e\": \"unbanned A\"}\n"
					 "{\"e\": \"banned C\"}\n{\"e\": \"unbanned C\"}\n");
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 4);
	CHECK_EQ(n.dropped, 2); /* banned B, unbanned B */
	rw_hook_stop(h, 0);
}

/* An owed end finds room in a full queue: the newest queued start gives up its place. */
static void test_hook_owed_end_in_a_full_queue(void)
{
	char body[128], key[32];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	snprintf(body, sizeof(body), "touch %s\nexec sleep 30", in_dir("blocking2"));
	c = config(script("block2", body), 30000, 1, 10000);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.1.0", "{}"));
	for (double end = now_s() + 5; now_s() < end && access(in_dir("blocking2"), F_OK);)
		sleep_ms(2);
	for (unsigned int i = 1; i <= RW_HOOK_QUEUE; i++) {
		snprintf(key, sizeof(key), "198.18.2.%u", i);
		CHECK(rw_hook_offer(h, RW_EV_BANNED, key, "{}"));
	}
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.1.0", "{}"));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, RW_HOOK_QUEUE);
	CHECK_EQ(n.dropped, 1); /* the newest start, 198.18.2.256 */
	/* Its end is then not run: its start never was. */
	CHECK(!rw_hook_offer(h, RW_EV_UNBANNED, "198.18.2.256", "{}"));
	/* The end of a start still queued takes the newest other start's place, never its own. */
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.2.1", "{}"));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, RW_HOOK_QUEUE);
	CHECK_EQ(n.dropped, 3); /* and 198.18.2.255 */
	CHECK(!rw_hook_offer(h, RW_EV_UNBANNED, "198.18.2.255", "{}"));
	rw_hook_stop(h, 0);
}

/*
 * A ban that began and ended within one tick: the tick hands banned and
 * unbanned on back to back, before the worker took the banned. Both run,
 * and the unbanned only once the banned's command ended (two may run at
 * once here), so what a command did for the ban is undone after it.
 */
static void test_hook_end_waits_for_its_start(void)
{
	char body[256];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	snprintf(body, sizeof(body),
		 "read -r e\ncase $e in *unbanned*) echo unbanned >>%s ;;\n"
		 "*) echo banned >>%s; sleep 0.3; echo banned done >>%s ;; esac",
		 in_dir("order.log"), in_dir("order.log"), in_dir("order.log"));
	c = config(script("order", body), 5000, 2, 20);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.1", "{\"e\": \"banned\"}"));
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.3.1", "{\"e\": \"unbanned\"}"));
	CHECK(wait_idle(h, 5));
	CHECK_STR(slurp(in_dir("order.log")), "banned\nbanned done\nunbanned\n");
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 2);
	CHECK_EQ(n.ok, 2);
	CHECK_EQ(n.dropped, 0);
	rw_hook_stop(h, 0);
}

/*
 * A key banned, unbanned and banned again while two other commands hold
 * both places, all four queued: its commands run one at a time in that
 * order, so the second ban's command is not undone by the first's end (it
 * was taken past the waiting unbanned and ran beside the first banned; and
 * the unbanned that came after took the first banned for its own start and
 * cancelled the second).
 */
static void test_hook_a_keys_commands_run_in_order(void)
{
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	c = config(held_script("keyorder", in_dir("keyorder.log")), 5000, 2, 20);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.10", "hold3"));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.11", "hold3"));
	CHECK(wait_running(h, 2, 5));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.2", "b1"));
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.3.2", "u1"));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.2", "b2"));
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.3.2", "u2"));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, 4);
	release("hold3");
	CHECK(wait_idle(h, 5));
	CHECK_STR(slurp(in_dir("keyorder.log")), "start b1\nend b1\nstart u1\nend u1\n"
						 "start b2\nend b2\nstart u2\nend u2\n");
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 6);
	CHECK_EQ(n.dropped, 0);
	rw_hook_stop(h, 0);
}

/*
 * The same key's second ban, queued before its first is taken but after
 * the first's end: the first's start, taken then, must not count as the
 * second's (it marked the second's pair run, and the second unbanned then
 * cancelled the second banned as a copy of a start that ran).
 */
static void test_hook_a_keys_second_ban_not_taken_for_its_first(void)
{
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	c = config(held_script("second", in_dir("second.log")), 5000, 2, 20);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.20", "holdA"));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.21", "holdB"));
	CHECK(wait_running(h, 2, 5));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.3", "b1"));
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.3.3", "u1"));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.3.3", "b2"));
	release("holdA"); /* one place: b1 is taken */
	for (double end = now_s() + 5; now_s() < end && !strstr(slurp(in_dir("second.log")), "start b1");)
		sleep_ms(2);
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.3.3", "u2"));
	release("holdB");
	CHECK(wait_idle(h, 5));
	CHECK_STR(slurp(in_dir("second.log")), "start b1\nend b1\nstart u1\nend u1\n"
					       "start b2\nend b2\nstart u2\nend u2\n");
	rw_hook_counts(h, &n);
	CHECK_EQ(n.dropped, 0);
	rw_hook_stop(h, 0);
}

/*
 * room_for_end drops the newest queued start of another key and closes its
 * pair, though an older copy of that start still waits: when the copy is
 * taken the pair is not marked run, and its end is then dropped although
 * its start ran.
 */
static void test_hook_start_copy_kept_when_room_made(void)
{
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	c = config(held_script("copy", NULL), 30000, 1, 10000);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.4.1", "holdY"));
	CHECK(wait_running(h, 1, 5));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.4.2", "holdX")); /* bX1 */
	for (unsigned int i = 0; i < RW_HOOK_QUEUE - 2; i++)
		CHECK(rw_hook_offer(h, RW_EV_LIMITED, "198.18.4.3", "{}"));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.4.2", "holdX")); /* bX2, a copy */
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, RW_HOOK_QUEUE);
	/* uY is owed: bX2, the newest start, gives up its place. */
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.4.1", "{}"));
	release("holdY");
	for (double end = now_s() + 5; now_s() < end;) { /* bX1 is taken */
		rw_hook_counts(h, &n);
		if (n.started >= 2)
			break;
		sleep_ms(2);
	}
	CHECK_EQ(n.started, 2);
	/* bX1 ran: its end is owed. */
	CHECK(rw_hook_offer(h, RW_EV_UNBANNED, "198.18.4.2", "{}"));
	release("holdX");
	rw_hook_stop(h, 0);
}

/*
 * The one case an owed end is not run (hook.h, mitigation.md): every place
 * of the queue holds an owed end or the start it follows, so no start can
 * give up its place. The end is dropped and counted, never lost uncounted,
 * and what waits still runs.
 */
static void test_hook_owed_end_when_queue_all_owed(void)
{
	char key[32];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;

	c = config(held_script("owed", NULL), 30000, 1, 10000);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.5.0", "holdOwed"));
	CHECK(wait_running(h, 1, 5));
	for (unsigned int i = 0; i < RW_HOOK_QUEUE / 2; i++) {
		snprintf(key, sizeof(key), "198.18.6.%u", i);
		CHECK(rw_hook_offer(h, RW_EV_BANNED, key, "{}"));
		CHECK(rw_hook_offer(h, RW_EV_UNBANNED, key, "{}"));
	}
	/* 198.18.5.0's ban ran: its end is owed, but no place can be made. */
	CHECK(!rw_hook_offer(h, RW_EV_UNBANNED, "198.18.5.0", "{}"));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.queued, RW_HOOK_QUEUE);
	CHECK_EQ(n.dropped, 1);
	release("holdOwed");
	CHECK(wait_idle(h, 20));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 1 + RW_HOOK_QUEUE);
	CHECK_EQ(n.dropped, 1);
	rw_hook_stop(h, 0);
}

/* The queue holds RW_HOOK_QUEUE behind the commands running; the end counts it dropped. */
static void test_hook_queue_bounded(void)
{
	char body[128];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;
	unsigned int taken = 0;

	/* The one command that may run never ends, so the queue only fills. */
	snprintf(body, sizeof(body), "touch %s\nexec sleep 30", in_dir("blocking"));
	c = config(script("block", body), 30000, 1, 10000);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.17", "{}"));
	for (double end = now_s() + 5; now_s() < end && access(in_dir("blocking"), F_OK); )
		sleep_ms(2);
	for (unsigned int i = 0; i < RW_HOOK_QUEUE + 44; i++)
		taken += rw_hook_offer(h, RW_EV_BANNED, "198.18.0.17", "{}");
	CHECK_EQ(taken, RW_HOOK_QUEUE);
	rw_hook_counts(h, &n);
	CHECK_EQ(n.running, 1);
	CHECK_EQ(n.queued, RW_HOOK_QUEUE);
	CHECK_EQ(n.dropped, 44);
	/* An object too long for a slot is dropped whole, not cut. */
	{
		char *big = malloc(RW_HOOK_JSON_MAX);

		memset(big, 'x', RW_HOOK_JSON_MAX - 1);
		big[RW_HOOK_JSON_MAX - 1] = '\0';
		CHECK(!rw_hook_offer(h, RW_EV_BANNED, "198.18.0.17", big));
		free(big);
	}
	rw_hook_end(h, 0);
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 1);
	CHECK_EQ(n.failed, 1);
	CHECK_EQ(n.dropped, 44 + 1 + RW_HOOK_QUEUE);
	CHECK_EQ(n.queued + n.running, 0);
	rw_hook_stop(h, 0);
}

/* The results ring keeps the newest RW_HOOK_QUEUE; the counts keep every one. */
static void test_hook_results_bounded(void)
{
	/* Commands that cannot start: a result each, without a process's cost. */
	struct rw_hook_config c = config(in_dir("absent"), 5000, 1, 10000);
	unsigned int offered = RW_HOOK_QUEUE + 44, got;
	struct rw_hook_result *r = calloc(offered, sizeof(*r));
	struct rw_hook_counts n;
	struct rw_hook *h = start(&c);
	char key[16];

	if (!h || !r)
		goto out;
	/* In two halves, each under the queue's bound: every one is run. */
	for (unsigned int i = 0; i < offered; i++) {
		snprintf(key, sizeof(key), "%u", i);
		CHECK(rw_hook_offer(h, RW_EV_BANNED, key, "{}"));
		if (i == offered / 2)
			CHECK(wait_idle(h, 5));
	}
	CHECK(wait_idle(h, 5));
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, offered);
	CHECK_EQ(n.failed, offered);
	CHECK_EQ(n.dropped, 0);
	/* One worker, so they ended in the order offered: the ring holds the last ones. */
	got = (unsigned int)rw_hook_results(h, r, offered);
	CHECK_EQ(got, RW_HOOK_QUEUE);
	for (unsigned int i = 0; i < got; i++) {
		CHECK_EQ(strtoul(r[i].key, NULL, 10), offered - got + i);
		CHECK_EQ(r[i].start_errno, ENOENT);
	}
out:
	rw_hook_stop(h, 0);
	free(r);
}

static void test_hook_running_bound(void)
{
	char body[256], cmd[300];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;
	const char *log;
	uint32_t seen_running = 0;
	int now_running = 0, most = 0, starts = 0, ends = 0;
	char *line, *save = NULL;

	snprintf(body, sizeof(body),
		 "echo \"$(date +%%s%%N) +\" >> %s\nsleep 0.1\necho \"$(date +%%s%%N) -\" >> %s",
		 in_dir("marks"), in_dir("marks"));
	snprintf(cmd, sizeof(cmd), "%s", script("slow", body));
	c = config(cmd, 5000, 2, 100);
	h = start(&c);
	if (!h)
		return;
	for (int i = 0; i < 10; i++)
		CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.13", "{}"));
	for (double end = now_s() + 10; now_s() < end;) {
		rw_hook_counts(h, &n);
		if (n.running > seen_running)
			seen_running = n.running;
		if (!n.queued && !n.running)
			break;
		sleep_ms(2);
	}
	rw_hook_counts(h, &n);
	CHECK_EQ(n.ok, 10);
	CHECK(seen_running == 2);
	/* The markers in time order (appends, each after the last): never three between + and -. */
	log = slurp(in_dir("marks"));
	{
		char *copy = strdup(log);

		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			bool plus = strchr(line, '+') != NULL;

			now_running += plus ? 1 : -1;
			starts += plus;
			ends += !plus;
			if (now_running > most)
				most = now_running;
		}
		free(copy);
	}
	CHECK_EQ(starts, 10);
	CHECK_EQ(ends, 10);
	CHECK_EQ(most, 2);
	rw_hook_stop(h, 0);
}

static void test_hook_end_within_grace(void)
{
	char body[128];
	struct rw_hook_config c;
	struct rw_hook_counts n;
	struct rw_hook *h;
	double t0, took;

	/* Commands that never end: two run, three wait; the end waits its grace, then kills. */
	snprintf(body, sizeof(body), "echo $$ >> %s\nexec sleep 30", in_dir("stuck.pids"));
	c = config(script("stuck", body), 30000, 2, 100);
	h = start(&c);
	if (!h)
		return;
	for (int i = 0; i < 5; i++)
		CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.14", "{}"));
	for (double end = now_s() + 5; now_s() < end; sleep_ms(2)) {
		rw_hook_counts(h, &n);
		if (n.running == 2 && lines(in_dir("stuck.pids")) == 2)
			break;
	}
	t0 = now_s();
	rw_hook_end(h, 300000000ULL);
	took = now_s() - t0;
	CHECK(took >= 0.3 && took < 2);
	rw_hook_counts(h, &n);
	CHECK_EQ(n.started, 2);
	CHECK_EQ(n.failed, 2);
	CHECK_EQ(n.dropped, 3);
	CHECK_EQ(n.running + n.queued + n.ok + n.timed_out, 0);
	CHECK_EQ(n.last_status, 128 + SIGKILL);
	CHECK(!rw_hook_offer(h, RW_EV_BANNED, "198.18.0.14", "{}")); /* ended: dropped */
	rw_hook_counts(h, &n);
	CHECK_EQ(n.dropped, 4);
	{
		char *pids = strdup(slurp(in_dir("stuck.pids"))), *save = NULL;
		int seen = 0;

		for (char *p = strtok_r(pids, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
			CHECK(pid_gone(strtol(p, NULL, 10))); /* reaped by the end itself */
			seen++;
		}
		CHECK_EQ(seen, 2);
		free(pids);
	}
	rw_hook_end(h, 0); /* a second time: nothing */
	rw_hook_stop(h, 0);

	/* Commands that end within the grace: the end waits for them, no longer. */
	c = config(script("brief", "sleep 0.2"), 30000, 2, 100);
	h = start(&c);
	if (!h)
		return;
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.15", "{}"));
	CHECK(rw_hook_offer(h, RW_EV_BANNED, "198.18.0.16", "{}"));
	CHECK(wait_running(h, 2, 5));
	t0 = now_s();
	rw_hook_end(h, 5000000000ULL);
	took = now_s() - t0;
	CHECK(took < 2);
	rw_hook_counts(h, &n);
	CHECK_EQ(n.ok, 2);
	CHECK_EQ(n.failed, 0);
	rw_hook_stop(h, 0);
}

void run_hook_tests(void)
{
	char cmd[96];

	snprintf(dir, sizeof(dir), "/tmp/rwhook.XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	RUN(test_hook_stdin_is_the_event);
	RUN(test_hook_exit_status);
	RUN(test_hook_timeout_kills_the_group);
	RUN(test_hook_leftovers_killed_at_exit);
	RUN(test_hook_missing_command);
	RUN(test_hook_rate);
	RUN(test_hook_ends_follow_their_starts);
	RUN(test_hook_owed_end_in_a_full_queue);
	RUN(test_hook_end_waits_for_its_start);
	RUN(test_hook_a_keys_commands_run_in_order);
	RUN(test_hook_a_keys_second_ban_not_taken_for_its_first);
	RUN(test_hook_start_copy_kept_when_room_made);
	RUN(test_hook_owed_end_when_queue_all_owed);
	RUN(test_hook_queue_bounded);
	RUN(test_hook_results_bounded);
	RUN(test_hook_running_bound);
	RUN(test_hook_end_within_grace);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", dir);
}
