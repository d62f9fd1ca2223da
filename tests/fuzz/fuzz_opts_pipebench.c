// SPDX-License-Identifier: GPL-2.0
#include "pipebench/pipebench.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_argv a;
	struct pb_opts o;
	char err[256] = "";

	fuzz_argv(&a, data, size, "pipebench");
	if (pb_parse(a.argc, a.argv, &o, fuzz_devnull(), err, sizeof(err)) == CLI_USAGE)
		fuzz_check_err(err, sizeof(err));
	free(a.buf);
	return 0;
}
