// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "model/hooks.h"
#include "os/sched_stat.h"
#include "btf_probe.h"
#include "session.h"

/* Best first */
static const struct pt_tier_ops *const tiers[PT_TIER_COUNT] = {
	[PT_TIER_TRACEPOINT] = &tier_tracepoint_ops,
	[PT_TIER_FUNCTION] = &tier_function_ops,
	[PT_TIER_SYSCALL] = &tier_syscall_ops,
};

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG || !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The initial pid namespace's inode number (PROC_PID_INIT_INO) */
#define PIDNS_INIT_INO 0xEFFFFFFCU

/* Our pid namespace's inode, 0 for the initial one (pid_namespace()) */
static __u32 pidns_ino;

/*
 * Which pid namespace we are in, from the nsfs file of a real procfs:
 * without it (a tmpfs over /proc) pids would be the initial namespace's,
 * so that is refused, not taken for the initial one. 0, or -1 with why.
 */
static int pid_namespace(char *why, size_t n)
{
	struct statfs sfs;
	struct stat st;
	int fd, err;

	if (statfs("/proc", &sfs) || sfs.f_type != PROC_SUPER_MAGIC) {
		snprintf(why, n, "/proc is not a procfs (masked?)");
		return -1;
	}
	fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	/* a real procfs without ns/pid: a kernel without pid namespaces
	 * (CONFIG_PID_NS off, our test kernels' tinyconfig), only the one */
	if (fd < 0 && errno == ENOENT) {
		pidns_ino = 0;
		return 0;
	}
	err = fd < 0 || fstatfs(fd, &sfs) || sfs.f_type != NSFS_MAGIC ||
	      fstat(fd, &st);
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(why, n, "/proc/self/ns/pid is not readable");
		return -1;
	}
	pidns_ino = st.st_ino == PIDNS_INIT_INO ? 0 : st.st_ino;
	return 0;
}

static int fold_counts(struct pt_rows *rows, const void *keys, const void *vals,
		       __u32 n)
{
	const struct pt_key *k = keys;
	const struct pt_counts *c = vals;

	for (__u32 i = 0; i < n; i++)
		if (rows_add(rows, &k[i], &c[i]))
			return -1;
	return 0;
}

static int fold_hists(struct pt_rows *rows, const void *keys, const void *vals,
		      __u32 n)
{
	const struct pt_hkey *k = keys;
	const struct pt_hval *v = vals;

	for (__u32 i = 0; i < n; i++)
		if (rows_add_hist(rows, &k[i], v[i].n, v[i].sum))
			return -1;
	return 0;
}

static const struct pt_gen_map counts_map = {
	.name = { "counts0", "counts1" },
	.ksz = sizeof(struct pt_key), .vsz = sizeof(struct pt_counts),
	.fd = { -1, -1 }, .fold = fold_counts,
};

static const struct pt_gen_map hists_map = {
	.name = { "hists0", "hists1" },
	.ksz = sizeof(struct pt_hkey), .vsz = sizeof(struct pt_hval),
	.fd = { -1, -1 }, .fold = fold_hists,
};

/* Slots a key's histograms may take, for the map size. */
#define HIST_ENTRIES_PER_KEY 8

/* Sizes both generations of m, before load; a hash map's size is not
 * part of its array-of-maps template. */
static int size_gen_map(struct bpf_object *obj, const struct pt_gen_map *m,
			__u32 entries)
{
	for (int i = 0; i < 2; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, m->name[i]);

		if (!map || bpf_map__set_max_entries(map, entries))
			return -EINVAL;
	}
	return 0;
}

