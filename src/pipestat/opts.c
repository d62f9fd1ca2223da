// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stddef.h>
#include <string.h>
#include "os/cgroup.h"
#include "cli/cli.h"
#include "model/metrics.h"
#include "output/report.h"
#include "pipeline/pipeline.h"
#include "listen.h"
#include "opts.h"

#define AT(field)	offsetof(struct pipestat_opts, field)

/* -i and the positional interval: PIPESTAT_MIN_INTERVAL or more */
static bool set_interval(void *interval, const char *arg, char *err, size_t n)
{
	return cli_set_seconds(interval, arg, PIPESTAT_MIN_INTERVAL, PIPESTAT_MAX_SECONDS,
			       "invalid interval '%s': want " CLI_STR(PIPESTAT_MIN_INTERVAL)
			       " to %.0f seconds", err, n);
}

static bool set_count(void *count, const char *arg, char *err, size_t n)
{
	return cli_whole(count, arg, 1, 1L << 30,
			 "invalid count '%s': want a whole number > 0", err, n);
}

static bool set_duration(void *duration, const char *arg, char *err, size_t n)
{
	return cli_set_seconds(duration, arg, 0, PIPESTAT_MAX_SECONDS,
			       "invalid duration '%s': want seconds > 0, at most %.0f", err, n);
}

static bool set_rows(void *rows, const char *arg, char *err, size_t n)
{
	return cli_whole(rows, arg, 1, 1L << 30,
			 "invalid rows '%s': want a whole number > 0", err, n);
}

static bool set_sort(void *sort_col, const char *arg, char *err, size_t n)
{
	if ((*(int *)sort_col = column_of(arg, strlen(arg))) >= 0)
		return true;
	snprintf(err, n, "invalid sort column '%s': want one of -o's " COLUMN_NAMES, arg);
	return false;
}

static bool set_columns(void *cols, const char *arg, char *err, size_t n)
{
	return columns_parse(cols, arg, err, n);
}

static bool set_by(void *by, const char *arg, char *err, size_t n)
{
	int v = by_parse(arg);

	if (v >= 0 && v != PT_BY_PIPE_PID) {
		*(enum pt_by *)by = v;
		return true;
	}
	snprintf(err, n, "invalid key '%s': want total, pid, comm, pipe or cgroup", arg);
	return false;
}

static bool set_cgroup(void *cgroup, const char *arg, char *err, size_t n)
{
	*(const char **)cgroup = arg;
	return cgroup_check(arg, err, n);
}

static bool set_listen(void *listen, const char *arg, char *err, size_t n)
{
	char host[LISTEN_HOST_MAX];
	unsigned int port;

	*(const char **)listen = arg;
	return listen_parse(arg, host, &port, err, n);
}

/* a file's name: not empty */
static bool set_file(void *file, const char *arg, const char *opt, char *err,
		     size_t n)
{
	*(const char **)file = arg;
	if (*arg)
		return true;
	snprintf(err, n, "invalid %s '': want a file name", opt);
	return false;
}

static bool set_web_config(void *file, const char *arg, char *err, size_t n)
{
	return set_file(file, arg, "--web-config", err, n);
}

static bool set_textfile(void *file, const char *arg, char *err, size_t n)
{
	return set_file(file, arg, "--textfile", err, n);
}

static bool set_output(void *file, const char *arg, char *err, size_t n)
{
	return set_file(file, arg, "--output", err, n);
}

static bool set_graph(void *file, const char *arg, char *err, size_t n)
{
	if (pl_format_of(arg) != PL_FMT_NONE) {
		*(const char **)file = arg;
		return true;
	}
	snprintf(err, n, "invalid --graph '%s': want a file name ending .dot, .svg or .png",
		 arg);
	return false;
}

static bool set_max_series(void *max_series, const char *arg, char *err, size_t n)
{
	return cli_whole(max_series, arg, 1, 1048576,
			 "invalid --max-series '%s': want 1 to 1048576", err, n);
}

static bool set_series_ttl(void *ttl, const char *arg, char *err, size_t n)
{
	return cli_whole(ttl, arg, 0, 1L << 30,
			 "invalid --series-ttl '%s': want whole seconds, 0 for never", err, n);
}

static bool set_hist(void *hists, const char *arg, char *err, size_t n)
{
	long mask = hist_parse(arg);

	if (mask >= 0) {
		*(__u32 *)hists |= mask;
		return true;
	}
	snprintf(err, n, "invalid --hist '%s': want write_size, read_size, "
		 "occupancy, wait_read, wait_write or all", arg);
	return false;
}

/* --waits and --no-waits: the last one given counts */
static bool set_no_waits(void *waits, const char *arg, char *err, size_t n)
{
	(void)arg, (void)err, (void)n;
	*(enum pipestat_waits *)waits = PIPESTAT_WAITS_OFF;
	return true;
}

static bool set_waits(void *waits, const char *arg, char *err, size_t n)
{
	(void)arg, (void)err, (void)n;
	*(enum pipestat_waits *)waits = PIPESTAT_WAITS_ON;
	return true;
}

static bool set_resize(void *opts, const char *arg, char *err, size_t n)
{
	struct pipestat_opts *o = opts;

	if (o->resize) {
		snprintf(err, n, "--resize given twice: one pipe per run");
		return false;
	}
	o->resize = true;
	return resize_parse(arg, &o->resize_pipe, &o->resize_size, err, n);
}

