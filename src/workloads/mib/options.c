/* SPDX-License-Identifier: BSD-3-Clause */
/* mib's options: the getopt string of mib 1.9.10 ("b::EFIhHl:L:np:PrRs:St:VWd") with its long
 * names, 1.9.8's -M, and sonde's --seed and --verify. */
#include <string.h>

#include "json.h"
#include "workloads/mib/mib.h"

#define F(field) SONDE_FIELD(struct mib_params, field)

/* -b[gran]: the flag and its optional granularity in one option. */
static int parse_random(void *cfg, const char *value, char *err, size_t errlen)
{
	struct mib_params *p = cfg;
	int64_t gran;
	if (sonde_parse_size(value, SONDE_SIZE_BINARY, &gran, err, errlen) < 0)
		return -1;
	if (gran < 1) {
		snprintf(err, errlen, "'%s': the granularity must be at least 1 byte", value);
		return -1;
	}
	p->random = 1;
	p->granularity = gran;
	return 0;
}

/* In records: the granularity of the random reads in bytes, 0 when the reads are sequential. */
static void show_random(const void *cfg, const char *key, struct sonde_json *j)
{
	const struct mib_params *p = cfg;
	sonde_json_int(j, key, p->random ? p->granularity : 0);
}

/* Options mib accepted in runs where they do nothing (struct sonde_option .inert); the
 * configuration is final: -W with -R already means both phases. */
static const char *unless_reading(const void *cfg)
{
	return ((const struct mib_params *)cfg)->write_only ? "applies to the read phase, which "
	                                                      "-W leaves out"
	                                                    : NULL;
}

static const char *unless_writing(const void *cfg)
{
	return ((const struct mib_params *)cfg)->read_only ? "applies to the write phase, which "
	                                                     "-R leaves out"
	                                                   : NULL;
}

static const struct sonde_option options[] = {
    {'t', "test_dir", SONDE_OPT_STRING, F(test_dir), "DIR",
     "required: the directory of the files mibData.<task>"},
    {'l', "call_limit", SONDE_OPT_INT, F(call_limit), "N",
     "issue no more than N system calls per task and phase (default 4096)", 1, 2147483647},
    {'L', "time_limit", SONDE_OPT_INT, F(time_limit), "SECONDS",
     "issue no new system call after SECONDS per phase (default 60; 0: one call per task)", 0,
     2147483647},
    {'s', "call_size", SONDE_OPT_SIZE, F(call_size), "BYTES",
     "bytes per system call, k/m/g suffixes binary (default 512k)", 1, 0x7FFFFFFFFFFFLL},
    {'b', "random_reads", SONDE_OPT_CALLBACK, 0, "GRAN",
     "read at random offsets in steps of GRAN bytes (default 1), seeded by --seed; "
     "-b4096 and -b 4096 both work",
     0, 0, SONDE_SIZE_BINARY, 1, "1", parse_random, .show = show_random, .shows = SONDE_RECORD_INT,
     .inert = unless_reading},
    {'n', "new", SONDE_OPT_FLAG, F(new_files), NULL,
     "remove this task's old mibData file before writing it", .inert = unless_writing},
    {'r', "remove", SONDE_OPT_FLAG, F(remove), NULL,
     "remove the file each task read after reading it", .inert = unless_reading},
    {'W', "write_only", SONDE_OPT_FLAG, F(write_only), NULL,
     "only the write phase (-W and -R together: both)"},
    {'R', "read_only", SONDE_OPT_FLAG, F(read_only), NULL,
     "only the read phase, of files an earlier run wrote"},
    {'p', "profiles", SONDE_OPT_STRING, F(profiles), "PREFIX",
     "write per-call timing profiles to PREFIX.write and PREFIX.read"},
    {'d', "directio", SONDE_OPT_FLAG, F(direct), NULL,
     "open files with O_DIRECT (call size a multiple of 4096)"},
    {'F', "force", SONDE_OPT_FLAG, F(force), NULL,
     "allow a file system that is not a parallel one (ext4, xfs, tmpfs, nfs, ...)"},
    {'E', "show_environment", SONDE_OPT_FLAG, F(show_env), NULL,
     "print the parameters and the file-system type"},
    {'H', "show_headers", SONDE_OPT_FLAG, F(show_headers), NULL,
     "print the column headers above the result line"},
    {'I', "show_intermediate_values", SONDE_OPT_FLAG, F(show_intermediate), NULL,
     "print each phase's calls, bytes, seconds and rate, and per task its calls and the "
     "limit that stopped it"},
    {'P', "show_progress", SONDE_OPT_FLAG, F(show_progress), NULL,
     "print a bar of stars during each phase"},
    {'S', "show_signon", SONDE_OPT_FLAG, F(show_signon), NULL,
     "print the version and the date first"},
    {'V', "version", SONDE_OPT_FLAG, F(version), NULL, "print the version and exit"},
    {'M', "no_mpi", SONDE_OPT_FLAG, F(no_mpi), NULL,
     "run as one process without MPI (several processes need MPI)"},
    {0, "seed", SONDE_OPT_LONG, F(seed), "N",
     "seed of the data pattern and of -b's offsets (default 1; a --verify read needs the "
     "writer's seed)"},
    {0, "verify", SONDE_OPT_FLAG, F(verify), NULL,
     "check every byte read against the data the writer task wrote (the check is inside "
     "the timed loop)",
     .inert = unless_reading},
};

static void table_defaults(void *cfg)
{
	mib_params_defaults(cfg);
}

const struct sonde_option_table mib_options = {
    .command = "sonde mib",
    .usage = "-t DIR [options]",
    .summary = "LLNL mib: each task writes its own file mibData.<task> with system calls of one "
               "size until a call limit or a time limit, whichever comes first, then reads the "
               "file of task (task + tasks/2) mod tasks, so that reads defeat the client cache. "
               "Prints mib's result line: date, tasks, call size, limits, write and read MB/s.",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = (int)(sizeof options / sizeof options[0]),
    .cfg_size = sizeof(struct mib_params),
    .defaults = table_defaults,
    .epilog = "Rates are MiB/s: the bytes of all tasks over (latest end - earliest start) of the "
              "phase, open and close excluded, the write phase's fsync included.\n"
              "Example: mpirun -n 8 sonde mib -t /lustre/x/mib -l 1024 -L 60 -s 512k -H -p prof",
};

void mib_params_defaults(struct mib_params *p)
{
	memset(p, 0, sizeof *p);
	p->call_limit = 4096;
	p->time_limit = 60;
	p->call_size = 512 * 1024;
	p->granularity = 1;
	p->seed = 1;
}

/* Letters of mib that take a value: in a group like -FMt/dir the value starts right after. */
static int takes_value(char c)
{
	return strchr("tlLspb", c) != NULL;
}

int mib_wants_mpi(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (strcmp(w, "--") == 0)
			break;
		if (strcmp(w, "--no_mpi") == 0)
			return 0;
		if (w[0] != '-' || w[1] == '-' || w[1] == '\0')
			continue;
		for (const char *c = w + 1; *c; c++) {
			if (*c == 'M')
				return 0;
			if (takes_value(*c)) {
				if (!c[1] && *c != 'b')
					i++; /* the value is the next word */
				break;
			}
		}
	}
	return 1;
}
