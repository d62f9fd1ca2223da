// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's preemption model, from what it says of itself: its version
 * string names the build (uname -v: PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT,
 * or none of them), and a PREEMPT_DYNAMIC kernel's mode is in debugfs,
 * else on its command line (preempt=), else the default its config chose.
 * Every file read here is the kernel's own or root's (/boot).
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>
#include "preempt.h"

static const struct {
	const char *name;
	int preempts;
} models[] = {
	{ "none", 0 }, { "voluntary", 0 }, { "full", 1 }, { "lazy", 1 }, { "rt", 1 },
};

/* The model named by the len bytes at name: 1, 0, or -1 if none is. */
static int model_is(const char *name, size_t len, char *model, size_t n)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (strlen(models[i].name) == len && !strncmp(models[i].name, name, len)) {
			snprintf(model, n, "%s", models[i].name);
			return models[i].preempts;
		}
	return -1;
}

static size_t read_small(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	size_t len;

	if (!f)
		return 0;
	len = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[len] = 0;
	return len;
}

/* debugfs's sched/preempt lists the modes, the one in force in brackets:
 * "none voluntary (full) lazy" */
static int from_debugfs(char *model, size_t n)
{
	char buf[128], *open, *close;

	if (!read_small("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)))
		return -1;
	open = strchr(buf, '(');
	close = open ? strchr(open, ')') : NULL;
	return close ? model_is(open + 1, close - open - 1, model, n) : -1;
}

/* The last preempt=MODE on the kernel's command line, as the kernel takes it */
static int from_cmdline(char *model, size_t n)
{
	char buf[4096], *p;
	int r = -1;

	if (!read_small("/proc/cmdline", buf, sizeof(buf)))
		return -1;
	for (p = buf; (p = strstr(p, "preempt=")); p++)
		if (p == buf || p[-1] == ' ')
			r = model_is(p + 8, strcspn(p + 8, " \n"), model, n);
	return r;
}

/* The model the config chose (CONFIG_PREEMPT_{NONE,VOLUNTARY,,LAZY}=y),
 * from /boot/config-RELEASE or /proc/config.gz (zlib reads either) */
static int from_config(const char *release, char *model, size_t n)
{
	static const struct { const char *line, *model; } choice[] = {
		{ "CONFIG_PREEMPT_NONE=y\n", "none" },
		{ "CONFIG_PREEMPT_VOLUNTARY=y\n", "voluntary" },
		{ "CONFIG_PREEMPT=y\n", "full" },
		{ "CONFIG_PREEMPT_LAZY=y\n", "lazy" },
	};
	char path[320], line[256];
	gzFile f;
	int r = -1;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = gzopen(path, "rb");
	if (!f)
		f = gzopen("/proc/config.gz", "rb");
	if (!f)
		return -1;
	while (r < 0 && gzgets(f, line, sizeof(line)))
		for (size_t i = 0; i < sizeof(choice) / sizeof(choice[0]); i++)
			if (!strcmp(line, choice[i].line))
				r = model_is(choice[i].model, strlen(choice[i].model), model, n);
	gzclose(f);
	return r;
}

/* The word of uname -v that starts with PREEMPT into word, or "" */
static void build_word(const char *version, char *word, size_t n)
{
	const char *p = version;

	word[0] = 0;
	while ((p = strstr(p, "PREEMPT"))) {
		if (p == version || p[-1] == ' ') {
			snprintf(word, n, "%.*s", (int)strcspn(p, " "), p);
			break;
		}
		p++;
	}
}

int preempt_kernel(char *model, size_t n)
{
	struct utsname u;
	char word[32];
	int r;

	snprintf(model, n, "unknown");
	if (uname(&u))
		return -1;
	build_word(u.version, word, sizeof(word));
	if (!strcmp(word, "PREEMPT_RT"))
		return model_is("rt", 2, model, n);
	if (!strcmp(word, "PREEMPT_DYNAMIC")) {
		r = from_debugfs(model, n);
		if (r < 0)
			r = from_cmdline(model, n);
		return r < 0 ? from_config(u.release, model, n) : r;
	}
	/* a fixed model: PREEMPT (full or lazy) or no word (none, voluntary) */
	r = from_config(u.release, model, n);
	if (r < 0)
		snprintf(model, n, "%s", word[0] ? "full" : "voluntary");
	return word[0] != 0;
}

bool perf_tracepoint(int preempts, const char *event)
{
	/* libbpf 1.1 reads the ids under debugfs when that has tracing */
	static const char *const roots[] = { "/sys/kernel/debug/tracing", "/sys/kernel/tracing" };
	char path[128];

	if (!preempts)
		return false;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (access(roots[i], F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], event);
		return access(path, R_OK) == 0;
	}
	return false;
}

const char *tracepoint_path(bool perf, int preempts)
{
	if (perf)
		return "tracepoints by perf";
	return preempts ? "tp_btf tracepoints (no tracefs: runs can be skipped)" :
			  "tp_btf tracepoints";
}