/* Filters and map sizes into the opened object, before load. */
static int configure(struct pt_session *s, const struct pt_load_opts *o)
{
	__u32 keys = o->max_keys ? o->max_keys : PT_DEFAULT_KEYS;
	struct pt_scope *f = s->o.scope;
	int err;

	f->self_tgid = getpid();	/* in our namespace, as keys are */
	f->pidns_ino = pidns_ino;
	f->by_pid = o->npids > 0;
	f->by_comm = o->comm[0] != '\0';
	f->by_cgroup = o->cgroup != NULL;
	f->key_cgroup = o->key_cgroup;
	f->one_call_slot = getenv("PIPETRACE_ONE_CALL_SLOT") != NULL;
	f->one_cache_slot = getenv("PIPETRACE_ONE_CACHE_SLOT") != NULL;
	f->one_sleep_slot = getenv("PIPETRACE_ONE_SLEEP_SLOT") != NULL;
	f->miss_switch_in = getenv("PIPETRACE_MISS_SWITCH_IN") != NULL;
	memcpy(f->comm, o->comm, PT_COMM_LEN);
	f->hists = o->hists;
	f->hooks = s->plan.hooks;
	err = size_gen_map(s->o.obj, &counts_map, keys);
	/* no --hist: a map of one entry nobody writes */
	return err ?: size_gen_map(s->o.obj, &hists_map,
				   o->hists ? keys * HIST_ENTRIES_PER_KEY : 1);
}

/* After load: m's file descriptors and drain buffers. */
static int bind_gen_map(struct bpf_object *obj, struct pt_gen_map *m)
{
	for (int i = 0; i < 2; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, m->name[i]);

		if (!map)
			return -ENOENT;
		m->fd[i] = bpf_map__fd(map);
		m->max = bpf_map__max_entries(map);
	}
	m->keys = calloc(m->max, m->ksz);
	m->vals = calloc(m->max, m->vsz);
	return m->keys && m->vals ? 0 : -ENOMEM;
}

