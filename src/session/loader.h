/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and attaching: picks the best tier this kernel allows, loads its
 * BPF object, and drains its counters with read-and-reset.
 */
#ifndef LOADER_H
#define LOADER_H

#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include "core/load_opts.h"
#include "core/metrics.h"
#include "core/rows.h"

struct bpf_object;

struct pt_session {
	enum pt_tier tier;
	void *skel;
	void (*destroy)(void *skel);
	struct bpf_object *obj;
	__u32 *epoch;			/* in the object's .bss */
	__u64 *keys_dropped;
	__u64 dropped_seen;
	int counts_fd[2];
	__u32 max_keys;
	struct pt_key *keys;		/* drain buffers, max_keys each */
	struct pt_counts *vals;
};

/* A tier's glue: can it run here, and how to load and attach it. */
struct pt_tier_ops {
	enum pt_tier tier;
	/* 0 if usable; else fills why (one line) and returns -1 */
	int (*probe)(char *why, size_t n);
	int (*open)(struct pt_session *s, const struct pt_load_opts *o);
};

extern const struct pt_tier_ops tier_tracepoint_ops;
extern const struct pt_tier_ops tier_function_ops;
extern const struct pt_tier_ops tier_syscall_ops;

/*
 * For tier glue, after its own set-up of the opened skeleton (rodata,
 * autoload): what every BPF object shares (agg.bpf.h), the filters from
 * the options with this process left out, the counter map size; then
 * load and bind. 0 or a negative errno; attaching is the glue's.
 */
#define PT_LOAD_SKEL(s, o, skel, load) ({				\
	int err_;							\
	(skel)->rodata->self_tgid = getpid();				\
	(skel)->rodata->filter_pids = (o)->npids > 0;			\
	(skel)->rodata->filter_comm = (o)->comm[0] != '\0';		\
	memcpy((char *)(skel)->rodata->comm_filter, (o)->comm, PT_COMM_LEN); \
	err_ = pt_session_size((s)->obj, o);				\
	if (!err_)							\
		err_ = load(skel);					\
	if (!err_) {							\
		(s)->epoch = &(skel)->bss->epoch;			\
		(s)->keys_dropped = &(skel)->bss->keys_dropped;		\
		err_ = pt_session_bind(s, o);				\
	}								\
	err_;								\
})

/* Returns 0, or -1 with a one-line reason in err. */
int pt_session_open(struct pt_session *s, const struct pt_load_opts *o,
		    char *err, size_t n);
/* Moves everything counted so far into rows (added, not replaced). */
int pt_session_drain(struct pt_session *s, struct pt_rows *rows, __u64 *untracked);
void pt_session_close(struct pt_session *s);

/* For tier glue: the parts of every BPF object that agg.bpf.h declares. */
int pt_session_bind(struct pt_session *s, const struct pt_load_opts *o);
/* For tier glue, before load: sizes the counter maps (--max-keys). */
int pt_session_size(struct bpf_object *obj, const struct pt_load_opts *o);

#endif
