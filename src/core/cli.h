/* SPDX-License-Identifier: GPL-2.0 */
/* What every front end's command line and start-up share. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stddef.h>
#include "load_opts.h"

/* Seconds: a finite decimal number > 0 and <= max; -1 for anything else. */
double cli_seconds(const char *s, double max);
/* A whole decimal number in min..max; -1 for anything else (min >= 0). */
long cli_long(const char *s, long min, long max);
/*
 * The options every front end shares, into its load options: -p (adds a
 * process), -n (command name), --tier. False with a one-line reason in err.
 */
bool cli_add_pid(struct pt_load_opts *o, const char *arg, char *err, size_t n);
bool cli_set_comm(struct pt_load_opts *o, const char *arg, char *err, size_t n);
bool cli_set_tier(struct pt_load_opts *o, const char *arg, char *err, size_t n);
/* --max-keys: the in-kernel counter map's size */
bool cli_set_max_keys(struct pt_load_opts *o, const char *arg, char *err, size_t n);

#endif