static const struct opt options[] = {
	{ .flag = 'i', .name = "interval", .arg = "SEC", .set = set_interval, .at = AT(interval),
	  .help =
		"report every SEC seconds, 0.1 or more (default: once,\n"
		"at the end)",
	  .man =
		"Report every \\fISEC\\fR seconds (fractions allowed, at least 0.1)." },
	{ .flag = 'c', .name = "count", .arg = "N", .set = set_count, .at = AT(count),
	  .help =
		"stop after N intervals (needs -i)",
	  .man =
		"Stop after \\fIN\\fR intervals; needs \\fB\\-i\\fR." },
	{ .flag = 'd', .name = "duration", .arg = "SEC", .set = set_duration, .at = AT(duration),
	  .help =
		"stop after SEC seconds (default: at Ctrl-C)",
	  .man =
		"Stop \\fISEC\\fR seconds after attaching." },
	CLI_OPT_PID(struct pipestat_opts,
		"Only this process (thread group); repeatable, up to 64 times. A\n"
		"\\fIPID\\fR of no process is an error (exit 2); one that exits later\n"
		"is counted until then."),
	CLI_OPT_COMM(struct pipestat_opts,
		"Only tasks whose command name is \\fINAME\\fR (at most 15 characters)."),
	{ .flag = 'r', .name = "rows", .arg = "N", .set = set_rows, .at = AT(rows),
	  .help =
		"only the first N rows of each interval",
	  .man =
		"Only the first \\fIN\\fR rows of each interval." },
	{ .flag = 's', .name = "sort", .arg = "COLUMN", .set = set_sort, .at = AT(sort_col),
	  .values = OPT_COLUMN,
	  .help =
		"rows by this column, any -o names (not a set),\n"
		"largest first (default: bytes moved), e.g. -s eagain",
	  .man =
		"Rows by this column's value, largest first (default: bytes moved): any\n"
		"column \\fB\\-o\\fR names (a CSV column, \\fBeagain\\fR,\n"
		"\\fBwait_read_pct\\fR, \\fBwait_write_pct\\fR), not a set; rows whose\n"
		"value the tier cannot know come last." },
	{ .flag = 'o', .name = "columns", .arg = "LIST", .set = set_columns, .at = AT(cols),
	  .values = OPT_COLUMN_LIST,
	  .help =
		"the table's columns, comma-separated CSV names (and\n"
		"eagain, wait_read_pct, wait_write_pct) or sets:\n"
		"default (reads, writes, bytes of every call,\n"
		"splices too, EAGAINs, waits;\n"
		"-k pipe: no reads, writes, for its ends),\n"
		"kernel (pool, allocations, copy sections), all;\n"
		"+LIST adds to the columns so far (the default).\n"
		"Bytes in Ki/Mi/Gi (1024), wide counts in K/M/G\n"
		"(1000). CSV and JSON: every column;\n"
		"with -o those it names, the others empty (null).\n"
		"Only the hooks shown columns need are loaded\n"
		"(Tiers, below)",
	  .man =
		"The table's columns, in this order (CSV and JSON carry every column;\n"
		"with \\fB\\-o\\fR the ones it names are counted, the others empty and\n"
		"\\fBnull\\fR, see HOOKS): comma-separated CSV column names, the table's own \\fBeagain\\fR\n"
		"(\\fBeagain_read\\fR + \\fBeagain_write\\fR), \\fBwait_read_pct\\fR and\n"
		"\\fBwait_write_pct\\fR (\\fBWAIT_R%\\fR, \\fBWAIT_W%\\fR), and sets:\n"
		"\\fBdefault\\fR (READS, WRITES, R_BYTES, W_BYTES, EAGAIN, WAIT_R%,\n"
		"WAIT_W%: 80 columns; R_BYTES and W_BYTES are \\fBout_bytes\\fR and\n"
		"\\fBin_bytes\\fR, the bytes of every call, splices too; a tier that sees\n"
		"no splice shows \\fBread_bytes\\fR and \\fBwrite_bytes\\fR there, headed\n"
		"RD_BYTES and WR_BYTES; without \\fB\\-o\\fR, \\fB\\-k pipe\\fR leaves out\n"
		"READS and WRITES for its \\fBWRITERS \\-> READERS\\fR),\n"
		"\\fBkernel\\fR (the kernel developer's view: EAGAIN by side, page pool\n"
		"hits and misses, allocations with and without \\fBpipe\\->mutex\\fR, copy\n"
		"sections, splice bytes, mutex contention) and \\fBall\\fR. A \\fILIST\\fR\n"
		"starting with \\fB+\\fR adds to the columns so far (the default):\n"
		"\\fB\\-o +eof_reads\\fR. A column without a heading of its own is headed\n"
		"by its CSV name in capitals. Byte columns are shown in \\fBKi\\fR,\n"
		"\\fBMi\\fR, \\fBGi\\fR (1024) past 1023, and counts too wide for their\n"
		"column in \\fBK\\fR, \\fBM\\fR, \\fBG\\fR (1000), as the table's last line\n"
		"and pipetop say." },
	{ .name = "rate", .at = AT(rate),
	  .help =
		"counts per second of the interval, not totals (the\n"
		"table's headings say /s: r/s, w/s, rB/s, ...)",
	  .man =
		"Count columns per second of the interval (two decimals in CSV and JSON,\n"
		"whole numbers in the table, whose headings say so: \\fBr/s\\fR,\n"
		"\\fBw/s\\fR, \\fBrB/s\\fR, \\fBwB/s\\fR, \\fIHEADING\\fB/s\\fR); knob\n"
		"columns as they are." },
	{ .flag = 'k', .name = "by", .arg = "KEY", .set = set_by, .at = AT(by),
	  .values = "total pid comm pipe cgroup",
	  .help =
		"one row per: total (default; pid with -- COMMAND),\n"
		"pid (with its args), comm and side (a command's\n"
		"writers and readers apart), pipe (upstream first,\n"
		"writers -> readers), cgroup (the cgroup v2 path,\n"
		"CSV column 'cgroup')",
	  .man =
		"One row per \\fBtotal\\fR (the default; \\fBpid\\fR with \\fB\\-\\-\\fR\n"
		"\\fICOMMAND\\fR or \\fB\\-\\-demo\\fR, \\fBcomm\\fR with \\fB\\-\\-listen\\fR or\n"
		"\\fB\\-\\-textfile\\fR), \\fBpid\\fR, \\fBcomm\\fR, \\fBpipe\\fR\n"
		"(the pipe's inode number: \\fBpipe:[\\fIino\\fB]\\fR in /proc/PID/fd, or the\n"
		"FIFO's inode) or \\fBcgroup\\fR (the task's cgroup v2 path below the\n"
		"cgroup2 mount, \\fBid:\\fIN\\fR once removed; the CSV column\n"
		"\\fBcgroup\\fR).\n"
		"With \\fB\\-k pid\\fR the CSV column \\fBargs\\fR and the table's last,\n"
		"\\fBARGS\\fR, say each process's command line (the table: its arguments,\n"
		"where the line has room: \\fBCOLUMNS\\fR or a terminal wider than 80\n"
		"columns), read from /proc/\\fIPID\\fR/cmdline as soon as pipestat sees it\n"
		"counted (it looks every 0.25 s); \\fB\\-\\fR, and an empty field, for a\n"
		"process gone by then, never a guess.\n"
		"The key of \\fB\\-k comm\\fR is the command name and the side of its pipes\n"
		"the processes took (the table's \\fBSIDE\\fR, the CSV column \\fBside\\fR):\n"
		"\\fBwrite\\fR, \\fBread\\fR, or \\fBboth\\fR for a process reading and\n"
		"writing one pipe, counted per pipe: in\n"
		"\\fBpython3 w.py | python3 r.py\\fR the writing python3 and the reading\n"
		"one are two rows, each with its own waits, and a middle stage\n"
		"(\\fBcat\\fR in \\fBa | cat | b\\fR) has a read row and a write row.\n"
		"Prometheus' series stay one per command name.\n"
		"With \\fB\\-k pipe\\fR the \\fBwriters\\fR and \\fBreaders\\fR columns (and\n"
		"the table's last, with each process's arguments) name the processes\n"
		"writing into and reading from each pipe; see PROCESS LISTS. Its rows\n"
		"come in pipeline order unless \\fB\\-s\\fR says: upstream first, a pipe\n"
		"before those its readers write into (\\fBa | b | c\\fR: the pipe from\n"
		"\\fBa\\fR to \\fBb\\fR, then the one from \\fBb\\fR to \\fBc\\fR,\n"
		"whatever their inode numbers), pipes of one stage by bytes moved.\n"
		"Every key's table fits 80 columns with the default columns (a wider\n"
		"terminal's width, or \\fBCOLUMNS\\fR in the environment, gives its\n"
		"names more): a\n"
		"cgroup path longer than its column keeps its end, after \\fB..\\fR\n"
		"(\\fB..ice/session\\-3.scope\\fR), and a list of processes is cut as\n"
		"PROCESS LISTS says." },
	{ .name = "cgroup", .arg = "PATH", .set = set_cgroup, .at = AT(load.cgroup),
	  .values = OPT_DIRS,
	  .help =
		"only tasks in this cgroup v2 directory's subtree,\n"
		"e.g. /sys/fs/cgroup/system.slice/foo.service",
	  .man =
		"Count only tasks in the cgroup v2 directory \\fIPATH\\fR and its subtree\n"
		"(a cgroup array map and \\fBbpf_current_task_under_cgroup\\fR()). A path\n"
		"that is not a cgroup v2 directory is an error (exit 2)." },
	{ .name = "listen", .arg = "ADDR:PORT", .set = set_listen, .at = AT(listen),
	  .help =
		"serve Prometheus /metrics (OpenMetrics) there:\n"
		"127.0.0.1:9432 this host only, [::]:9432 every\n"
		"interface (IPv4 and IPv6), localhost:9432, PORT 0\n"
		"any free port (stderr says which); counters since\n"
		"the start",
	  .man =
		"Serve Prometheus metrics at \\fBhttp://\\fIADDR\\fB:\\fIPORT\\fB/metrics\\fR\n"
		"(libmicrohttpd): OpenMetrics to scrapers that accept it, else the text\n"
		"format 0.0.4. \\fIADDR\\fR is a numeric IPv4 address, an IPv6 address in\n"
		"brackets or a host name (bound to its first IPv4 address, else its first\n"
		"IPv6 one); every interface only when asked for: \\fB[::]:\\fIPORT\\fR\n"
		"(IPv4 and IPv6 on one socket) or \\fB0.0.0.0:\\fIPORT\\fR. A port alone\n"
		"(\\fB:9432\\fR) is refused. \\fIPORT\\fR 0 takes any free port; the line\n"
		"\\fBpipestat: serving http://\\fIADDR\\fB:\\fIPORT\\fB/metrics\\fR on stderr\n"
		"says which. The same server draws the pipeline (as \\fB\\-\\-graph\\fR does)\n"
		"every interval while someone looks (either path asked for in the last\n"
		"10 s; Graphviz's layout is not run for an exporter nobody watches):\n"
		"\\fB/graph.svg\\fR is the last picture (503 until the first interval\n"
		"after the first look), and \\fB/\\fR a small page that shows it, fetched\n"
		"again every second; both behind \\fB\\-\\-web\\-config\\fR's TLS and basic\n"
		"authentication as \\fB/metrics\\fR is. Methods other than GET and HEAD get 405 with \\fBAllow\\fR. At most 64\n"
		"connections; each must send its whole request within 5 s of connecting\n"
		"(or of its previous answer) and take its answer within 10 s, however\n"
		"slowly it sends; with all 64 taken, a new client replaces the one that\n"
		"has waited longest without a complete request. The kernel counters are drained\n"
		"every interval (1 s unless \\fB\\-i\\fR) into running totals, named by the\n"
		"Prometheus naming guide: times in seconds, sizes in bytes, \\fB_total\\fR\n"
		"on counters, the pipe's side and an EAGAIN's cause as labels\n"
		"(\\fBpipetrace_calls_total{side=\"read\"}\\fR, \\fBpipetrace_bytes_total\\fR,\n"
		"\\fBpipetrace_eagain_total{side,cause}\\fR,\n"
		"\\fBpipetrace_eagain_reason_total{reason}\\fR, \\fBpipetrace_pool_hits_total\\fR,\n"
		"\\fBpipetrace_pages_allocated_total{mutex=\"held\"}\\fR,\n"
		"\\fBpipetrace_wait_seconds_total{side}\\fR,\n"
		"\\fBpipetrace_lock_wait_seconds_total\\fR, ...); the source tree's\n"
		"\\fBdocs/METRICS.md\\fR maps every CSV column to its series or PromQL.\n"
		"Each counter is the sum of the values the CSV reports each interval, so\n"
		"it never decreases, also where the tier derives it. Knobs are gauges,\n"
		"ratios are left to PromQL, and a column the tier cannot know has no\n"
		"series (never a 0). Also \\fBpipetrace_untracked_events_total\\fR and\n"
		"\\fBpipetrace_build_info{version,tier}\\fR. Labels: \\fBtier\\fR and the key:\n"
		"\\fBcomm\\fR by default, \\fBpid\\fR and \\fBcomm\\fR with \\fB\\-k pid\\fR,\n"
		"\\fBpipe_dev\\fR (major:minor) and \\fBpipe_ino\\fR with \\fB\\-k pipe\\fR,\n"
		"\\fBcgroup\\fR with \\fB\\-k cgroup\\fR, none with \\fB\\-k total\\fR. A\n"
		"\\fBcomm\\fR or \\fBcgroup\\fR value has a backslash written \\fB\\e\\e\\fR and\n"
		"each control byte, DEL or byte that is not valid UTF-8 written as the\n"
		"text \\fB\\exHH\\fR, so two names never share a label set. A key's\n"
		"series leave \\fB/metrics\\fR after \\fB\\-\\-series\\-ttl\\fR seconds (default\n"
		"300) without events; back later, they start again from 0. Nothing is\n"
		"printed on stdout unless \\fB\\-\\-csv\\fR or \\fB\\-\\-json\\fR asks." },
	{ .name = "web-config", .arg = "FILE", .set = set_web_config, .at = AT(web_config),
	  .values = OPT_FILES,
	  .help =
		"TLS and basic authentication for --listen, in the\n"
		"exporters' web-config format (tls_server_config:\n"
		"cert_file, key_file; basic_auth_users: NAME: bcrypt)",
	  .man =
		"TLS and basic authentication for \\fB\\-\\-listen\\fR, from a file in the\n"
		"web-config format of node_exporter and the other exporters:\n"
		"\\fBtls_server_config:\\fR with \\fBcert_file\\fR and \\fBkey_file\\fR (PEM,\n"
		"relative to \\fIFILE\\fR's directory), \\fBbasic_auth_users:\\fR with one\n"
		"\\fIname\\fB: \\fIbcrypt-hash\\fR line per user (\\fB$2y$\\fR, \\fB$2b$\\fR or\n"
		"\\fB$2a$\\fR, e.g. from \\fBhtpasswd \\-nBC 10 \\fIname\\fR). Other keys are\n"
		"refused, and so is a key given twice, an alias, a second document, or a\n"
		"list or mapping where the format has none; a bcrypt cost above 14 is\n"
		"refused (each check would take seconds of CPU). Said on stderr, and\n"
		"served all the same: an empty file (plain HTTP and no password, as\n"
		"without \\fB\\-\\-web\\-config\\fR), a certificate expired or not yet\n"
		"valid, a bcrypt cost below 10. The file is read before tracing starts,\n"
		"in time proportional to its size (1 MiB at most), without running\n"
		"bcrypt. With TLS, only TLS 1.2 and 1.3 are served; with users, every\n"
		"request without a right name and password gets 401. Passwords are\n"
		"checked (bcrypt) on two threads of their own while the server answers\n"
		"other clients; one found right is remembered and not checked again.\n"
		"Only failures are limited: after one, its thread rests three times as\n"
		"long as the check took, and a client address whose last check failed\n"
		"(in the last minute) may have one check under way; with that one, or\n"
		"32 checks in all, under way, a request gets 429 with\n"
		"\\fBRetry-After: 1\\fR, unchecked. Under systemd, give the file, the\n"
		"certificate and the key to the unit with \\fBLoadCredential=\\fR and\n"
		"name the file \\fB%d/web.yml\\fR (see \\fBFILES\\fR): paths in it are\n"
		"relative to its directory, the credentials directory. The file, the\n"
		"certificate and the key must belong to root or the user pipestat runs\n"
		"as, and neither they nor any directory on their real path may be\n"
		"writable by others (a sticky directory is fine where the entry in it is\n"
		"root's or that user's), and their paths may hold no symbolic link (one\n"
		"where others write could be swapped); otherwise, or when the file is malformed, one\n"
		"line on stderr says why and pipestat exits 1." },
	{ .name = "textfile", .arg = "PATH", .set = set_textfile, .at = AT(textfile),
	  .values = OPT_FILES,
	  .help =
		"write the same metrics to PATH every interval\n"
		"(atomically; node_exporter's textfile collector)",
	  .man =
		"Write the same metrics (text format 0.0.4) to \\fIPATH\\fR every interval,\n"
		"atomically, for node_exporter's textfile collector. Safe as root in a\n"
		"directory other users can write: the directory is opened once at the\n"
		"start, through no symbolic link (a path with one is refused: whoever can\n"
		"write where the link lies could point it at a directory of root's; give\n"
		"the real path); each version is a new file created there exclusively under a\n"
		"random hidden name (\\fBO_CREAT|O_EXCL|O_NOFOLLOW\\fR, mode 0644), synced,\n"
		"then renamed over \\fIPATH\\fR. No existing name is ever opened, so a\n"
		"planted symlink or FIFO is neither followed nor blocks. \\fIPATH\\fR must\n"
		"be a regular file or not exist: a symlink, FIFO or device there (such as\n"
		"\\fB/dev/stdout\\fR) is refused at the start (exit 1), and one that appears\n"
		"during the run is left alone. So is a directory that is not writable or\n"
		"is a kernel interface rather than storage (procfs, sysfs, cgroupfs and\n"
		"the like: \\fB/proc/sys/kernel/hostname\\fR is a knob, not a file).\n"
		"A write failure is said once on stderr\n"
		"(and once when it works again); the run goes on, and the temporary file\n"
		"is removed. Two failures end the run instead, in one line and exit 1:\n"
		"a temporary file that cannot be removed (an append-only directory, which\n"
		"would keep one each interval), and a directory path that no longer names\n"
		"the directory opened at the start (renamed, removed, or replaced by a\n"
		"link: what pipestat writes would no longer be where it is read)." },
	{ .name = "graph", .arg = "FILE", .set = set_graph, .at = AT(graph),
	  .values = OPT_FILES,
	  .help =
		"draw the pipeline to FILE (.dot, .svg or .png), each\n"
		"interval over the last (atomically): a node per\n"
		"process, coloured by where it waits, an edge per\n"
		"pipe with bytes/s and calls/s, the bottleneck marked;\n"
		"implies --waits",
	  .man =
		"Draw the pipeline to \\fIFILE\\fR at the end of the run, or every interval\n"
		"with \\fB\\-i\\fR (each over the last, atomically and as safely as root as\n"
		"\\fB\\-\\-textfile\\fR: the same checks, the same refusals). The format\n"
		"follows the extension: \\fB.dot\\fR (Graphviz's DOT, no layout; nodes\n"
		"sorted by pid, edges by writer, reader and pipe, so two runs diff),\n"
		"\\fB.svg\\fR or \\fB.png\\fR (laid out left to right by Graphviz's dot,\n"
		"through libgvc); another extension is refused at the start. One node per\n"
		"process that wrote or read a pipe, labelled \\fIcomm\\fB[\\fIpid\\fB]\\fR\n"
		"(its command line as the tooltip, where it was read while it ran), one\n"
		"edge per pipe from each writer to each other reader, labelled with bytes/s\n"
		"and calls/s (the writer's writes when the pipe has one reader, else the\n"
		"reader's reads when it has one writer; \\fB?\\fR with several of each, as\n"
		"which bytes went where is not known) and as wide as its throughput, a\n"
		"FIFO's path on its edge where a process held it open while pipestat\n"
		"looked. Each node is coloured by where the process waited in its pipe\n"
		"calls (WAIT_R%, WAIT_W%): amber, waiting to write (its downstream is\n"
		"slower); blue, waiting to read (its upstream is slower); neither most of\n"
		"the time: red, \\fBbusy\\fR (on a CPU), or violet, \\fBstarved\\fR (it\n"
		"waited for a CPU, \\fBrunq_pct\\fR, longer than it ran on one,\n"
		"\\fBcpu_pct\\fR, and for at least half the time its pipe waits leave:\n"
		"more CPUs, not a bigger ring, would help). Of the busy\n"
		"and starved ones, the one that waited least on its pipes is marked\n"
		"\\fBbottleneck\\fR. A process that still holds a pipe it used in\n"
		"an earlier interval but moved nothing in this one is drawn faded (grey,\n"
		"dashed, \\fBidle\\fR), not dropped. The DOT carries the figures as\n"
		"attributes for scripts: per node \\fBpid\\fR, \\fBcomm\\fR, \\fBstate\\fR,\n"
		"\\fBbottleneck\\fR, \\fBwait_read_pct\\fR, \\fBwait_write_pct\\fR,\n"
		"\\fBcpu_pct\\fR, \\fBrunq_pct\\fR (\\fB-\\fR: not known); per\n"
		"edge \\fBbytes\\fR, \\fBcalls\\fR, \\fBside\\fR (write or read: whose\n"
		"calls), \\fBpipe\\fR (\\fIDEV\\fB:\\fIINO\\fR) and \\fBfifo\\fR, e.g.\n"
		"\\fBgvpr 'E { printf(\"%s %s\\\\n\", $.tail.comm, $.bytes); }' g.dot\\fR.\n"
		"Implies \\fB\\-\\-waits\\fR; not with \\fB\\-\\-no\\-waits\\fR. With\n"
		"\\fB\\-\\-listen\\fR the same picture is served at \\fB/graph.svg\\fR." },
	{ .name = "max-series", .arg = "N", .set = set_max_series, .at = AT(max_series),
	  .help =
		"label sets in /metrics (default 1000); keys past\n"
		"it are summed into one series overflow=\"true\"",
	  .man =
		"At most \\fIN\\fR label sets (default 1000). Once \\fIN\\fR exist, the counts\n"
		"of new keys are added to one series labelled \\fBoverflow=\"true\"\\fR\n"
		"(with \\fBtier\\fR and no key labels), so every series stays monotonic\n"
		"and the cardinality bounded; a rising overflow series says the cap is\n"
		"too low for the key." },
	{ .name = "series-ttl", .arg = "SEC", .set = set_series_ttl, .at = AT(series_ttl),
	  .help =
		"drop a key's series SEC seconds after its last\n"
		"events (default 300; 0: never)",
	  .man =
		"With \\fB\\-\\-listen\\fR or \\fB\\-\\-textfile\\fR, drop the series of a key\n"
		"(a command, process, pipe or cgroup; not \\fB\\-k total\\fR's one label\n"
		"set, nor the overflow series) that has had no events for \\fISEC\\fR\n"
		"seconds (default 300; 0: never), so keys that came and went, such as\n"
		"exited processes, neither pile up on \\fB/metrics\\fR nor fill\n"
		"\\fB\\-\\-max\\-series\\fR. A read or write blocked on a pipe counts as\n"
		"events in each interval it lasts (unless \\fB\\-\\-no\\-waits\\fR). The\n"
		"series go at the end of the first interval \\fISEC\\fR or more after the\n"
		"key's last events; until then its last values stay, so a scrape\n"
		"interval shorter than \\fISEC\\fR sees them.\n"
		"While a series exists its counters only grow. Once it is gone,\n"
		"Prometheus marks it stale: \\fBrate\\fR() and \\fBincrease\\fR() over a\n"
		"window that holds its samples still count them, and instant queries\n"
		"no longer return it. The same key back later starts its series again\n"
		"from 0, which \\fBrate\\fR() reads as a counter reset (the counts of its\n"
		"first interval back are in the first sample, which \\fBrate\\fR() does\n"
		"not see). Less than the interval (\\fB\\-i\\fR) is refused." },
	{ .name = "csv", .at = AT(csv),
	  .help =
		"CSV: one header, one row per key per interval",
	  .man =
		"CSV (RFC 4180): one header line, then one row per key per interval." },
	{ .name = "json", .at = AT(json),
	  .help =
		"NDJSON: one JSON object per key per interval, keys\n"
		"the CSV column names, unknown values null",
	  .man =
		"NDJSON: one JSON object per row per interval, flushed each interval.\n"
		"The keys are the CSV column names in CSV order; numbers are numbers, a\n"
		"value the tier cannot know is \\fBnull\\fR (never 0), \\fBderived\\fR is an\n"
		"array of column names. \\fBcomm\\fR bytes that are not printable ASCII are\n"
		"escaped as \\fB\\\\u00\\fIXX\\fR (one per byte), so every line is valid JSON.\n"
		"With \\fB\\-\\-hist\\fR, each object ends with \\fBhist_\\fINAME\\fR objects\n"
		"keyed by each non-empty slot's lower bound (\\fB{\"0\":2,\"4096\":5}\\fR)." },
	{ .name = "output", .arg = "FILE", .set = set_output, .at = AT(output),
	  .values = OPT_FILES,
	  .help =
		"the report (table, CSV, JSON, remarks, histograms)\n"
		"into FILE, not stdout (stderr with -- COMMAND);\n"
		"made or emptied, never through a symbolic link",
	  .man =
		"Write the report (the table, CSV, JSON, \\fB\\-\\-advise\\fR's remarks,\n"
		"\\fB\\-\\-hist\\fR's histograms) to \\fIFILE\\fR instead of standard output\n"
		"(standard error with \\fB\\-\\-\\fR \\fICOMMAND\\fR); pipestat's own lines\n"
		"(the tier line, errors) stay on standard error. \\fIFILE\\fR is opened\n"
		"before tracing starts: created with mode 0644 (less the umask) or\n"
		"emptied, never through a symbolic link in its last part (one planted\n"
		"there is refused, not followed: \\fBO_NOFOLLOW\\fR), and a FIFO only\n"
		"while something reads it (\\fBO_NONBLOCK\\fR: no waiting for one). One\n"
		"that cannot be opened is refused in one line saying why (exit 2)." },
	{ .name = "hist", .arg = "NAME[,NAME]", .set = set_hist, .at = AT(load.hists),
	  .values = OPT_HISTS,
	  .help =
		"log2 histograms per key after each report:\n"
		"write_size, read_size, occupancy (ring slots in\n"
		"use when a write starts), wait_read, wait_write\n"
		"(ns per sleep; not with --no-waits), or all; not with\n"
		"--csv; with --json as keys hist_NAME of each object;\n"
		"with --listen, --textfile Prometheus histograms",
	  .man =
		"After each report, log2 histograms per key (slot \\fIs\\fR holds values\n"
		"2^\\fIs\\fR to 2^(\\fIs\\fR+1)\\-1; the first holds 0 and 1):\n"
		"\\fBwrite_size\\fR and \\fBread_size\\fR (bytes per call that moved any),\n"
		"\\fBoccupancy\\fR (ring slots in use when a write starts; in the\n"
		"tracepoint tier the slots after the write less those it filled),\n"
		"\\fBwait_read\\fR and \\fBwait_write\\fR (ns per sleep;\n"
		"not with \\fB\\-\\-no\\-waits\\fR), or \\fBall\\fR.\n"
		"Kept in the kernel only when asked for. Not with \\fB\\-\\-csv\\fR; with\n"
		"\\fB\\-\\-json\\fR inside each object. With \\fB\\-\\-listen\\fR or\n"
		"\\fB\\-\\-textfile\\fR, Prometheus histograms cumulative since the start\n"
		"(\\fB_bucket{le}\\fR, \\fB_sum\\fR, \\fB_count\\fR; \\fBle\\fR is each slot's\n"
		"upper bound, in seconds for the sleeps):\n"
		"\\fBpipetrace_call_size_bytes{side}\\fR, \\fBpipetrace_occupancy_slots\\fR,\n"
		"\\fBpipetrace_wait_duration_seconds{side}\\fR." },
	{ .name = "no-waits", .set = set_no_waits, .at = AT(waits),
	  .help =
		"do not time the sleeps of readers and writers, even\n"
		"for columns that show them (waits_*, wait_*_ns,\n"
		"WAIT_R%, WAIT_W%, ring_peak, ring_full_writes then\n"
		"unknown): no program on every context switch (see\n"
		"pipestat(8), OVERHEAD)",
	  .man =
		"Do not time the sleeps of readers waiting for data and writers waiting\n"
		"for room, even for the columns shown (the wait columns,\n"
		"\\fBring_peak\\fR and \\fBring_full_writes\\fR are then \\fB-\\fR and\n"
		"empty, and \\fB\\-\\-hist wait_read\\fR, \\fBwait_write\\fR are refused).\n"
		"Timing them takes a program on \\fBsched:sched_switch\\fR in the syscall\n"
		"and function tiers, which runs on every context switch of the machine\n"
		"(see OVERHEAD), and the \\fBpipe:pipe_wait_*\\fR events in the\n"
		"tracepoint tier. Like every hook they are loaded only when a column\n"
		"shown needs them (HOOKS); the default table's WAIT_R% and WAIT_W% do,\n"
		"because who is blocked is the first thing an operator asks." },
	{ .name = "waits", .set = set_waits, .at = AT(waits),
	  .help =
		"time them even when no column shown needs them\n"
		"(they are timed whenever one does, as the default\n"
		"table's WAIT_R%, WAIT_W%)",
	  .man =
		"Time them even when no column shown needs them (\\fB\\-o reads\n"
		"\\-\\-waits\\fR); with the default table, CSV or JSON they are timed\n"
		"anyway." },
	CLI_OPT_TIER(struct pipestat_opts,
		"\\fBauto\\fR (default), \\fBtracepoint\\fR, \\fBfunction\\fR or \\fBsyscall\\fR.\n"
		"A forced tier that cannot attach on this kernel is an error."),
	CLI_OPT_MAX_KEYS(struct pipestat_opts,
		"in-kernel counter slots (default 16384) per interval,\n"
		"per second with -- COMMAND; events that find it\n"
		"full are reported as untracked",
		"In-kernel counter slots (one per process, command and pipe) per\n"
		"generation; default 16384. A generation lasts an interval, a second at\n"
		"most with \\fB\\-\\-\\fR \\fICOMMAND\\fR. Events that find the map full are\n"
		"counted and reported as untracked, never dropped silently."),
	{ .name = "demo", .at = AT(demo),
	  .help =
		"run a built-in pipe workload and report on it",
	  .man =
		"Run a built-in workload with a known answer (command name\n"
		"\\fBpt-demo\\fR) and report on it per process." },
	{ .name = "advise", .at = AT(advise),
	  .help =
		"instead of the table, one line per pipe worth a remark,\n"
		"with the figures behind it: reader-bound,\n"
		"writer-bound, cpu-bound (a side on a CPU or waiting\n"
		"for one: no ring), bursty (a ring size to resize to),\n"
		"chatty, quota-shrunk, and on a kernel with the pipe\n"
		"patches' A/B switches, fs.pipe-prealloc-max, -keep and\n"
		"fs.pipe-read-batch from pool misses, page churn and\n"
		"sections per read; pipes with fewer than 16 writes\n"
		"in the interval (1 MiB for the waits' and knobs'\n"
		"rules) are not judged; implies -k pipe and --waits\n"
		"(see pipestat(8))",
	  .man =
		"Instead of the table, one line per pipe worth a remark, with the figures\n"
		"that justify it, each interval (or once at the end), the pipe named as\n"
		"\\fB\\-\\-resize\\fR takes it (\\fIDEV\\fB:\\fIINO\\fR); implies \\fB\\-k\n"
		"pipe\\fR and \\fB\\-\\-waits\\fR; not with \\fB\\-\\-csv\\fR, \\fB\\-\\-json\\fR,\n"
		"\\fB\\-\\-listen\\fR, \\fB\\-\\-textfile\\fR, \\fB\\-\\-hist\\fR or another\n"
		"\\fB\\-k\\fR. W% and R% are the shares of the interval the pipe's writers\n"
		"slept waiting for room and its readers for data. The rules\n"
		"(src/tune/advise.h):\n"
		".RS\n"
		".TP\n"
		".B quota\\-shrunk\n"
		"\\fBring_quota_shrunk\\fR: names the owner's uid, its pipe pages and\n"
		"\\fBfs.pipe\\-user\\-pages\\-soft\\fR.\n"
		".TP\n"
		".B reader\\-bound\n"
		"W% >= 50 and R% < 5: the reader is the bottleneck, a bigger ring will\n"
		"not help (no resize advice).\n"
		".TP\n"
		".B writer\\-bound\n"
		"R% >= 50 and W% < 5: the mirror image.\n"
		".TP\n"
		".B cpu\\-bound\n"
		"W% and R% >= 5, and a writer or reader of the pipe sets the pace (busy\n"
		"or starved, as \\fB\\-\\-graph\\fR says) on a CPU and waiting for one\n"
		"(\\fBcpu_pct\\fR + \\fBrunq_pct\\fR) half the interval or more, the one\n"
		"with the most named: a bigger ring will not help (no resize advice;\n"
		"instead of bursty). A process whose figures are not known (see CSV\n"
		"COLUMNS) is not judged so.\n"
		".TP\n"
		".B bursty\n"
		"W% and R% >= 5 and writes found the ring full: a burst is estimated as\n"
		"the bytes written per reader wait (a reader waits once the pipe is\n"
		"empty), and the ring to grow to is the next power of two pages at or\n"
		"above it, within \\fBfs.pipe\\-max\\-size\\fR, with the \\fB\\-\\-resize\\fR\n"
		"command (\\fB\\-\\-resize\\fR \\fIDEV\\fB:\\fIINO\\fB=\\fISIZE\\fR).\n"
		".TP\n"
		".B chatty\n"
		"10000 writes/s or more of under 512 bytes on average: batching saves\n"
		"system calls.\n"
		".RE\n"
		".IP\n"
		"On a kernel with the A/B switches of the pipetrace kernel patches\n"
		"(their patch 0005, not for posting:\n"
		"\\fB/proc/sys/fs/pipe\\-prealloc\\-max\\fR is a procfs file; never on\n"
		"other kernels, where they do not exist), with \\fIP\\fR the whole\n"
		"pages per write on average, at most 8 (what a write's prefill can take):\n"
		".RS\n"
		".TP\n"
		".B fs.pipe\\-prealloc\\-max\n"
		"\\fBpool_misses\\fR (pages allocated holding pipe\\->mutex) 1 or more per\n"
		"write, \\fIP\\fR >= 2 and the knob below \\fIP\\fR: raise it to\n"
		"\\fIP\\fR, so that a write allocates up to that many of the pages its\n"
		"pool lacks before taking the mutex.\n"
		".TP\n"
		".B fs.pipe\\-prealloc\\-keep\n"
		"page churn: \\fBalloc_locked\\fR + \\fBalloc_unlocked\\fR 1 or more per\n"
		"write (each page freed again once read, beyond the ones a pipe keeps),\n"
		"\\fIP\\fR >= 2, the knob below \\fIP\\fR and \\fBfs.pipe\\-prealloc\\-max\\fR\n"
		"at \\fIP\\fR or above (that rule comes first):\n"
		"raise it to \\fIP\\fR; each idle pipe then holds up to \\fIP\\fR pages.\n"
		".TP\n"
		".B fs.pipe\\-read\\-batch\n"
		"the knob 0 and \\fBcopy_sections\\fR 2 or more per read: set it to 1, one\n"
		"user-access section per run of whole buffers.\n"
		".RE\n"
		".IP\n"
		"Each remark gives its figures (pages or sections per call, the counts\n"
		"and the calls), the value to set and its \\fBsysctl \\-w\\fR command. A\n"
		"figure the tier cannot know here (\\fB\\-\\fR in the table, e.g.\n"
		"\\fBsections_per_read\\fR with \\fBfs.pipe-read-batch\\fR on) gives no\n"
		"remark.\n"
		".IP\n"
		"Nothing is said of a pipe with fewer than 16 writes in the interval\n"
		"(except quota-shrunk), and the waits' and the knobs' rules need 1 MiB\n"
		"written (read-batch also 16 reads); the heading says so, and a report\n"
		"with no remark says \"no pipe worth a remark\". Without the sleeps (a\n"
		"tracepoint-tier kernel without \\fBpipe_wait_*\\fR) the waits' rules say\n"
		"nothing." },
	{ .name = "resize", .arg = "PIPE=SIZE", .set = set_resize, .values = OPT_FIFOS,
	  .help =
		"resize a live pipe and exit: PIPE is DEV:INO\n"
		"(pipe_dev:pipe_ino, e.g. 0:15:812345; a bare INO if\n"
		"on one device only) or PID:FD (a holder's descriptor,\n"
		"taken with pidfd_getfd only), SIZE bytes (k, M, G:\n"
		"KiB, MiB, GiB); the sizes before and after, and whose\n"
		"pipe quota a grown pipe charges, go to stderr",
	  .man =
		"Resize a live pipe or FIFO that other processes hold, then exit; nothing\n"
		"is traced and no BPF privilege is needed, only the right to reach a\n"
		"holder. \\fIPIPE\\fR is the pipe's device and inode, \\fIDEV\\fB:\\fIINO\\fR\n"
		"(major:minor:inode, \\fBpipe_dev\\fR and \\fBpipe_ino\\fR of \\fB\\-k pipe\\fR,\n"
		"e.g. \\fB0:15:812345\\fR; \\fB\\-\\-advise\\fR and pipetop name pipes so), or\n"
		"\\fIPID\\fB:\\fIFD\\fR, a holder's descriptor (\\fIPID\\fR may be a thread's\n"
		"id, for a descriptor in that thread's table). A bare \\fIINO\\fR (or\n"
		"\\fBpipe:[\\fIINO\\fB]\\fR) will do while one device has a pipe or FIFO of\n"
		"that inode number; on more than one (a FIFO on another file system can\n"
		"have a pipe's number) it is refused, the line naming each candidate's\n"
		"\\fIDEV\\fB:\\fIINO\\fR and holder. The holder is the first process found\n"
		"(lowest PID) with the pipe open in one of its threads' tables\n"
		"(/proc/\\fIPID\\fB/task/\\fITID\\fB/fd\\fR: a thread can hold a pipe alone\n"
		"once its leader exited); O_PATH descriptors (fdinfo's flags) are not\n"
		"holders. \\fISIZE\\fR is bytes, or with \\fBk\\fR, \\fBM\\fR, \\fBG\\fR (KiB,\n"
		"MiB, GiB); the kernel rounds it up to a power of two pages.\n"
		".IP\n"
		"pipestat takes the holder's descriptor with \\fBpidfd_open\\fR(2) and\n"
		"\\fBpidfd_getfd\\fR(2) (PTRACE_MODE_ATTACH on the holder: its user, or\n"
		"CAP_SYS_PTRACE), a thread's through a \\fBPIDFD_THREAD\\fR pidfd (Linux\n"
		"6.9; before it only a process's descriptors can be reached, and the\n"
		"line says so). It never opens \\fB/proc/\\fIPID\\fB/fd/\\fIFD\\fR: that open\n"
		"would be pipestat's own, with its credentials, of whatever the\n"
		"descriptor names by then. What it gets is used only if it is an open\n"
		"pipe: a FIFO by \\fBfstat\\fR(2), not O_PATH by \\fBF_GETFL\\fR (an O_PATH\n"
		"descriptor names a FIFO without opening it), \\fBF_GETPIPE_SZ\\fR working,\n"
		"and the pipe asked for. It sets the size with \\fBF_SETPIPE_SZ\\fR and\n"
		"confirms it with \\fBF_GETPIPE_SZ\\fR, and logs on stderr:\n"
		".RS\n"
		".nf\n"
		"pipestat: resized pipe 0:15:51264 (pid 27132 fd 3, pidfd_getfd): 65536 \\-> 1048576 bytes (16 \\-> 256 slots), confirmed by F_GETPIPE_SZ\n"
		".fi\n"
		".RE\n"
		".IP\n"
		"The pages of a grown ring are charged to the user that created the pipe\n"
		"(\\fIpipe\\->user\\fR), not to whoever resizes it; root passes the quota\n"
		"checks, that user's next pipes may not. When the holder's real uid is\n"
		"not pipestat's, a second line says how many more pages it is charged,\n"
		"and whether that takes it over \\fBfs.pipe\\-user\\-pages\\-soft\\fR (its new\n"
		"pipes then get 2 slots instead of 16) or \\fBfs.pipe\\-user\\-pages\\-hard\\fR\n"
		"(they fail). The kernel does not show a pipe's creator: the line names\n"
		"the holder's real uid (/proc/\\fIPID\\fB/task/\\fITID\\fB/status\\fR), and\n"
		"what its new pipes get is asked of the kernel by making one as that user\n"
		"(a child dropped to the holder's uid and gid), before and after the\n"
		"resize; without CAP_SETUID the line says it cannot tell.\n"
		".RS\n"
		".nf\n"
		"pipestat: uid 1000 is charged 240 more pipe pages, which takes it over fs.pipe\\-user\\-pages\\-soft (16384): its new pipes get 2 slots (uid 1000 is the holder's real uid: the kernel charges the pipe's creator, which it does not show)\n"
		".fi\n"
		".RE\n"
		".IP\n"
		"It never shrinks a pipe below the data in its ring. Refusals, one line\n"
		"each, exit 1: the ring holds more bytes than \\fISIZE\\fR, or its data\n"
		"takes more slots than \\fISIZE\\fR has (EBUSY); a size above\n"
		"\\fBfs.pipe\\-max\\-size\\fR without CAP_SYS_RESOURCE, or growing a pipe\n"
		"whose owner is over \\fBfs.pipe\\-user\\-pages\\-soft\\fR without it (EPERM);\n"
		"a bare \\fIINO\\fR on more than one device; a process or descriptor that\n"
		"is gone; a descriptor that is not a pipe or FIFO, or an O_PATH one; a\n"
		"holder it cannot reach, with the call that failed (\\fBpidfd_open\\fR or\n"
		"\\fBpidfd_getfd\\fR) and its error." },
	{ .flag = 'v', .name = "verbose", .at = AT(load.verbose),
	  .help =
		"say why tiers were not used; libbpf warnings; the\n"
		"columns the tier line only counts",
	  .man =
		"Say why better tiers were not used; libbpf warnings; time to attach;\n"
		"and in the tier line the columns it otherwise only counts: those the\n"
		"tier derives, those it cannot know here and those left out with the\n"
		"hooks no column shown needs (see WHEN COUNTING STARTS)." },
	CLI_OPT_HELP(
		"Usage, tiers and examples."),
	CLI_OPT_VERSION,
	{}
};

