/* SPDX-License-Identifier: BSD-3-Clause */
/* mdtest's options: the letters and long names of mdtest 4.1 (IOR repository), their meaning,
 * and the ones sonde refuses. Counts and byte sizes take k/m/g/t suffixes as mdtest's parser
 * does. */
#include <string.h>
#include <strings.h>

#include "json.h"
#include "workloads/mdtest/mdtest.h"

#define F(field) SONDE_FIELD(struct mdtest_params, field)
#define BIG      INT64_MAX

/* -a: a backend that IOR's mdtest runs on (SONDE_CAP_MDTEST); the others are refused by name. */
static int parse_api(void *cfg, const char *value, char *err, size_t errlen)
{
	struct mdtest_params *p = cfg;
	const struct sonde_backend *b = sonde_backend_find(value);
	char known[256];
	sonde_backend_names(known, sizeof known, ", ", SONDE_CAP_MDTEST);
	if (!b) {
		snprintf(err, errlen, "%s", sonde_io_last_error());
		return -1;
	}
	if (!(b->caps & SONDE_CAP_MDTEST)) {
		snprintf(err, errlen,
		         "'%s': mdtest does not run on the %s backend, which has no metadata "
		         "operations of its own (IOR's mdtest refuses it too); mdtest runs on: %s",
		         value, b->name, known);
		return -1;
	}
	p->api = b->name;
	return 0;
}

static void show_api(const void *cfg, const char *key, struct sonde_json *j)
{
	sonde_json_string(j, key, ((const struct mdtest_params *)cfg)->api);
}

static void show_packet_type(const void *cfg, const char *key, struct sonde_json *j)
{
	sonde_json_string(j, key, ((const struct mdtest_params *)cfg)->packet_type);
}

static int parse_packet_type(void *cfg, const char *value, char *err, size_t errlen)
{
	static const char *const known[] = {
	    "offset", "incompressible", "timestamp", "random", "o", "i", "t", "r"};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(value, known[i]) == 0) {
			((struct mdtest_params *)cfg)->packet_type = known[i];
			return 0;
		}
	snprintf(err, errlen, "'%s': one of offset, incompressible, timestamp, random (o, i, t, r)",
	         value);
	return -1;
}

/* Where options act, for the ones mdtest accepts in runs where they do nothing. */
static const struct mdtest_params *P(const void *cfg)
{
	return cfg;
}

static const char *always_no_effect_pattern(const void *cfg)
{
	(void)cfg;
	return "names IOR's buffer types; sonde mdtest writes one verifiable pattern";
}

static const char *always_no_effect_warnings(const void *cfg)
{
	(void)cfg;
	return "turns mdtest's warnings into errors; in sonde every failed operation is an error";
}

static const char *unless_unique(const void *cfg)
{
	return P(cfg)->unique_dir ? NULL : "applies with -u";
}

static const char *unless_last(const void *cfg)
{
	return P(cfg)->last_tasks ? NULL : "applies with -l";
}

static const char *unless_random(const void *cfg)
{
	return P(cfg)->random_order ? NULL : "applies with -R";
}

static const char *unless_written(const void *cfg)
{
	return P(cfg)->write_bytes > 0 ? NULL : "applies with -w";
}

static const char *unless_data(const void *cfg)
{
	const struct mdtest_params *p = cfg;
	return p->write_bytes > 0 || p->verify_read ? NULL : "seeds the data of -w and -X";
}

