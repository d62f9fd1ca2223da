// SPDX-License-Identifier: GPL-2.0
/* Folding fine-grained kernel keys into rows of the key the user chose. */
#include <stdlib.h>
#include "output/ends.h"
#include "model/rows.h"
#include "unit.h"

static struct pt_key key(__u32 tgid, const char *comm, __u64 ino)
{
	struct pt_key k = { .tgid = tgid, .dev = 12, .ino = ino };

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	return k;
}

static void fold_by(void)
{
	struct pt_key keys[] = {
		key(10, "make", 100), key(10, "make", 101),
		key(11, "make", 100), key(12, "cat", 102),
	};
	struct pt_counts c = { .reads = 1, .write_bytes = 10 };
	struct { enum pt_by by; size_t rows; } cases[] = {
		{ PT_BY_TOTAL, 1 }, { PT_BY_PID, 3 }, { PT_BY_COMM, 2 },
		{ PT_BY_PIPE, 3 }, { PT_BY_PIPE_PID, 4 }, { PT_BY_CGROUP, 2 },
	};

	/* -k cgroup: two cgroups over three processes */
	keys[0].cgroup = keys[1].cgroup = keys[2].cgroup = 7;
	keys[3].cgroup = 8;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pt_rows r;
		__u64 reads = 0;

		rows_init(&r, cases[i].by);
		for (size_t k = 0; k < 4; k++)
			CHECK(rows_add(&r, &keys[k], &c) == 0);
		CHECK(r.n == cases[i].rows);
		for (size_t k = 0; k < r.n; k++)
			reads += r.v[k].c.reads;
		CHECK(reads == 4);	/* nothing lost or counted twice */
		rows_free(&r);
	}
}

static void fold_clears_unused_fields(void)
{
	struct pt_key k = key(10, "make", 100);
	struct pt_counts c = { .writes = 3 };
	struct pt_rows r;

	rows_init(&r, PT_BY_COMM);
	rows_add(&r, &k, &c);
	CHECK(r.v[0].key.tgid == 0 && r.v[0].key.ino == 0 && r.v[0].key.dev == 0);
	CHECK_STR(r.v[0].key.comm, "make");
	rows_free(&r);
	rows_init(&r, PT_BY_PIPE);
	rows_add(&r, &k, &c);
	CHECK(r.v[0].key.tgid == 0 && r.v[0].key.comm[0] == 0 && r.v[0].key.ino == 100);
	rows_free(&r);
	k.cgroup = 9;
	rows_init(&r, PT_BY_CGROUP);
	rows_add(&r, &k, &c);
	CHECK(r.v[0].key.tgid == 0 && r.v[0].key.comm[0] == 0 && r.v[0].key.ino == 0 &&
	      r.v[0].key.cgroup == 9);
	rows_free(&r);
	rows_init(&r, PT_BY_PID);
	rows_add(&r, &k, &c);
	CHECK(r.v[0].key.cgroup == 0);	/* only -k cgroup keeps it */
	rows_free(&r);
}

static void many_keys_and_sort(void)
{
	struct pt_rows r;
	const size_t n = 20000;

	int failures = 0;

	rows_init(&r, PT_BY_PIPE);
	for (size_t i = 0; i < n; i++) {
		struct pt_key k = key(1, "x", i);
		struct pt_counts c = { .read_bytes = i % 1000 };

		failures += rows_add(&r, &k, &c) != 0;
	}
	CHECK(failures == 0);
	/* the same keys again: rows are found through the grown index */
	for (size_t i = 0; i < n; i++) {
		struct pt_key k = key(1, "x", i);
		struct pt_counts c = { .reads = 1 };

		rows_add(&r, &k, &c);
	}
	CHECK(r.n == n);
	rows_sort(&r);
	CHECK(r.v[0].c.read_bytes == 999 && r.v[n - 1].c.read_bytes == 0);
	for (size_t i = 1; i < n; i++)
		failures += r.v[i - 1].c.read_bytes < r.v[i].c.read_bytes;
	CHECK(failures == 0);	/* busiest first */
	/* after sorting the index still finds each row */
	{
		struct pt_key k = key(1, "x", 4321);
		struct pt_counts c = { .writes = 5 };

		rows_add(&r, &k, &c);
		CHECK(r.n == n);
		for (size_t i = 0; i < n; i++)
			if (r.v[i].key.ino == 4321)
				CHECK(r.v[i].c.writes == 5 && r.v[i].c.reads == 1);
	}
	rows_clear(&r);
	CHECK(r.n == 0);
	rows_free(&r);
}

