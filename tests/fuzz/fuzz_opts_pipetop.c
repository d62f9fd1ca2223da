// SPDX-License-Identifier: GPL-2.0
#include "pipetop/opts.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_argv a;
	struct pipetop_opts o;
	char err[256] = "";
	int rc;

	fuzz_argv(&a, data, size, "pipetop");
	rc = pipetop_parse(a.argc, a.argv, &o, fuzz_devnull(), err, sizeof(err));
	if (rc == CLI_USAGE)
		fuzz_check_err(err, sizeof(err));
	else if (rc == CLI_RUN && (o.interval < PIPETOP_MIN_INTERVAL ||
				   o.interval > PIPETOP_MAX_INTERVAL))
		abort();
	free(a.buf);
	return 0;
}
