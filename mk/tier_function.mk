# function tier: bpf/function_tier.bpf.c + src/tier_function.c
BPF_OBJS  += function_tier
TIER_OBJS += tier_function