/* -k pipe: each pipe's writers and readers, from rows by pipe and process */
static void ends(void)
{
	struct pt_rows ends, pipes;
	struct pt_counts w = { .writes = 3, .write_bytes = 30 }, r = { .reads = 2 };
	struct pt_counts none = {}, ea = { .eagain_read_nonblock = 1 };
	struct pt_key k = { .dev = 5, .ino = 100 };
	char buf[1024];

	rows_init(&ends, PT_BY_PIPE_PID);
	rows_init(&pipes, PT_BY_PIPE);
	strcpy(k.comm, "dd");
	k.tgid = 12;
	rows_add(&ends, &k, &w);
	strcpy(k.comm, "cat");
	k.tgid = 13;
	rows_add(&ends, &k, &r);
	k.tgid = 11;
	rows_add(&ends, &k, &ea);		/* tried to read: a reader */
	k.tgid = 14;
	rows_add(&ends, &k, &none);		/* neither */
	k.ino = 99;
	k.tgid = 20;
	strcpy(k.comm, "other");
	rows_add(&ends, &k, &w);
	for (int i = 0; i < 40; i++) {		/* a pipe with many writers */
		k.ino = 7;
		k.tgid = 1000 + i;
		rows_add(&ends, &k, &w);
	}
	CHECK(rows_fold(&pipes, &ends) == 0);
	CHECK(pipes.n == 3);
	ends_sort(&ends);
	k.ino = 100;
	ends_names(buf, sizeof(buf), &ends, &k, true);
	CHECK_STR(buf, "dd[12]");
	ends_names(buf, sizeof(buf), &ends, &k, false);
	CHECK_STR(buf, "cat[11],cat[13]");
	k.ino = 99;
	ends_names(buf, sizeof(buf), &ends, &k, false);
	CHECK_STR(buf, "");
	k.ino = 7;
	ends_names(buf, sizeof(buf), &ends, &k, true);
	CHECK(strncmp(buf, "other[1000],other[1001],", 24) == 0);
	CHECK_STR(buf + strlen(buf) - 4, "],+8");	/* 40 - 32 */
	k.ino = 100;
	k.dev = 6;				/* same inode, another device */
	ends_names(buf, sizeof(buf), &ends, &k, true);
	CHECK_STR(buf, "");
	/* issue 26.4: a name that holds list syntax is quoted */
	k.dev = 5;
	k.ino = 8;
	k.tgid = 30;
	strcpy(k.comm, "x[1],y");
	rows_add(&ends, &k, &w);
	ends_sort(&ends);
	ends_names(buf, sizeof(buf), &ends, &k, true);
	CHECK_STR(buf, "\"x[1],y\"[30]");
	for (size_t i = 0; i < pipes.n; i++)
		if (pipes.v[i].key.ino == 100)
			CHECK(pipes.v[i].c.writes == 3 && pipes.v[i].c.reads == 2);
	rows_free(&ends);
	rows_free(&pipes);
}

/* The ring's state is folded, not summed: the smallest ring with its
 * owner, the highest peak; full writes are counted */
static void fold_ring(void)
{
	struct pt_counts a = { .ring_full_writes = 2, .ring_slots = 16, .ring_peak = 16,
			       .ring_owner_uid = 1000, .ring_owner_pages = 40 };
	struct pt_counts b = { .ring_full_writes = 3, .ring_slots = 2, .ring_peak = 1,
			       .ring_owner_uid = 1001, .ring_owner_pages = 90 };
	struct pt_counts reader = { .reads = 5 };
	struct pt_key ka = key(10, "w", 100), kb = key(10, "w", 101);
	struct pt_rows r;

	rows_init(&r, PT_BY_PID);
	CHECK(rows_add(&r, &ka, &a) == 0 && rows_add(&r, &kb, &b) == 0);
	CHECK(rows_add(&r, &ka, &reader) == 0);	/* no ring seen: no change */
	CHECK(r.n == 1 && r.v[0].c.ring_full_writes == 5);
	CHECK(r.v[0].c.ring_slots == 2 && r.v[0].c.ring_peak == 16);
	CHECK(r.v[0].c.ring_owner_uid == 1001 && r.v[0].c.ring_owner_pages == 90);
	rows_free(&r);
	rows_init(&r, PT_BY_PIPE);
	CHECK(rows_add(&r, &kb, &reader) == 0 && rows_add(&r, &kb, &b) == 0);
	CHECK(r.n == 1 && r.v[0].c.ring_slots == 2 && r.v[0].c.ring_peak == 1);
	rows_free(&r);
}