static const struct sonde_option options[] = {
    {'a', NULL, SONDE_OPT_CALLBACK, 0, "BACKEND", "I/O interface", 0, 0, 0, 0, NULL, parse_api,
     .key = "api", .show = show_api, .shows = SONDE_RECORD_STRING},
    {'b', NULL, SONDE_OPT_INT, F(branch), "N", "branching factor of the directory tree", 0, 1 << 20,
     .key = "branching_factor"},
    {'B', NULL, SONDE_OPT_FLAG, F(no_barriers), NULL,
     "no barriers between phases (each rank times its own phase)", .key = "no_barriers"},
    {'c', NULL, SONDE_OPT_FLAG, F(collective), NULL,
     "collective creates: rank 0 creates and removes the items of every rank",
     .key = "collective_creates"},
    {'C', NULL, SONDE_OPT_FLAG, F(create), NULL, "only create files/dirs", .key = "create_only"},
    {'d', NULL, SONDE_OPT_STRING, F(dirs), "DIR",
     "directory where the test runs, or dir1@dir2@... spread over the ranks (default ./out)",
     .key = "test_dirs"},
    {'D', NULL, SONDE_OPT_FLAG, F(dirs_only), NULL, "directories only (no files)",
     .key = "dirs_only"},
    {'e', NULL, SONDE_OPT_SIZE, F(read_bytes), "BYTES", "bytes to read from each file", 0, BIG,
     .key = "read_bytes"},
    {'E', NULL, SONDE_OPT_FLAG, F(read), NULL, "only read files", .key = "read_only"},
    {'f', NULL, SONDE_OPT_INT, F(first_tasks), "N",
     "first number of tasks on which the test runs (with -l)", 1, 1 << 30, .inert = unless_last,
     .key = "first_tasks"},
    {'F', NULL, SONDE_OPT_FLAG, F(files_only), NULL, "files only (no directories)",
     .key = "files_only"},
    {'g', NULL, SONDE_OPT_REFUSED, 0, NULL,
     "Lustre's global default directory layout is not implemented"},
    {'G', NULL, SONDE_OPT_LONG, F(seed), "N",
     "seed of the data written and verified (default: drawn from the clock)", -1, 4294967295LL,
     .inert = unless_data, .key = "random_buffer_offset"},
    {'i', NULL, SONDE_OPT_INT, F(iterations), "N", "number of iterations", 1, 1 << 30,
     .key = "iterations"},
    {'I', NULL, SONDE_OPT_SIZE, F(items_per_dir), "N", "items per directory of the tree", 0, BIG,
     .key = "items_per_dir"},
    {'k', NULL, SONDE_OPT_FLAG, F(mknod), NULL, "create files with mknod (not with -w)",
     .key = "make_node"},
    {'l', NULL, SONDE_OPT_INT, F(last_tasks), "N", "last number of tasks on which the test runs", 0,
     1 << 30, .key = "last_tasks"},
    {'L', NULL, SONDE_OPT_FLAG, F(leaf_only), NULL, "items only at the leaf level of the tree",
     .key = "leaf_only"},
    {'n', NULL, SONDE_OPT_SIZE, F(items), "N",
     "items (files and/or directories) each rank creates, stats, reads and removes", 0, BIG,
     .key = "items"},
    {'N', NULL, SONDE_OPT_INT, F(stride), "N",
     "stride between the rank that creates items and the one that stats, reads and removes "
     "them, in nodes when ranks are placed in blocks (1 defeats client caches)",
     0, 1 << 30, .key = "nstride"},
    {'p', NULL, SONDE_OPT_INT, F(pre_delay), "S", "delay before each iteration (seconds)", 0,
     1 << 30, .key = "pre_delay"},
    {'P', NULL, SONDE_OPT_FLAG, F(print_rate_and_time), NULL, "print rates and times",
     .key = "print_rate_and_time"},
    {'R', NULL, SONDE_OPT_FLAG, F(random_order), NULL, "stat (and read) items in random order",
     .key = "random_order"},
    {0, "random-seed", SONDE_OPT_INT, F(random_seed), "N",
     "seed of -R's order (default: drawn from the clock); a seed alone also randomizes, as in "
     "mdtest",
     0, 1 << 30, .inert = unless_random},
    {'r', NULL, SONDE_OPT_FLAG, F(remove), NULL,
     "only remove files/dirs (left behind by earlier runs)", .key = "remove_only"},
    {'s', NULL, SONDE_OPT_INT, F(step_tasks), "N", "stride between task counts of -f/-l", 1,
     1 << 30, .key = "tasks_stride"},
    {'S', NULL, SONDE_OPT_FLAG, F(shared_file), NULL,
     "shared files: every rank opens the same file names (files only)", .key = "shared_file"},
    {'t', NULL, SONDE_OPT_FLAG, F(time_unique_dir), NULL,
     "time the set-up of the unique working directory (-u) too", .inert = unless_unique,
     .key = "time_unique_dir_overhead"},
    {'T', NULL, SONDE_OPT_FLAG, F(stat), NULL, "only stat files/dirs", .key = "stat_only"},
    {'u', NULL, SONDE_OPT_FLAG, F(unique_dir), NULL, "a unique working directory for each task",
     .key = "unique_dir_per_task"},
    {'U', NULL, SONDE_OPT_FLAG, F(rename), NULL, "add the directory rename phase",
     .key = "rename_dirs"},
    {'v', NULL, SONDE_OPT_COUNT, F(verbose), NULL,
     "verbosity: the parameters and each iteration's rates (-v), and each phase's spread of rank "
     "times (-vv)",
     .key = "verbose"},
    {'V', NULL, SONDE_OPT_INT, F(verbose), "N", "verbosity value", 0, 100},
    {'w', NULL, SONDE_OPT_SIZE, F(write_bytes), "BYTES",
     "bytes written to each file after it is created", 0, BIG, .key = "write_bytes"},
    {'W', NULL, SONDE_OPT_INT, F(stonewall), "S",
     "stonewall: stop creating files after S seconds, then every rank catches up to the most "
     "any rank made",
     0, 1 << 30, .key = "stonewall_seconds"},
    {'x', NULL, SONDE_OPT_STRING, F(status_file), "FILE",
     "stonewall status file: the create phase saves its item count there, later runs' other "
     "phases use it",
     .key = "stonewall_status_file"},
    {'X', "verify-read", SONDE_OPT_FLAG, F(verify_read), NULL,
     "verify the data read (inside the timed read, as mdtest does)"},
    {0, "verify-write", SONDE_OPT_FLAG, F(verify_write), NULL,
     "read back and verify each file right after writing it (timed, as mdtest does)"},
    {'y', NULL, SONDE_OPT_FLAG, F(fsync_each), NULL, "fsync each file after writing it",
     .inert = unless_written, .key = "sync_file"},
    {'Y', NULL, SONDE_OPT_FLAG, F(sync_phase), NULL,
     "sync after each phase, inside its time (sync(2) flushes the whole node, as mdtest's "
     "'sync' command does)",
     .key = "call_sync"},
    {'z', NULL, SONDE_OPT_INT, F(depth), "N", "depth of the directory tree", 0, MDTEST_MAX_DEPTH,
     .key = "depth"},
    {'Z', NULL, SONDE_OPT_FLAG, F(print_time), NULL, "print times instead of rates",
     .key = "print_time"},
    {0, "dataPacketType", SONDE_OPT_CALLBACK, 0, "TYPE",
     "accepted, no effect: IOR's buffer type (offset, incompressible, timestamp or random)", 0, 0,
     0, 0, NULL, parse_packet_type, .inert = always_no_effect_pattern, .show = show_packet_type,
     .shows = SONDE_RECORD_STRING},
    {0, "run-cmd-before-phase", SONDE_OPT_STRING, F(prologue), "CMD",
     "run CMD (a shell command) on every rank before each phase, outside its time"},
    {0, "run-cmd-after-phase", SONDE_OPT_STRING, F(epilogue), "CMD",
     "run CMD on every rank after each phase, inside its time"},
    {0, "saveRankPerformanceDetails", SONDE_OPT_STRING, F(rank_csv), "FILE",
     "write each rank's rate and time of every phase to a CSV file"},
    {0, "showRankStatistics", SONDE_OPT_FLAG, F(rank_statistics), NULL,
     "add per-rank max, min and mean columns to the summary"},
    {0, "print-all-procs", SONDE_OPT_FLAG, F(print_all_procs), NULL,
     "print every rank's rate (or time) of every phase"},
    {0, "warningAsErrors", SONDE_OPT_FLAG, F(warnings_as_errors), NULL,
     "accepted, no effect: every failed operation is already an error in sonde",
     .inert = always_no_effect_warnings},
    {0, "savePerOpDataCSV", SONDE_OPT_REFUSED, 0, NULL,
     "not implemented: --json records carry per-call latency percentiles of every phase"},
    {0, "allocateBufferOnGPU", SONDE_OPT_REFUSED, 0, NULL, "GPU buffers are not implemented"},
    {0, "GPUid", SONDE_OPT_REFUSED, 0, NULL, "GPU buffers are not implemented"},
    {0, "gpuDirect", SONDE_OPT_REFUSED, 0, NULL, "GPUDirect storage is not implemented"},
};