/* After load: the generation maps and the -p set. */
static int bind_maps(struct pt_session *s, const struct pt_load_opts *o)
{
	struct bpf_map *m;
	int fd, err;

	err = bind_gen_map(s->o.obj, &s->counts);
	err = err ?: bind_gen_map(s->o.obj, &s->hists);
	err = err ?: counts_cache_bind(&s->cache, s->o.obj);
	err = err ?: sleeps_bind(&s->sleeps, s->o.obj);
	s->sleeps.one_slot = s->o.scope->one_sleep_slot;
	if (err)
		return err;
	if (o->cgroup) {
		__u32 zero = 0;
		int cg = open(o->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		m = bpf_object__find_map_by_name(s->o.obj, "cgroup_filter");
		if (cg < 0 || !m || bpf_map_update_elem(bpf_map__fd(m), &zero, &cg, BPF_ANY)) {
			int err = -errno;

			if (cg >= 0)
				close(cg);
			return err;
		}
		close(cg);
	}
	m = bpf_object__find_map_by_name(s->o.obj, "pid_filter");
	fd = m ? bpf_map__fd(m) : -1;
	for (int i = 0; i < o->npids; i++) {
		__u8 one = 1;

		if (fd < 0 || bpf_map_update_elem(fd, &o->pids[i], &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* -v: the programs loaded, those the columns asked for need */
static void say_programs(struct bpf_object *obj)
{
	struct bpf_program *p;
	const char *sep = "";

	fprintf(stderr, "%s: programs loaded: ", program_invocation_short_name);
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p))
			continue;
		fprintf(stderr, "%s%s", sep, bpf_program__name(p));
		sep = " ";
	}
	fputc('\n', stderr);
}

static int start(struct pt_session *s, const struct pt_load_opts *o)
{
	int err;

	/* only the hooks the output's columns need: a page or context
	 * switch hook runs on every page or switch of the machine */
	s->plan.hooks = pt_cols_hooks(o->cols, o->hists, s->tier) & ~o->hooks_off &
			pt_tier_hooks(s->tier);
	if (s->plan.lacks & PT_NA_NO_WAITS)
		s->plan.hooks &= ~PT_HOOK_WAITS;
	if (s->plan.lacks & PT_NA_NO_LOCKS)
		s->plan.hooks &= ~PT_HOOK_LOCKS;
	err = s->ops->open(&s->o, &s->plan);

	if (!err && o->verbose && s->plan.via[0])
		fprintf(stderr, "%s: %s tier via %s\n", program_invocation_short_name,
			tier_name(s->tier), s->plan.via);
	err = err ?: configure(s, o);
	err = err ?: s->ops->load(&s->o);
	if (!err && o->verbose)
		say_programs(s->o.obj);
	err = err ?: bind_maps(s, o);
	return err ?: s->ops->attach(&s->o, &s->plan);
}

/* errno of the last load or attach that failed (not a probe's "no") */
static int load_errno;

/*
 * A load that failed for want of a resource is no fault of the kernel:
 * say which limit (0 if none explains it).
 */
int pt_resource_hint(char *buf, size_t n, int err)
{
	struct rlimit rl;

	if (err == EMFILE || err == ENFILE) {
		getrlimit(RLIMIT_NOFILE, &rl);
		return snprintf(buf, n, "too many open files (ulimit -n is %llu): "
				"loading needs more", (unsigned long long)rl.rlim_cur);
	}
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
		return snprintf(buf, n, "the address space is limited to %llu MiB "
				"(ulimit -v): loading needs more",
				(unsigned long long)rl.rlim_cur >> 20);
	/* libbpf's ESRCH: no kernel BTF it could load, which ours was */
	if ((err == ENOMEM || err == ESRCH) &&
	    !getrlimit(RLIMIT_DATA, &rl) && rl.rlim_cur != RLIM_INFINITY)
		return snprintf(buf, n, "out of memory: the data segment is limited "
				"to %llu KiB (ulimit -d): loading needs more",
				(unsigned long long)rl.rlim_cur >> 10);
	if (err == ENOMEM)
		return snprintf(buf, n, "out of memory");
	return 0;
}

/* Descriptors a tier holds while it loads: maps, programs, links, BTF. */
#define PT_LOAD_FDS 64

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3;	/* ".", ".." and the directory's own */
}

/*
 * Room for PT_LOAD_FDS more descriptors, raising the soft limit up to the
 * hard one if that is what it takes. Checked first because libbpf takes a
 * descriptor it could not open during a feature probe for a feature the
 * kernel lacks, and then fails the load for a reason that misleads.
 */
static int fd_room(void)
{
	rlim_t want = (rlim_t)open_fds() + PT_LOAD_FDS;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		return -EMFILE;
	rl.rlim_cur = want;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -EMFILE : 0;
}

static int try_tier(struct pt_session *s, const struct pt_load_opts *o,
		    enum pt_tier t, char *why, size_t n)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->counts = counts_map;
	s->hists = hists_map;
	s->tier = t;
	s->ops = tiers[t];
	/* the series' pool (its pipe_prefill event) and batched read copy,
	 * for every tier (the probe sets the rest of the plan) */
	s->plan.has_prefill_event = btf_has_tracepoint("pipe_prefill");
	s->plan.batch_built = btf_has_func("pipe_read_batch_copy");
	if (s->ops->probe(&s->plan, why, n))
		return -1;
	if (!s->plan.has_prefill_event)
		s->plan.lacks |= PT_NA_NO_POOL;
	err = start(s, o);
	if (err) {
		load_errno = -err;
		snprintf(why, n, "failed to load or attach: %s", strerror(-err));
		pt_session_close(s);
		return -1;
	}
	return 0;
}

