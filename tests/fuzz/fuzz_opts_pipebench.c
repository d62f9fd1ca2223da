// SPDX-License-Identifier: GPL-2.0
#include "pipebench/pipebench.h"
#include "fuzz_argv.h"

FUZZ_OPTS_TARGET("pipebench", struct pb_opts, pb_parse, o.reps > 0)
