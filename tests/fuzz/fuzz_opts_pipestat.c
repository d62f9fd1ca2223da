// SPDX-License-Identifier: GPL-2.0
#include "pipestat/opts.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_argv a;
	struct pipestat_opts o;
	char err[256] = "";
	int rc;

	fuzz_argv(&a, data, size, "pipestat");
	rc = pipestat_parse(a.argc, a.argv, &o, fuzz_devnull(), err, sizeof(err));
	if (rc == CLI_USAGE)
		fuzz_check_err(err, sizeof(err));
	else if (rc == CLI_RUN && o.interval && o.interval < PIPESTAT_MIN_INTERVAL)
		abort();
	free(a.buf);
	return 0;
}
