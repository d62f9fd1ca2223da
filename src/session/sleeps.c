// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "sleeps.h"

int sleeps_bind(struct pt_sleeps *z, struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "sleeps");
	void *p;

	if (!m)
		return -ENOENT;
	z->len = (size_t)bpf_map__max_entries(m) * sizeof(struct pt_sleep);
	p = mmap(NULL, z->len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED)
		return -errno;
	z->e = p;
	return 0;
}

/* What a wait of kind adds to a key's counters, ns long. */
static void wait_counts(struct pt_counts *c, __u32 kind, __u64 ns)
{
	if (kind == PT_SLEEP_READ)
		c->wait_read_ns = ns;
	else if (kind == PT_SLEEP_WRITE)
		c->wait_write_ns = ns;
	else
		c->lock_wait_ns = ns;
}

int sleeps_credit(struct pt_sleeps *z, struct pt_rows *rows, __u64 until)
{
	size_t n = z->len / sizeof(struct pt_sleep);

	for (size_t i = 0; z->e && i < n; i++) {
		struct pt_sleep *e = &z->e[i];
		__u64 from = __atomic_load_n(&e->from, __ATOMIC_ACQUIRE);
		struct pt_counts c = {};
		struct pt_key key;
		__u32 kind;

		if (!from || from >= until)
			continue;
		key = e->key;
		kind = e->kind;
		/* the wait's end (BPF) takes from with an exchange: whoever
		 * moves it first counts [from, until) */
		if (!__atomic_compare_exchange_n(&e->from, &from, until, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		wait_counts(&c, kind, until - from);
		c.blocked_since = e->seeded ? z->seeded_at : 0;
		if (rows_add(rows, &key, &c))
			return -1;
	}
	return 0;
}

static struct pt_sleep *entry_of(struct pt_sleeps *z, __u32 tid)
{
	size_t n = z->len / sizeof(struct pt_sleep);

	return z->e ? &z->e[z->one_slot ? 0 : tid % n] : NULL;
}

/*
 * A seeded wait taken back from its entry: from cleared with a
 * compare-and-swap (the programs' end of it takes from with an exchange:
 * whoever moves it first ends it), then the entry freed.
 */
static void unseed(struct pt_sleep *e)
{
	__u64 from = __atomic_load_n(&e->from, __ATOMIC_ACQUIRE);

	if (from && __atomic_compare_exchange_n(&e->from, &from, 0, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		__atomic_store_n(&e->tid, 0, __ATOMIC_SEQ_CST);
}

static bool seeded_for(const struct pt_sleep *e, __u32 tid)
{
	return e && __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE) == tid && e->seeded;
}

size_t sleeps_seed(struct pt_sleeps *z, struct blocked_list *l, __u64 now)
{
	size_t kept = 0;

	z->seeded_at = time(NULL);
	for (size_t i = 0; i < l->n; i++) {
		const struct blocked_task *t = &l->v[i];
		struct pt_sleep *e = entry_of(z, t->tid);
		__u32 free_tid = 0;

		if (!e || !__atomic_compare_exchange_n(&e->tid, &free_tid, t->tid, false,
						       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		e->key = t->key;
		e->kind = t->kind;
		e->seeded = 1;
		__atomic_store_n(&e->from, now, __ATOMIC_SEQ_CST);
		/* asleep in the same sleep after the entry was written: its
		 * call's end will find it */
		if (!blocked_still(t)) {
			unseed(e);
			continue;
		}
		l->v[kept++] = *t;
	}
	l->n = kept;
	return kept;
}

size_t sleeps_seeds_left(struct pt_sleeps *z, struct blocked_list *l)
{
	size_t kept = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct blocked_task *t = &l->v[i];
		struct pt_sleep *e = entry_of(z, t->tid);
		char dir[64];

		if (!seeded_for(e, t->tid))
			continue;
		/* an end no program saw: the thread is gone */
		snprintf(dir, sizeof(dir), "/proc/%u/task/%u", t->key.tgid, t->tid);
		if (access(dir, F_OK)) {
			unseed(e);
			continue;
		}
		l->v[kept++] = *t;
	}
	l->n = kept;
	return kept;
}

void sleeps_unbind(struct pt_sleeps *z)
{
	if (z->e)
		munmap(z->e, z->len);
	z->e = NULL;
}
