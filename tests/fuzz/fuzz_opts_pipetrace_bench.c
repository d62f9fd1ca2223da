// SPDX-License-Identifier: GPL-2.0
#include "pipetrace-bench/pipetrace-bench.h"
#include "fuzz_argv.h"

FUZZ_OPTS_TARGET("pipetrace-bench", struct pb_opts, pb_parse, o.reps > 0)
