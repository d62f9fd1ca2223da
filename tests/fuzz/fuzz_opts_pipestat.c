// SPDX-License-Identifier: GPL-2.0
#include "pipestat/opts.h"
#include "fuzz_argv.h"

FUZZ_OPTS_TARGET("pipestat", struct pipestat_opts, pipestat_parse,
		 !o.interval || o.interval >= PIPESTAT_MIN_INTERVAL)