/* -k comm: one command's writers and readers apart, a middle stage in
 * both, each with its own waits; Prometheus' look-up (rows_find) is by
 * the key alone */
static void fold_sides(void)
{
	struct pt_counts w = { .writes = 7, .write_bytes = 70, .wait_write_ns = 300 };
	struct pt_counts rd = { .reads = 5, .read_bytes = 70, .wait_read_ns = 200 };
	struct pt_counts lock = { .lock_contended = 1 };
	struct pt_key k1 = key(10, "python3", 100), k2 = key(11, "python3", 100);
	struct pt_key k3 = key(11, "python3", 101), k4 = key(12, "python3", 101);
	struct pt_key k5 = key(13, "python3", 102);
	struct pt_rows ends, comm;
	int sides[4] = {};

	rows_init(&ends, PT_BY_PIPE_PID);
	rows_init(&comm, PT_BY_COMM);
	CHECK(!rows_add(&ends, &k1, &w) && !rows_add(&ends, &k2, &rd));
	CHECK(!rows_add(&ends, &k3, &w) && !rows_add(&ends, &k4, &rd));
	CHECK(!rows_fold(&comm, &ends));
	CHECK(comm.n == 2);
	for (size_t i = 0; i < comm.n; i++) {
		const struct pt_row *row = &comm.v[i];

		sides[row->side]++;
		CHECK_STR(row->key.comm, "python3");
		if (row->side == PT_SIDE_WRITE)
			CHECK(row->c.writes == 14 && !row->c.reads &&
			      row->c.wait_write_ns == 600 && !row->c.wait_read_ns);
		else
			CHECK(row->side == PT_SIDE_READ && row->c.reads == 10 &&
			      !row->c.writes && row->c.wait_read_ns == 400);
	}
	CHECK(sides[PT_SIDE_WRITE] == 1 && sides[PT_SIDE_READ] == 1);
	/* one pipe read and written by one process; one only contended */
	CHECK(!rows_add(&ends, &k1, &rd) && !rows_add(&ends, &k5, &lock));
	rows_clear(&comm);
	CHECK(!rows_fold(&comm, &ends));
	CHECK(comm.n == 4);
	for (size_t i = 0; i < comm.n; i++) {
		if (comm.v[i].side == PT_SIDE_BOTH)
			CHECK(comm.v[i].c.writes == 7 && comm.v[i].c.reads == 5);
		if (comm.v[i].side == PT_SIDE_NONE)
			CHECK(comm.v[i].c.lock_contended == 1 && !comm.v[i].c.reads);
	}
	/* Prometheus' look-up finds the row of no side */
	CHECK(rows_has(&comm, &k5) && comm.v[rows_find(&comm, &k1)].side == PT_SIDE_NONE);
	CHECK(rows_key_cmp(&comm.v[0], &comm.v[1]) != 0);
	CHECK_STR(side_name(PT_SIDE_WRITE), "write");
	CHECK(side_name(PT_SIDE_NONE) == NULL && by_has_side(PT_BY_COMM));
	CHECK(!by_has_side(PT_BY_PID) && !by_has_side(PT_BY_PIPE));
	/* another key folds sides together, as before */
	rows_free(&comm);
	rows_init(&comm, PT_BY_PID);
	CHECK(!rows_fold(&comm, &ends));
	CHECK(comm.n == 4);
	for (size_t i = 0; i < comm.n; i++)
		CHECK(comm.v[i].side == PT_SIDE_NONE);
	rows_free(&comm);
	rows_free(&ends);
}

static void names(void)
{
	CHECK(by_parse("total") == PT_BY_TOTAL);
	CHECK(by_parse("pipe") == PT_BY_PIPE);
	CHECK(by_parse("Pipe") == -1);
	CHECK_STR(by_name(PT_BY_COMM), "comm");
}

int main(void)
{
	ends();
	fold_by();
	fold_clears_unused_fields();
	many_keys_and_sort();
	fold_ring();
	fold_sides();
	names();
	return unit_summary("test_rows");
}