const struct opt_tool pipestat_tool = {
	.prog = "pipestat",
	.opts = options,
	.head =
"Usage: pipestat [-i SEC [-c N]] [-d SEC] [-p PID]... [-n COMM] [-k KEY]\n"
"                [-r N] [-s COLUMN] [-o LIST] [--rate] [interval [count]]\n"
"                [--csv|--json] [--output FILE]\n"
"                [--listen ADDR:PORT [--web-config FILE]]\n"
"                [--textfile PATH] [--max-series N] [--series-ttl SEC]\n"
"                [--graph FILE]\n"
"                [--hist NAME[,NAME]] [--waits|--no-waits]\n"
"                [--cgroup PATH] [--tier TIER] [--demo] [--max-keys N] [-v]\n"
"                [-- COMMAND [ARG...]]\n"
"       pipestat --advise [-i SEC [-c N]] [-d SEC] [-p PID]... [-n COMM] ...\n"
"       pipestat --resize PIPE=SIZE [-v]\n"
"Count what happens in Linux pipes (reads, writes, bytes, EAGAIN returns,\n"
"pipe page allocations, pool hits, user-copy sections), per interval.\n"
"With -- COMMAND: attach, run COMMAND, count it and every process it starts\n"
"(in a cgroup made for it in pipestat's own, whose limits still apply),\n"
"report per process on stderr (or --output's FILE) when it exits, and\n"
"exit with its status (128+N after signal N; 127, 126: could not start).\n"
"\n",
	.foot = "\n",
	.tiers = true,
	.tail =
"\n"
"Examples:\n"
"  pipestat -i 1                  totals every second\n"
"  pipestat 1 5                   the same, five times\n"
"  pipestat -k pid -s eagain_read -r 10 -i 5 --rate   top 10 by EAGAINs/s\n"
"  pipestat -k pid -d 10          per process, once after 10 s\n"
"  pipestat -k pipe --csv -i 1    per pipe, CSV every second\n"
"  pipestat -p 1234 -p 1235 -c 5 -i 2\n"
"  pipestat --demo                try it on a built-in workload\n"
"  pipestat -k pid -- sh -c 'yes | head -c 100M >/dev/null'\n"
"                                 one pipeline, per process\n"
"  pipestat --listen 127.0.0.1:9432   Prometheus counters per command\n"
"  pipestat --advise -d 10        what would help each busy pipe\n"
"  pipestat --resize 0:15:812345=1M   grow pipe 0:15:812345 to 1 MiB\n"
"\n"
"With --listen or --textfile: an interval of 1 s unless -i says, one\n"
"label set per command unless -k says (-k pid, -k pipe: capped by\n"
"--max-series), a key's series dropped after --series-ttl seconds\n"
"without events, and no table on stdout (--csv or --json still print).\n",
};

