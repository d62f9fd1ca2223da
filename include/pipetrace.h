/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by the BPF programs and user space. Plain __u types only. */
#ifndef PIPETRACE_H
#define PIPETRACE_H

#define PT_COMM_LEN	16
#define PT_MAX_PIDS	64	/* -p may be given this many times */

/*
 * One aggregation key: the finest grain the kernel side keeps. User space
 * folds rows to the key the user asked for (total, pid, comm, pipe).
 */
struct pt_key {
	__u32 tgid;
	__u32 dev;		/* s_dev of the pipe's inode */
	__u64 ino;		/* pipe inode number (pipefs or FIFO) */
	char comm[PT_COMM_LEN];
};

/*
 * Counters kept per key. Every field is a plain event count; what each tier
 * can fill in is decided in user space (src/metrics.c).
 */
struct pt_counts {
	__u64 reads;		/* read, readv, preadv2 calls on a pipe */
	__u64 writes;		/* write, writev, pwritev2 calls on a pipe */
	__u64 read_bytes;
	__u64 write_bytes;
	__u64 eagain_read_nonblock;	/* -EAGAIN, file has O_NONBLOCK */
	__u64 eagain_read_nowait;	/* -EAGAIN, RWF_NOWAIT / IOCB_NOWAIT only */
	__u64 eagain_write_nonblock;
	__u64 eagain_write_nowait;
	__u64 eagain_empty;	/* by reason, where the tier knows it */
	__u64 eagain_full;
	__u64 eagain_lock;
	__u64 eagain_nopage;
	__u64 bufs_new;		/* buffers taken by writes for new slots */
	__u64 pool_hits;	/* pages taken from the pipe's cache/pool */
	__u64 alloc_locked;	/* pages allocated with pipe->mutex held */
	__u64 alloc_unlocked;	/* pages allocated before the lock (prefill) */
	__u64 prefill_dropped;
	__u64 read_bufs;	/* buffers reads copied from */
	__u64 read_sections;	/* user-access sections reads opened */
	__u64 splice_in;	/* splice/tee/vmsplice calls into a pipe */
	__u64 splice_in_bytes;
	__u64 splice_out;	/* splice/tee/vmsplice calls out of a pipe */
	__u64 splice_out_bytes;
	__u64 eagain_splice;
	__u64 uring_reads;	/* of reads/writes: io_uring completions */
	__u64 uring_writes;
};

#endif /* PIPETRACE_H */