static void table_defaults(void *cfg)
{
	mdtest_params_defaults(cfg);
}

const struct sonde_option_table mdtest_options = {
    .command = "sonde mdtest",
    .usage = "[options]",
    .summary = "mdtest (IOR repository, 4.x): every rank creates, stats, reads and removes "
               "files and/or directories in a tree, or in a directory of its own (-u); phases are "
               "timed between barriers and rated as the items of all ranks over the slowest "
               "rank's time. Prints mdtest's SUMMARY table (Max, Min, Mean, Std Dev over "
               "iterations).",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = (int)(sizeof options / sizeof options[0]),
    .cfg_size = sizeof(struct mdtest_params),
    .defaults = table_defaults,
    .takes_backends = 1,
    .backend_params = F(backends),
    .backend_caps = SONDE_CAP_MDTEST,
    .epilog = "Without -C, -T, -E, -r or -U every phase runs (renames included). Files are named "
              "file.mdtest.<rank>.<n>, directories dir.mdtest.<rank>.<n>, under "
              "DIR/test-dir.<iteration>-0/mdtest_tree.[<rank>.]0.\n"
              "Example (IO500's mdtest-easy): mpirun -n 8 sonde mdtest -n 100000 -u -L -F -P "
              "-N 1 -d /scratch/mdtest-easy -W 300 -x easy.stonewall -C",
};

void mdtest_params_defaults(struct mdtest_params *p)
{
	memset(p, 0, sizeof *p);
	p->api = "POSIX";
	p->branch = 1;
	p->dirs = "./out";
	p->iterations = 1;
	p->step_tasks = 1;
	p->first_tasks = 1;
	p->seed = -1;
	p->packet_type = "t";
	sonde_backend_params_defaults(&p->backends);
}