#define USAGE_ERR(...) do { snprintf(err, n, __VA_ARGS__); return false; } while (0)

/* The sleeps' columns: what --waits asks for. */
#define WAIT_COLS (PT_COL_BIT(PT_COL_WAITS_READ) | PT_COL_BIT(PT_COL_WAIT_READ_NS) | \
		   PT_COL_BIT(PT_COL_WAITS_WRITE) | PT_COL_BIT(PT_COL_WAIT_WRITE_NS))

static __u64 table_cols(const struct pt_columns *c)
{
	__u64 cols = 0;

	for (int i = 0; i < c->n; i++)
		cols |= PT_COL_BIT(c->col[i]);
	return cols;
}

/*
 * The columns the output shows, whose hooks alone the session loads: the
 * table's (-o); CSV and JSON every column unless -o narrows them (the
 * others are then empty, null); Prometheus every column. --advise's are
 * the caller's to add (advise_cols: they depend on the kernel's knobs).
 */
static __u64 shown_cols(const struct pipestat_opts *o, bool cols_given)
{
	__u64 cols;

	if (o->advise)
		cols = 0;
	else if (o->csv || o->json)
		cols = cols_given ? table_cols(&o->cols) : PT_COLS_ALL;
	else
		cols = o->listen || o->textfile ? 0 : table_cols(&o->cols);
	if (o->listen || o->textfile)
		cols |= PT_COLS_ALL;
	if (o->sort_col >= 0)
		cols |= PT_COL_BIT(o->sort_col);
	return cols;
}

