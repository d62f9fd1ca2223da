// SPDX-License-Identifier: GPL-2.0
/* pipestat --advise: a heading per interval, one line per pipe worth a remark. */
#include <string.h>
#include <time.h>
#include "advise.h"
#include "output/ends.h"
#include "output/fmt.h"
#include "output/report.h"

int out_advise_report(FILE *f, const struct pt_report *r)
{
	time_t t = (time_t)r->time;
	char when[16], text[2048], ends[1024], safe[1024], pipe[48];
	struct advice a;
	int said = 0;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	fprintf(f, "%s  tier: %s  interval: %.2fs  advice per pipe (%s)\n", when,
		tier_name(r->env->tier), r->interval_s, advise_threshold());
	for (size_t i = 0; i < r->rows->n; i++) {
		const struct pt_row *row = &r->rows->v[i];
		int len;

		if (!advise_pipe(text, sizeof(text), row, r->ends, r->env, &a))
			continue;
		said++;
		fmt_pipe(pipe, sizeof(pipe), row->key.dev, row->key.ino);
		fprintf(f, "pipe %s", pipe);
		if (r->ends) {
			ends_names(ends, sizeof(ends), r->ends, &row->key, true);
			len = strlen(ends);
			len += snprintf(ends + len, sizeof(ends) - len, " -> ");
			ends_names(ends + len, sizeof(ends) - len, r->ends, &row->key, false);
			/* process names are anyone's: no terminal control */
			fprintf(f, " %s", fmt_printable(safe, sizeof(safe), ends, sizeof(ends)));
		}
		fprintf(f, ": %s\n", text);
	}
	if (!said)
		fputs("no pipe worth a remark\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
