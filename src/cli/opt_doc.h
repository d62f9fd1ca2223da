/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The documents made from a front end's option table (opt_table.h) at
 * build time: the man page's OPTIONS entries and its bash completion.
 */
#ifndef OPT_DOC_H
#define OPT_DOC_H

#include <stdio.h>
#include "opt_table.h"

/* the man page's entries: ".TP", the names, the entry's roff */
void opt_doc_man(FILE *out, const struct opt_tool *t);
/* a bash completion function for the tool, and its complete line */
void opt_doc_completion(FILE *out, const struct opt_tool *t);
/* "--name -x" ("-" for no letter) per documented option: for checks */
void opt_doc_list(FILE *out, const struct opt_tool *t);

#endif
