// SPDX-License-Identifier: GPL-2.0
/* Log2 histograms per key, in the style of biolatency. */
#include <string.h>
#include "fmt.h"
#include "report.h"

static const struct {
	const char *name;
	const char *unit;
} hists[PT_NHIST] = {
	[PT_HIST_WRITE_SIZE] = { "write_size", "bytes" },
	[PT_HIST_READ_SIZE] = { "read_size", "bytes" },
	[PT_HIST_OCCUPANCY] = { "occupancy", "slots in use at a write" },
	[PT_HIST_WAIT_READ] = { "wait_read", "ns per reader sleep" },
	[PT_HIST_WAIT_WRITE] = { "wait_write", "ns per writer sleep" },
};

#define BAR_WIDTH 40

long hist_parse(const char *list)
{
	char buf[256], *save, *name;
	long mask = 0;

	if (!*list || strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int h;

		for (h = 0; h < PT_NHIST && strcmp(name, hists[h].name); h++)
			;
		if (h < PT_NHIST)
			mask |= 1L << h;
		else if (!strcmp(name, "all"))
			mask |= (1L << PT_NHIST) - 1;
		else
			return -1;
	}
	return mask;
}

const char *hist_name(enum pt_hist h)
{
	return hists[h].name;
}

__u64 hist_range(const __u64 *slot, int *first, int *last)
{
	__u64 max = 0;

	*first = *last = -1;
	for (int s = 0; s < PT_HIST_SLOTS; s++) {
		if (!slot[s])
			continue;
		if (*first < 0)
			*first = s;
		*last = s;
		if (slot[s] > max)
			max = slot[s];
	}
	return max;
}

static void print_hist(FILE *f, enum pt_hist h, const __u64 *slot)
{
	int first, last;
	__u64 max = hist_range(slot, &first, &last);

	if (!max)
		return;
	fprintf(f, "  %s (%s)\n", hists[h].name, hists[h].unit);
	fprintf(f, "  %22s : %-10s distribution\n", "value", "count");
	for (int s = first; s <= last; s++) {
		unsigned long long lo = s ? 1ULL << s : 0, hi = (2ULL << s) - 1;
		int bar = (int)((slot[s] * BAR_WIDTH + max - 1) / max);
		char stars[BAR_WIDTH + 1];

		memset(stars, '*', bar);
		stars[bar] = '\0';
		fprintf(f, "  %10llu -> %-8llu : %-10llu |%-*s|\n", lo, hi,
			(unsigned long long)slot[s], BAR_WIDTH, stars);
	}
}

int out_hist_report(FILE *f, const struct pt_report *r, unsigned int mask)
{
	for (size_t i = 0; i < out_nrows(r); i++) {
		const struct pt_row *row = &r->rows->v[i];
		char key[96];

		if (!row->hist)
			continue;
		fmt_key(key, sizeof(key), r->rows->by, &row->key);
		fprintf(f, "%s\n", key);
		for (int h = 0; h < PT_NHIST; h++)
			if (mask & (1u << h))
				print_hist(f, h, row->hist[h]);
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}
