// SPDX-License-Identifier: GPL-2.0
#include "pipetop/opts.h"
#include "fuzz_argv.h"

FUZZ_OPTS_TARGET("pipetop", struct pipetop_opts, pipetop_parse,
		 o.interval >= PIPETOP_MIN_INTERVAL &&
		 o.interval <= PIPETOP_MAX_INTERVAL)