/* libbpf-tools' positional form: pipestat [interval [count]] */
static bool operands(struct pipestat_opts *o, int argc, char **argv, char *err,
		     size_t n)
{
	if (optind < argc && !o->interval && cli_seconds(argv[optind], 1e7) > 0) {
		if (!set_interval(&o->interval, argv[optind++], err, n))
			return false;
		if (optind < argc && !o->count &&
		    (o->count = cli_long(argv[optind], 1, 1L << 30)) > 0)
			optind++;
		if (o->count < 0)
			o->count = 0;
	}
	if (optind < argc)
		USAGE_ERR("unexpected argument '%s'", argv[optind]);
	return true;
}

/* the rules between options, and what they settle (seen: opt_parse's) */
static bool validate(struct pipestat_opts *o, unsigned long long seen, char *err,
		     size_t n)
{
	const struct opt_tool *t = &pipestat_tool;
	bool by_given = seen & opt_bit(t, "by"), no_waits = o->waits == PIPESTAT_WAITS_OFF;

	if (o->resize && ((seen & ~(opt_bit(t, "resize") | opt_bit(t, "verbose"))) ||
			  o->interval || o->command))
		USAGE_ERR("--resize resizes a pipe and exits: only -v with it");
	if (o->web_config && !o->listen)
		USAGE_ERR("--web-config is for --listen: give both");
	if (seen & opt_bit(t, "series-ttl") && !o->listen && !o->textfile)
		USAGE_ERR("--series-ttl is for --listen or --textfile: give one");
	if (o->csv && o->json)
		USAGE_ERR("--csv and --json: give one");
	if (o->advise && (o->csv || o->json || o->listen || o->textfile ||
			  o->load.hists || (by_given && o->by != PT_BY_PIPE)))
		USAGE_ERR("--advise prints remarks per pipe: not with --csv, --json, "
			  "--listen, --textfile, --hist or another -k");
	if (o->graph && no_waits)
		USAGE_ERR("--graph colours processes by their waits: not with --no-waits");
	if (o->advise && no_waits)
		USAGE_ERR("--advise judges the sides' waits: not with --no-waits");
	if ((o->listen || o->textfile) && !o->interval)
		o->interval = 1;	/* the counters' freshness */
	/* per command name for series; per process, as perf stat, for a
	 * command or the demo's workload */
	if ((o->listen || o->textfile) && !by_given)
		o->by = PT_BY_COMM;
	else if ((o->command || o->demo) && !by_given)
		o->by = PT_BY_PID;
	if (o->advise)
		o->by = PT_BY_PIPE;	/* judged per pipe, a command's too */
	if (seen & opt_bit(t, "series-ttl") && o->series_ttl && o->series_ttl < o->interval)
		USAGE_ERR("--series-ttl %ld is shorter than the interval (%g s): a key "
			  "would lose its series in its first quiet interval",
			  o->series_ttl, o->interval);
	o->load.key_cgroup = o->by == PT_BY_CGROUP;
	if (o->count && !o->interval)
		USAGE_ERR("-c needs -i");
	if (o->csv && o->load.hists)
		USAGE_ERR("--hist prints histograms as text: not with --csv");
	/* hooks for what is shown; who is blocked (the default table's waits)
	 * unless refused (the cost: pipestat(8), OVERHEAD) */
	/* per pipe its writers -> readers take the calls' room (80 columns) */
	if (o->by == PT_BY_PIPE && !(seen & opt_bit(t, "columns")))
		columns_pipe(&o->cols);
	o->load.cols = shown_cols(o, seen & opt_bit(t, "columns")) |
		       (o->waits == PIPESTAT_WAITS_ON || o->graph ? WAIT_COLS : 0);
	o->load.hooks_off = no_waits ? PT_HOOK_WAITS : 0;
	if (no_waits && o->load.hists & (1u << PT_HIST_WAIT_READ | 1u << PT_HIST_WAIT_WRITE))
		USAGE_ERR("--hist wait_read/wait_write need the waits: not with --no-waits");
	if (o->command && !o->command[0])
		USAGE_ERR("'--' needs a command after it");
	if (o->command && (o->demo || o->load.npids || o->load.cgroup))
		USAGE_ERR("-- COMMAND counts the command: no --demo, -p or --cgroup");
	if (o->command && (o->duration || o->count))
		USAGE_ERR("-- COMMAND ends when the command exits: no -d or -c");
	if (o->demo && (o->load.npids || o->load.comm[0]))
		USAGE_ERR("--demo reports on its own workload: no -p or -n");
	return true;
}

int pipestat_parse(int argc, char **argv, struct pipestat_opts *o, FILE *out,
		   char *err, size_t n)
{
	unsigned long long seen;
	int rc;

	memset(o, 0, sizeof(*o));
	/* the first "--" ends the options: a command and its own arguments */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			o->command = argv + i + 1;
			argc = i;
			break;
		}
	o->max_series = 1000;
	o->series_ttl = 300;
	o->sort_col = -1;
	columns_default(&o->cols);
	o->load.tier = PT_TIER_AUTO;
	o->by = PT_BY_TOTAL;
	rc = opt_parse(&pipestat_tool, argc, argv, o, &seen, out, err, n);
	if (rc != CLI_RUN)
		return rc;
	return operands(o, argc, argv, err, n) && validate(o, seen, err, n) ?
	       CLI_RUN : CLI_USAGE;
}
