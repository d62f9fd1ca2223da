/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pipe buffer pages seen at kmem:mm_page_alloc, for the tiers without the
 * pipe:pipe_page_get event (syscall, function).
 */
#ifndef PIPE_PAGE_BPF_H
#define PIPE_PAGE_BPF_H

/* GFP_HIGHUSER | __GFP_ACCOUNT on the running kernel, set by the loader */
const volatile __u32 pipe_page_gfp = 0;

/* A pipe buffer page is order 0 with exactly pipe_page_gfp; a fault on
 * the user buffer allocates with other flags. */
static __always_inline bool is_pipe_page(unsigned int order, gfp_t gfp_flags)
{
	return !order && gfp_flags == pipe_page_gfp;
}

#endif