int pt_session_open(struct pt_session *s, const struct pt_load_opts *o,
		    char *err, size_t n)
{
	char why[PT_TIER_COUNT][160];

	verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	if (fd_room()) {
		pt_resource_hint(why[0], sizeof(why[0]), EMFILE);
		snprintf(err, n, "cannot load the BPF programs: %s", why[0]);
		return -1;
	}
	if (pid_namespace(why[0], sizeof(why[0]))) {
		snprintf(err, n, "cannot tell which pid namespace this is, so "
			 "whose pids to show: %s", why[0]);
		return -1;
	}
	if (o->tier != PT_TIER_AUTO) {
		if (!try_tier(s, o, o->tier, why[0], sizeof(why[0])))
			return 0;
		snprintf(err, n, "%s tier: %s", tier_name(o->tier), why[0]);
		return -1;
	}
	for (int t = 0; t < PT_TIER_COUNT; t++) {
		if (!try_tier(s, o, t, why[t], sizeof(why[t]))) {
			for (int u = 0; u < t && o->verbose; u++)
				fprintf(stderr, "%s tier not used: %s\n",
					tier_name(u), why[u]);
			return 0;
		}
	}
	if (load_errno && pt_resource_hint(why[0], sizeof(why[0]), load_errno) > 0) {
		snprintf(err, n, "cannot load the BPF programs: %s", why[0]);
		return -1;
	}
	snprintf(err, n, "no attach tier works on this kernel; function tier: %s; "
		 "syscall tier: %s", why[PT_TIER_FUNCTION], why[PT_TIER_SYSCALL]);
	return -1;
}

/*
 * Every program that could still add to the old generation runs inside an
 * RCU read-side section; MEMBARRIER_CMD_GLOBAL returns after a grace period.
 */
static void wait_for_writers(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(20000);	/* no membarrier: programs run for microseconds */
}

/* Nobody writes generation gen of m any more: read it all, then empty it. */
static int drain_map(struct pt_gen_map *m, int gen, struct pt_rows *rows)
{
	char *keys = m->keys, *vals = m->vals;
	int fd = m->fd[gen], err;
	__u32 batch, count;
	void *in = NULL;

	do {
		count = m->max;
		err = bpf_map_lookup_and_delete_batch(fd, in, &batch, keys, vals,
						      &count, NULL);
		if (err && errno != ENOENT)
			break;
		if (m->fold(rows, keys, vals, count))
			return -ENOMEM;
		in = &batch;
	} while (!err);
	if (!err || errno == ENOENT)
		return 0;

	/* kernels without batch ops on hash maps */
	count = 0;
	while (count < m->max &&
	       !bpf_map_get_next_key(fd, count ? keys + (count - 1) * m->ksz : NULL,
				     keys + count * m->ksz))
		count++;
	for (__u32 i = 0; i < count; i++)
		if (bpf_map_lookup_elem(fd, keys + i * m->ksz, vals + i * m->vsz))
			memset(vals + i * m->vsz, 0, m->vsz);
	for (__u32 i = 0; i < count; i++)
		bpf_map_delete_elem(fd, keys + i * m->ksz);
	return m->fold(rows, keys, vals, count) ? -ENOMEM : 0;
}

/* The keys in generation gen of m so far, with no counts, left in it:
 * the programs may be adding to it. */
static int peek_map(struct pt_gen_map *m, int gen, struct pt_rows *rows)
{
	static const struct pt_counts none;
	__u32 batch, count;
	void *in = NULL;
	int err;

	do {
		count = m->max;
		err = bpf_map_lookup_batch(m->fd[gen], in, &batch, m->keys, m->vals,
					   &count, NULL);
		if (err && errno != ENOENT)
			return 0;	/* no batch ops: names at the drain only */
		for (__u32 i = 0; i < count; i++)
			if (rows_add(rows, (const struct pt_key *)((char *)m->keys + i * m->ksz),
				     &none))
				return -ENOMEM;
		in = &batch;
	} while (!err);
	return 0;
}

int pt_session_peek(struct pt_session *s, struct pt_rows *rows)
{
	__u32 live = __atomic_load_n(&s->o.gen->epoch, __ATOMIC_RELAXED) & 1;

	return counts_cache_keys(&s->cache, live, rows) ?:
	       peek_map(&s->counts, live, rows);
}

