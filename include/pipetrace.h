/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by the BPF programs and user space. Plain __u types only. */
#ifndef PIPETRACE_H
#define PIPETRACE_H

#define PT_COMM_LEN	16
#define PT_MAX_PIDS	64	/* -p may be given this many times */
#define PT_DEFAULT_KEYS	16384	/* counter map entries without --max-keys */

/*
 * One aggregation key: the finest grain the kernel side keeps. User space
 * folds rows to the key the user asked for (total, pid, comm, pipe).
 */
struct pt_key {
	__u32 tgid;
	__u32 dev;		/* s_dev of the pipe's inode */
	__u64 ino;		/* pipe inode number (pipefs or FIFO) */
	char comm[PT_COMM_LEN];
	__u64 cgroup;		/* cgroup v2 id of the task; only with -k cgroup */
};

/*
 * Raw event counts kept per key: each field counts one kind of event a
 * tier's programs see (the comment says which tiers count it). Nothing
 * here is derived; what a column makes of these fields, per tier and knob
 * state, is src/model/metrics.c's table.
 */
struct pt_counts {
	__u64 reads;		/* read calls on a pipe (read, readv, preadv2, io_uring) */
	__u64 writes;		/* write calls on a pipe */
	__u64 read_bytes;
	__u64 write_bytes;
	__u64 eagain_read_nonblock;	/* -EAGAIN, file has O_NONBLOCK */
	__u64 eagain_read_nowait;	/* -EAGAIN, RWF_NOWAIT / IOCB_NOWAIT only */
	__u64 eagain_write_nonblock;
	__u64 eagain_write_nowait;
	__u64 eagain_empty;	/* tracepoint: pipe_eagain's reason */
	__u64 eagain_full;
	__u64 bufs_new;		/* ring slots writes filled with a new page
				 * (tracepoint: pipe_page_get; function: from
				 * the byte count; syscall: ring head moves) */
	__u64 pool_hits;	/* tracepoint: pipe_page_get from the pool */
	__u64 alloc_locked;	/* pages allocated holding pipe->mutex
				 * (tracepoint: pipe_page_get; else all of
				 * a write's, or by the mutex's owner on a
				 * kernel with a prefill path) */
	__u64 alloc_unlocked;	/* pages allocated without it (prefill) */
	__u64 alloc_wasted;	/* of both, by writes that moved no byte */
	__u64 prefill_dropped;	/* tracepoint: pipe_prefill's dropped */
	__u64 read_bufs;	/* buffers reads copied from */
	__u64 read_sections;	/* user-access sections reads opened */
	__u64 read_sections_unknown;	/* syscall, function: reads whose
					 * sections could not be counted */
	__u64 splice_in;	/* syscall: splice/tee/vmsplice into a pipe */
	__u64 splice_in_bytes;
	__u64 splice_out;	/* syscall: splice/tee/vmsplice out of a pipe */
	__u64 splice_out_bytes;
	__u64 eagain_splice;
	__u64 uring_reads;	/* syscall: of reads/writes, io_uring completions */
	__u64 uring_writes;
	__u64 waits_read;	/* sleeps of readers waiting for data */
	__u64 wait_read_ns;	/* ... and their length */
	__u64 waits_write;	/* sleeps of writers waiting for room */
	__u64 wait_write_ns;
	__u64 lock_contended;	/* pipe->mutex acquisitions that had to wait */
	__u64 lock_wait_ns;	/* ... from lock:contention_begin to _end */
	__u64 read_eof;		/* reads that returned 0: no writer left */
	__u64 ring_full_writes;	/* writes that found the ring full: waited
				 * for room or -EAGAIN on a full ring */
	/*
	 * Not counts: the ring of the key's pipe as its writes saw it
	 * (bpf/ring_seen.bpf.h). counts_add() folds them: the smallest ring
	 * (with its owner), the highest peak. 0 slots: no write seen.
	 */
	__u64 ring_slots;	/* pipe->max_usage: usable slots */
	__u64 ring_peak;	/* the most slots in use a write saw */
	__u64 ring_owner_uid;	/* pipe->user: who the pipe's pages count to */
	__u64 ring_owner_pages;	/* ... and its pipe pages (user->pipe_bufs) */
	/*
	 * User space only: a wait begun before attach, still in progress at
	 * the drain (src/session/blocked.c): when pipetrace attached
	 * (CLOCK_REALTIME s; the kernel does not say when it began); 0: none.
	 * Folded: the earliest.
	 */
	__u64 blocked_since;
	/*
	 * Not from BPF (its programs leave them 0) and not summed by
	 * counts_add(): one process's scheduler figures over the interval,
	 * from each thread's /proc/PID/task/TID/schedstat
	 * (src/os/sched_stat.c), set only on a row that is one process
	 * (-k pid, a pipe's end).
	 */
	__u64 sched_span_ns;	/* between the two reads; 0: not known */
	__u64 cpu_ns;		/* on a CPU in that span */
	__u64 runq_ns;		/* runnable, waiting on a run queue for one */
};

/*
 * The per-CPU counter cache in front of the counter hash (bpf/agg.bpf.h):
 * per CPU, PT_CACHE_SLOTS entries of generation 0, then as many of
 * generation 1. An entry holds one key for the rest of its generation's
 * interval; the drain folds the ready ones and zeroes them.
 */
#define PT_CACHE_SLOTS	64
enum pt_cache_state {
	PT_CACHE_FREE,
	PT_CACHE_CLAIMING,	/* taken; its key is being written */
	PT_CACHE_READY,		/* key written: c counts it */
};

