# tracepoint tier: bpf/tracepoint_tier.bpf.c + src/tier_tracepoint.c
BPF_OBJS  += tracepoint_tier
TIER_OBJS += tier_tracepoint
