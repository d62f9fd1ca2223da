# syscall tier: bpf/syscall_tier.bpf.c + src/tier_syscall.c
BPF_OBJS  += syscall_tier
TIER_OBJS += tier_syscall