struct pt_cached {
	__u32 state;		/* enum pt_cache_state */
	__u32 unused;
	struct pt_key key;
	struct pt_counts c;
};

/*
 * A sleep or pipe->mutex wait in progress, where user space sees it: the
 * sleeps map's entry of its thread (tid % PT_SLEEP_SLOTS, taken with a
 * compare-and-swap; a thread that finds its entry taken is counted when
 * its wait ends). Each drain credits [from, drain) to key and moves from
 * to the drain with a compare-and-swap; the wait's end counts [from, end),
 * the part before a drain that had not reached it yet into the generation
 * that drain reads. So a wait is split at interval boundaries and seen
 * while it lasts.
 */
#define PT_SLEEP_SLOTS	16384
enum pt_sleep_kind {
	PT_SLEEP_READ = 1,	/* a reader waiting for data */
	PT_SLEEP_WRITE,		/* a writer waiting for room */
	PT_SLEEP_LOCK,		/* a call waiting for its pipe's mutex */
};

struct pt_sleep {
	__u32 tid;		/* its thread; 0: free */
	__u16 kind;		/* enum pt_sleep_kind */
	/* 1: a wait that began before attach, put here by user space
	 * (src/session/blocked.c); it ends at its call's end, which the
	 * programs see with no call state (waits.bpf.h, seed_end()) */
	__u16 seeded;
	__u64 from;		/* counted up to here (CLOCK_MONOTONIC ns); 0: none */
	struct pt_key key;
};

/* Log2 histograms (pipestat --hist), kept only when asked for. */
enum pt_hist {
	PT_HIST_WRITE_SIZE,	/* bytes per write */
	PT_HIST_READ_SIZE,	/* bytes per read */
	PT_HIST_OCCUPANCY,	/* ring slots in use when a write starts */
	PT_HIST_WAIT_READ,	/* ns per reader sleep */
	PT_HIST_WAIT_WRITE,	/* ns per writer sleep */
	PT_NHIST,
};
#define PT_HIST_SLOTS	40	/* slot s: values 2^s .. 2^(s+1)-1; slot 0: 0 and 1 */

struct pt_hkey {
	struct pt_key key;
	__u32 hist;		/* enum pt_hist */
	__u32 slot;
};

/* One histogram slot: the values it counted and their sum (Prometheus
 * histograms have a _sum) */
struct pt_hval {
	__u64 n;
	__u64 sum;
};

/* Which side of a pipe a call works on; one encoding for every tier. */
enum pt_op {
	PT_OP_NONE,
	PT_OP_READ,
	PT_OP_WRITE,
	PT_OP_SPLICE,		/* splice/tee/vmsplice/sendfile: either side */
};

/*
 * A tier's hooks: its programs, or parts of one, that count some of the
 * raw counters. A session loads only the hooks the columns asked for need
 * (src/model/hooks.c says which hook counts what on each tier); programs
 * read pt_scope.hooks for the parts of theirs that run only when asked.
 */
enum pt_hook {
	PT_HOOK_CALLS = 1 << 0,	/* the pipe calls themselves: always */
	PT_HOOK_PAGES = 1 << 1,	/* pipe pages allocated or taken from the pool */
	PT_HOOK_BUFS = 1 << 2,	/* ring buffers a call filled or emptied */
	PT_HOOK_WAITS = 1 << 3,	/* sleeps inside a pipe call */
	PT_HOOK_LOCKS = 1 << 4,	/* pipe->mutex contention */
	PT_HOOK_RING = 1 << 5,	/* the ring's size, owner and peak use */
};
#define PT_HOOKS_ALL	0x3fu

/* Who is counted: each BPF object's rodata, set before load. */
struct pt_scope {
	__u32 self_tgid;	/* pipetrace's own pipe I/O is left out */
	__u8 by_pid;		/* only the processes in the pid_filter map */
	__u8 by_comm;		/* only tasks whose command is comm */
	char comm[PT_COMM_LEN];
	/*
	 * pipetrace's pid namespace (its inode; 0: the initial one): keys and
	 * -p use pids as seen there; processes it cannot see are not counted
	 */
	__u32 pidns_ino;
	__u32 hists;		/* 1 << enum pt_hist: histograms to keep */
	__u8 by_cgroup;		/* only tasks under the cgroup in cgroup_filter */
	__u8 key_cgroup;	/* keys carry the task's cgroup id (-k cgroup) */
	__u8 one_call_slot;	/* tests: every thread on one call slot
				 * (PIPETRACE_ONE_CALL_SLOT, call_slots.bpf.h) */
	__u8 one_cache_slot;	/* tests: every key on one counter cache
				 * entry per CPU (PIPETRACE_ONE_CACHE_SLOT) */
	__u8 one_sleep_slot;	/* tests: every thread on one sleeps-map
				 * entry (PIPETRACE_ONE_SLEEP_SLOT) */
	__u8 miss_switch_in;	/* tests: sched_switch programs ignore every
				 * switch-in (PIPETRACE_MISS_SWITCH_IN,
				 * waits.bpf.h) */
	__u32 hooks;		/* enum pt_hook: the hooks loaded */
};

/* The drain's handshake with the programs: each BPF object's .bss. */
struct pt_gen {
	__u32 epoch;		/* programs add into counts[epoch & 1] */
	__u32 seeded;		/* the sleeps map may hold seeded waits */
	__u64 keys_dropped;	/* events lost: the counter map was full */
	/* the last drain's time (CLOCK_MONOTONIC ns; waits in progress were
	 * counted up to it), its lowest bit the epoch it started */
	__u64 flip;
};

#endif /* PIPETRACE_H */