/*
 * Runs of the session's programs the kernel skipped: their recursion
 * guard, a run of the same program already in progress on that CPU (one
 * preempted, or interrupted by the event it traces).
 */
static __u64 runs_skipped(const struct pt_session *s)
{
	struct bpf_program *p;
	__u64 sum = 0;

	bpf_object__for_each_program(p, s->o.obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/* CLOCK_MONOTONIC in ns: the programs' clock (bpf_ktime_get_ns()) */
static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int pt_session_drain(struct pt_session *s, struct pt_rows *rows, struct pt_lost *lost)
{
	struct pt_gen *gen = s->o.gen;
	__u32 old = __atomic_load_n(&gen->epoch, __ATOMIC_RELAXED);
	__u64 dropped, skipped, now;

	/* waits in progress are counted up to the switch (sleeps.h), the
	 * switch's time published with its epoch in one word */
	now = now_ns() & ~1ULL;
	__atomic_store_n(&gen->epoch, old + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&gen->flip, now | ((old + 1) & 1), __ATOMIC_SEQ_CST);
	s->switched_ns = now;
	if (sleeps_credit(&s->sleeps, rows, now))
		return -1;
	/* the programs look for seeded waits while any is left */
	if (s->seeded.n && !sleeps_seeds_left(&s->sleeps, &s->seeded))
		__atomic_store_n(&gen->seeded, 0, __ATOMIC_RELAXED);
	wait_for_writers();
	dropped = __atomic_load_n(&gen->keys_dropped, __ATOMIC_RELAXED);
	lost->untracked += dropped - s->dropped_seen;
	s->dropped_seen = dropped;
	skipped = runs_skipped(s);
	lost->skipped += skipped - s->skipped_seen;
	s->skipped_seen = skipped;
	/*
	 * Generation old & 1 is quiet now: its cache entries and hash are
	 * read, then emptied, before the next drain's flip makes it live
	 * again. A key may be in both (a cached key's hash entry, adds that
	 * found its entry being claimed): rows fold by key.
	 */
	return counts_cache_drain(&s->cache, old & 1, rows) ?:
	       drain_map(&s->counts, old & 1, rows) ?:
	       drain_map(&s->hists, old & 1, rows);
}

int pt_session_seed(struct pt_session *s, const struct pt_load_opts *o, double start)
{
	/* no sleeps counted (--no-waits, no column needs them): none shown */
	if (!(s->plan.hooks & PT_HOOK_WAITS))
		return 0;
	if (blocked_scan(&s->seeded, o))
		return -1;
	/* the programs look before the first entry is there */
	__atomic_store_n(&s->o.gen->seeded, 1, __ATOMIC_SEQ_CST);
	if (!sleeps_seed(&s->sleeps, &s->seeded, (__u64)(start * 1e9)))
		__atomic_store_n(&s->o.gen->seeded, 0, __ATOMIC_SEQ_CST);
	return 0;
}

void pt_session_close(struct pt_session *s)
{
	blocked_free(&s->seeded);
	sleeps_unbind(&s->sleeps);
	counts_cache_unbind(&s->cache);
	if (s->o.skel)
		s->ops->destroy(&s->o);
	free(s->counts.keys);
	free(s->counts.vals);
	free(s->hists.keys);
	free(s->hists.vals);
	memset(s, 0, sizeof(*s));
}

void pt_session_env(const struct pt_session *s, struct pt_env *env)
{
	env->tier = s->tier;
	env->lacks = s->plan.lacks | (sched_available() ? 0 : PT_NA_NO_SCHED);
	env->hooks_off = PT_HOOKS_ALL & ~s->plan.hooks;
	env_read_knobs(env);
	/* the batched read copy with no switch (kernel-patch/ 0005) to say
	 * whether it is on: on */
	if (env->knob_read_batch < 0 && s->plan.batch_built)
		env->lacks |= PT_NA_BATCH;
}
