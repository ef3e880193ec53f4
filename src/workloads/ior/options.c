/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde ior's options: IOR's letters, long names and -O / script keys in one table, and IOR's
 * parameter rules with its messages. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "workloads/ior/ior.h"

#define F(field) SONDE_FIELD(struct ior_params, field)
#define BIG      INT64_MAX

/* Options IOR accepted in runs where they do nothing (struct sonde_option .inert). */
static const char *unless_writing(const void *cfg)
{
	return ((const struct ior_params *)cfg)->write ? NULL : "applies to the write phase (-w)";
}

static const char *unless_reading(const void *cfg)
{
	const struct ior_params *p = cfg;
	return p->read || p->check_read ? NULL : "applies to the read phase (-r or -R)";
}

/* -C also moves the -W check's reads. */
static const char *unless_reading_back(const void *cfg)
{
	const struct ior_params *p = cfg;
	return p->read || p->check_read || p->check_write
	           ? NULL
	           : "applies to reading back (-r, -R or -W)";
}

static const char *unless_reordering(const void *cfg)
{
	const struct ior_params *p = cfg;
	if (!p->reorder && !p->reorder_random)
		return "applies to -C and -Z";
	return p->reorder ? unless_reading_back(cfg) : unless_reading(cfg);
}

static const char *unless_random_reorder(const void *cfg)
{
	return ((const struct ior_params *)cfg)->reorder_random ? unless_reading(cfg)
	                                                        : "applies to -Z";
}

static const char *unless_random_offsets(const void *cfg)
{
	return ((const struct ior_params *)cfg)->random_offset ? NULL : "applies to -z";
}

static const struct sonde_option options[] = {
    {'B', "useO_DIRECT", SONDE_OPT_FLAG, 0, NULL, "O_DIRECT (IOR 3.3's letter for --posix.odirect)",
     .backend_option = "posix.odirect"},
    {'H', "showHints", SONDE_OPT_FLAG, 0, NULL,
     "show the MPI-IO hints of each open (IOR 3.3's letter for --mpiio.showHints; with -a "
     "HDF5 or NCMPI as their own)",
     .backend_option = "mpiio.showHints"},
    {'I', "individualDataSets", SONDE_OPT_REFUSED, 0, NULL,
     "HDF5 data sets of their own per task are not implemented (in IOR neither)"},
    {'J', "setAlignment", SONDE_OPT_SIZE, 0, "N",
     "HDF5 alignment (IOR 3.3's letter for "
     "--hdf5.setAlignment)",
     1, BIG, .backend_option = "hdf5.setAlignment"},
    {'n', "noFill", SONDE_OPT_FLAG, 0, NULL,
     "HDF5 without fill (IOR 3.3's letter for "
     "--hdf5.noFill)",
     .backend_option = "hdf5.noFill"},
    {'p', "preallocate", SONDE_OPT_REFUSED, 0, NULL, "MPI-IO preallocation is not implemented"},
    {'P', "useSharedFilePointer", SONDE_OPT_REFUSED, 0, NULL,
     "MPI-IO shared file pointers are not implemented"},
    {'q', "quitOnError", SONDE_OPT_FLAG, F(quit_on_error), NULL,
     "stop the repetitions after a verification error"},
    {'S', "useStridedDatatype", SONDE_OPT_REFUSED, 0, NULL,
     "strided datatypes are not implemented"},
    {'V', "useFileView", SONDE_OPT_REFUSED, 0, NULL, "file views are not implemented"},
    {'a', "api", SONDE_OPT_STRING, F(api), "BACKEND", "I/O interface"},
    {'A', "refNum", SONDE_OPT_INT, F(refnum), "N", "user reference number shown in the summary"},
    {'b', "blockSize", SONDE_OPT_SIZE, F(block), "N",
     "contiguous bytes per task per segment (k/m/g/t suffixes)", 0, BIG},
    {'c', "collective", SONDE_OPT_FLAG, F(collective), NULL, "collective I/O (MPIIO, HDF5)"},
    {'C', "reorderTasks", SONDE_OPT_FLAG, F(reorder), NULL,
     "read back what another node wrote: constant shift of -Q nodes", .inert = unless_reading_back},
    {'d', "interTestDelay", SONDE_OPT_INT, F(delay), "S", "seconds to wait before each phase", 0,
     1000000},
    {'D', "deadlineForStonewalling", SONDE_OPT_INT, F(deadline), "S",
     "stop each phase after S seconds (0 = never)", 0, 100000000},
    {'e', "fsync", SONDE_OPT_FLAG, F(fsync), NULL, "fsync at the end of the write phase (timed)",
     .inert = unless_writing},
    {'E', "useExistingTestFile", SONDE_OPT_FLAG, F(use_existing), NULL,
     "write into the existing file instead of truncating it", .inert = unless_writing},
    {'f', "scriptFile", SONDE_OPT_STRING, F(script), "FILE",
     "run the tests of an IOR script (IOR START ... RUN ... IOR STOP)",
     .scope = SONDE_SCOPE_COMMAND_LINE},
    {'F', "filePerProc", SONDE_OPT_FLAG, F(fpp), NULL, "one file per process"},
    {'g', "intraTestBarriers", SONDE_OPT_FLAG, F(barriers), NULL,
     "barriers between open, transfer and close"},
    {'G', "setTimeStampSignature", SONDE_OPT_LONG, F(signature), "N",
     "data signature (pattern seed); needed by -R without -w", 0, 4294967295LL},
    {'i', "repetitions", SONDE_OPT_INT, F(reps), "N", "number of repetitions", 1, 1000000},
    {'j', "outlierThreshold", SONDE_OPT_INT, F(outlier), "S",
     "warn about ranks whose times are S seconds off the mean", 0, 1000000},
    {'k', "keepFile", SONDE_OPT_FLAG, F(keep), NULL, "keep the files at the end"},
    {'K', "keepFileWithError", SONDE_OPT_FLAG, F(keep_on_error), NULL,
     "keep the files when verification found errors"},
    {'l', "dataPacketType", SONDE_OPT_STRING, F(packet_name), "TYPE",
     "timestamp (one buffer per repetition), offset, incompressible or random (regenerated per "
     "transfer)"},
    {'m', "multiFile", SONDE_OPT_FLAG, F(multi_file), NULL,
     "a new file name for each repetition (suffix .<rep>)"},
    {'M', "memoryPerNode", SONDE_OPT_STRING, F(memory_per_node), "SIZE|N%",
     "hog memory on each node (split over its ranks) to shrink the page cache"},
    {'N', "numTasks", SONDE_OPT_REFUSED, 0, NULL,
     "every launched rank takes part; launch as many ranks as should run"},
    {'o', "testFile", SONDE_OPT_STRING, F(test_file), "PATH",
     "test file name (a@b@c: several, round-robin, with -F)"},
    {'O', NULL, SONDE_OPT_LIST, F(directives), "K=V[,K=V]",
     "IOR directives: any long option name or directive below, with its checks",
     .key = "directives"},
    {'Q', "taskPerNodeOffset", SONDE_OPT_INT, F(task_offset), "N",
     "read-back shift for -C/-Z, in nodes (IOR's arithmetic)", 0, 1 << 30,
     .inert = unless_reordering},
    {'r', "readFile", SONDE_OPT_FLAG, F(read), NULL, "read phase"},
    {'R', "checkRead", SONDE_OPT_FLAG, F(check_read), NULL,
     "verify the data during the timed read"},
    {'s', "segmentCount", SONDE_OPT_LONG, F(segments), "N", "number of segments", 1, BIG},
    {'t', "transferSize", SONDE_OPT_SIZE, F(xfer), "N", "bytes per I/O call", 0, BIG},
    {'T', "maxTimeDuration", SONDE_OPT_INT, F(max_minutes), "MIN",
     "stop starting repetitions after MIN minutes", 0, 100000000},
    {'u', "uniqueDir", SONDE_OPT_FLAG, F(unique_dir), NULL,
     "file per process in its own directory <dir>/<rank>/"},
    {'U', "hintsFileName", SONDE_OPT_STRING, 0, "FILE",
     "MPI-IO hints file (lines IOR_HINT__MPI__key=value), as --mpiio.hintsFileName",
     .backend_option = "mpiio.hintsFileName"},
    {'v', "verbose", SONDE_OPT_COUNT, F(verbose), NULL, "more detail (repeatable)"},
    {'w', "writeFile", SONDE_OPT_FLAG, F(write), NULL, "write phase"},
    {'W', "checkWrite", SONDE_OPT_FLAG, F(check_write), NULL,
     "read back and verify after the write (untimed)"},
    {'x', "singleXferAttempt", SONDE_OPT_REFUSED, 0, NULL,
     "sonde's backends always complete short transfers"},
    {'X', "reorderTasksRandomSeed", SONDE_OPT_INT, F(reorder_seed), "N",
     "seed for -Z (negative: different for each repetition)", .inert = unless_random_reorder},
    {'y', "dualMount", SONDE_OPT_REFUSED, 0, NULL, "dual-mount paths are not implemented"},
    {'Y', "fsyncPerWrite", SONDE_OPT_FLAG, F(fsync_per_write), NULL, "fsync after every write",
     .inert = unless_writing},
    {'z', "randomOffset", SONDE_OPT_COUNT, F(random_offset), NULL,
     "shuffled transfer offsets within each block; -z -z: each segment reads a random block of "
     "the existing file (repeats allowed)"},
    {'Z', "reorderTasksRandom", SONDE_OPT_COUNT, F(reorder_random), NULL,
     "read back a random rank's data (-Z -Z: a shuffled permutation)", .inert = unless_reading},
    {0, "dryRun", SONDE_OPT_FLAG, F(dry_run), NULL,
     "check the parameters and show the setup without any I/O"},
    {0, "random-offset-seed", SONDE_OPT_LONG, F(random_seed), "N", "seed for -z", -1, 2147483647,
     .inert = unless_random_offsets},
    {0, "randomPrefill", SONDE_OPT_REFUSED, 0, NULL, "random prefill is not implemented"},
    {0, "warningAsErrors", SONDE_OPT_REFUSED, 0, NULL,
     "not implemented: sonde's warnings go to stderr, its errors set the exit status"},
    {0, "preset", SONDE_OPT_STRING, F(preset), "NAME",
     "jupiter-easy or jupiter-hard: the JUPITER procurement's fixed parameters",
     .scope = SONDE_SCOPE_COMMAND_LINE},
    {0, "rank-details", SONDE_OPT_FLAG, F(rank_details), NULL,
     "per-rank bytes, time and bandwidth of every phase, slowest ranks named",
     .scope = SONDE_SCOPE_COMMAND_LINE},
    {0, "drop-cache", SONDE_OPT_FLAG, F(drop_cache), NULL,
     "drop the files' page cache (posix_fadvise DONTNEED) before reading, and report it",
     .scope = SONDE_SCOPE_COMMAND_LINE},
    {0, "latency", SONDE_OPT_FLAG, F(latency_lines), NULL,
     "print per-call latency percentiles of every phase", .scope = SONDE_SCOPE_COMMAND_LINE},
    /* IOR's directives that have no command-line option, and its other names for options */
    {0, "stoneWallingWearOut", SONDE_OPT_FLAG, F(wearout), NULL,
     "after the -D deadline, every rank goes on until it has done as many transfers as the "
     "fastest rank",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "stoneWallingWearOutIterations", SONDE_OPT_LONG, F(wearout_pairs), "N",
     "transfers per rank of the write phase, for a later read-only run", 0, BIG,
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "stoneWallingStatusFile", SONDE_OPT_STRING, F(status_file), "FILE",
     "file keeping the write phase's transfers per rank (with -k), read by a later read run",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "minTimeDuration", SONDE_OPT_INT, F(min_time), "S",
     "go over the file again until each phase has lasted S seconds", 0, 100000000,
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "summaryFormat", SONDE_OPT_STRING, F(summary_format), "default|JSON|CSV",
     "format of the results (JSON and CSV replace the text on stdout unless summaryFile)",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "summaryFile", SONDE_OPT_STRING, F(summary_file), "FILE",
     "write the summaryFormat results to FILE", .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "saveRankPerformanceDetailsCSV", SONDE_OPT_STRING, F(rank_csv), "FILE",
     "per-rank times and bandwidth of every phase as CSV", .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "memoryPerTask", SONDE_OPT_STRING, F(memory_per_task), "SIZE",
     "hog this much memory in each task", .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "platform", SONDE_OPT_STRING, F(platform), "NAME",
     "platform name in the JSON summary (default: the host name without its trailing digits, "
     "and the OS)",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "reorderTasksConstant", SONDE_OPT_FLAG, F(reorder), NULL, "same as -C",
     .scope = SONDE_SCOPE_DIRECTIVE, .inert = unless_reading_back},
    {0, "tasksPerNodeOffset", SONDE_OPT_INT, F(task_offset), "N", "same as -Q", 0, 1 << 30,
     .scope = SONDE_SCOPE_DIRECTIVE, .inert = unless_reordering},
    {0, "savePerOpDataCSV", SONDE_OPT_REFUSED, 0, NULL,
     "per-operation CSV files are not written; per-call latencies are in --json",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "interIODelay", SONDE_OPT_REFUSED, 0, NULL, "a delay between transfers is not implemented",
     .scope = SONDE_SCOPE_DIRECTIVE},
    /* IOR 4.1's other options and directives, named and refused ("prefix.*": all under it) */
    {0, "gpuDirect", SONDE_OPT_REFUSED, 0, NULL,
     "GPU buffers and GPUDirect Storage are not implemented"},
    {0, "allocateBufferOnGPU", SONDE_OPT_REFUSED, 0, NULL, "GPU buffers are not implemented",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "GPUid", SONDE_OPT_REFUSED, 0, NULL, "GPU buffers are not implemented",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "numNodes", SONDE_OPT_REFUSED, 0, NULL,
     "every launched rank takes part, on the nodes the launcher placed it",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "debug", SONDE_OPT_REFUSED, 0, NULL, "IOR's debug banner is not implemented",
     .scope = SONDE_SCOPE_DIRECTIVE},
    {0, "summaryAlways", SONDE_OPT_REFUSED, 0, NULL,
     "not implemented: the summary comes once, after the last test",
     .scope = SONDE_SCOPE_DIRECTIVE},
};

static void table_defaults(void *cfg)
{
	ior_params_defaults(cfg);
}

const struct sonde_option_table ior_option_table = {
    .command = "sonde ior",
    .usage = "[options]",
    .summary = "IOR-compatible parallel I/O bandwidth benchmark: IOR's options, output and "
               "formulas, with verified data, per-call latencies and per-rank figures.",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = (int)(sizeof options / sizeof options[0]),
    .cfg_size = sizeof(struct ior_params),
    .defaults = table_defaults,
    .takes_backends = 1,
    .backend_params = F(backends),
    .epilog = "Example: mpirun -n 8 sonde ior -a POSIX -F -t 16m -b 1g -i 3 -w -r -C -g -v "
              "-o /scratch/testFile\n",
};

void ior_params_defaults(struct ior_params *p)
{
	memset(p, 0, sizeof *p);
	p->api = "POSIX";
	p->block = SONDE_MIB;
	p->xfer = 262144;
	p->segments = 1;
	p->reps = 1;
	p->task_offset = 1;
	p->test_file = "testFile";
	p->packet_name = "timestamp";
	p->random_seed = -1;
	p->summary_format = "default";
	sonde_backend_params_defaults(&p->backends);
}

void ior_io_plan(const struct ior_params *p, int ntasks, struct sonde_io_options *plan)
{
	*plan = (struct sonde_io_options){
	    .params = sonde_backend_params_of(&p->backends, sonde_backend_find(p->api)),
	    .file_size = p->block * p->segments * (p->fpp ? 1 : ntasks),
	    .transfer_size = p->xfer,
	    .random_offsets = p->random_offset,
	    .sync_per_write = p->fsync_per_write,
	    .block = p->block,
	    .ntasks = p->fpp ? 1 : ntasks,
	};
}

int ior_odirect(const struct ior_params *p)
{
	return *(const int *)sonde_backend_option_field(&p->backends, "posix.odirect");
}

const char *ior_hints_file(const struct ior_params *p)
{
	/* the API's own hints file (--hdf5.hintsFileName) when given, else -U's */
	char name[64];
	snprintf(name, sizeof name, "%s.hintsFileName", p->api);
	for (char *c = name; *c != '.'; c++)
		*c = (char)tolower((unsigned char)*c);
	const char *const *own = sonde_backend_option_field(&p->backends, name);
	if (own && *own && strcmp(name, "mpiio.hintsFileName") != 0)
		return *own;
	return *(const char *const *)sonde_backend_option_field(&p->backends,
	                                                        "mpiio.hintsFileName");
}

int ior_show_hints(const struct ior_params *p)
{
	/* the API's own showHints (--hdf5.showHints), or -H's (IOR 3.3's, for every API) */
	char name[64];
	snprintf(name, sizeof name, "%s.showHints", p->api);
	for (char *c = name; *c != '.'; c++)
		*c = (char)tolower((unsigned char)*c);
	const int *own = sonde_backend_option_field(&p->backends, name);
	return (own && *own) ||
	       *(const int *)sonde_backend_option_field(&p->backends, "mpiio.showHints");
}

int ior_directive(struct sonde_option_set *set, const char *kv, char *err, size_t errlen)
{
	/* "a=1,b=2": IOR splits on commas; the values point into a private copy kept for the
	 * run (they are referenced by the parameters) */
	char *copy = strdup(kv);
	if (!copy)
		abort();
	for (char *item = copy, *next; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		while (*item == ' ' || *item == '\t')
			item++;
		if (!*item)
			continue;
		char *eq = strchr(item, '=');
		if (!eq) {
			snprintf(err, errlen, "directive '%s' is not key=value", item);
			return -1;
		}
		char *end = eq;
		while (end > item && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		char *value = eq + 1;
		while (*value == ' ' || *value == '\t')
			value++;
		size_t vl = strlen(value);
		while (vl && (value[vl - 1] == ' ' || value[vl - 1] == '\t' ||
		              value[vl - 1] == '\n' || value[vl - 1] == '\r'))
			value[--vl] = '\0';
		if (sonde_option_directive(set, item, (size_t)(end - item), value, err, errlen) < 0)
			return -1;
	}
	return 0;
}

static int packet_of(const char *s, enum ior_packet *out)
{
	static const struct {
		const char *name, *letter;
		enum ior_packet v;
	} names[] = {
	    {"timestamp", "t", IOR_PACKET_TIMESTAMP},
	    {"offset", "o", IOR_PACKET_OFFSET},
	    {"incompressible", "i", IOR_PACKET_INCOMPRESSIBLE},
	    {"random", "r", IOR_PACKET_RANDOM},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(s, names[i].name) == 0 || strcasecmp(s, names[i].letter) == 0) {
			*out = names[i].v;
			return 0;
		}
	return -1;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		return -1;                                                                         \
	} while (0)

int ior_validate(struct ior_params *p, int ntasks, char *err, size_t errlen)
{
	const struct sonde_backend *backend = sonde_backend_find(p->api);
	if (!backend)
		FAIL("%s", sonde_io_last_error());
	p->api = backend->name;
	if (packet_of(p->packet_name, &p->packet) < 0)
		FAIL("unknown data packet type '%s' (timestamp, offset, incompressible, random)",
		     p->packet_name);
	if (strcasecmp(p->summary_format, "default") == 0)
		p->format = IOR_FORMAT_DEFAULT;
	else if (strcasecmp(p->summary_format, "JSON") == 0)
		p->format = IOR_FORMAT_JSON;
	else if (strcasecmp(p->summary_format, "CSV") == 0)
		p->format = IOR_FORMAT_CSV;
	else
		FAIL("summaryFormat must be default, JSON or CSV, not '%s'", p->summary_format);

	/* IOR's rules, in IOR's order and words */
	if (p->status_file && !p->keep)
		FAIL("a StoneWallingStatusFile is only sensible when splitting write/read into "
		     "multiple executions of ior, please use -k");
	if (p->status_file && !p->wearout && p->write)
		FAIL("the StoneWallingStatusFile is only sensible for a write test when using "
		     "stoneWallingWearOut");
	if (p->deadline == 0 && p->wearout > 0)
		FAIL("the stoneWallingWearOut is only sensible when setting a stonewall deadline "
		     "with -D");
	if (p->reps <= 0)
		FAIL("too few test repetitions");
	if (!p->read && !p->write && !p->check_read && !p->check_write)
		FAIL("test must write, read, or check read/write file");
	if (!p->signature && !p->write && p->check_read)
		FAIL("using readCheck only requires to write a timeStampSignature -- use -G");
	if (p->segments < 0)
		FAIL("segment count must be positive value");
	if (p->block % 8 != 0)
		FAIL("block size must be a multiple of access size");
	if (p->xfer % 8 != 0)
		FAIL("transfer size must be a multiple of access size");
	if (p->xfer == 0)
		FAIL("test will not complete with zero transfer size");
	if (p->block % p->xfer != 0)
		FAIL("block size must be a multiple of transfer size");
	if (p->block < p->xfer)
		FAIL("block size must not be smaller than transfer size");
	if (p->random_offset == 1 && p->block == p->xfer)
		FAIL(
		    "IOR will randomize access within a block and repeats the same pattern for all "
		    "segments, therefore choose blocksize > transferSize");
	if (p->reorder && p->reorder_random)
		FAIL(
		    "Both Constant and Random task re-ordering specified. Choose one and resubmit");
	if (p->random_offset && p->reorder_random && !p->fpp)
		FAIL("random offset and random reorder tasks specified with single-shared-file. "
		     "Choose one and resubmit");
	if (p->random_offset && p->reorder && !p->fpp)
		FAIL("random offset and constant reorder tasks specified with single-shared-file. "
		     "Choose one and resubmit");
	if (p->random_offset && p->check_read && p->random_seed == -1)
		FAIL("random offset with read check option requires to set the random seed");
	/* sonde's own limits, said plainly */
	if (p->random_offset > 2)
		FAIL("-z given %d times: -z is shuffled offsets in a block, -z -z random blocks",
		     p->random_offset);
	if (p->random_offset > 1 && (p->write || p->check_write))
		FAIL("-z -z (random blocks of the existing file) is implemented for reading only "
		     "(-r); IOR's -z -z writes are not");
	if (p->reorder_random > 2)
		FAIL("-Z given %d times: -Z is random, -Z -Z a shuffle", p->reorder_random);
	if (p->collective && !(backend->caps & SONDE_CAP_COLLECTIVE))
		FAIL("-c (collective): the %s backend has no collective I/O", p->api);
	if (ior_odirect(p) && !(backend->caps & SONDE_CAP_DIRECT))
		FAIL("--posix.odirect: the %s backend has no direct I/O", p->api);
	/* a library's file format is created anew by every write phase, as IOR's backends do */
	if (p->use_existing && (backend->caps & SONDE_CAP_FORMATTED))
		FAIL("-E with -a %s: the write phase creates the file anew, as IOR's %s backend "
		     "does",
		     p->api, p->api);
	if (p->collective && p->random_offset && !p->fpp)
		FAIL(
		    "-c with -z on a shared file: ranks would make different numbers of collective "
		    "calls");
	if (ior_odirect(p) && !(backend->caps & SONDE_CAP_DIRECT))
		FAIL("--posix.odirect: the %s backend has no direct I/O", p->api);
	if (ior_odirect(p) && (p->xfer % 4096 != 0))
		FAIL("--posix.odirect needs a transfer size that is a multiple of 4096 bytes");
	if (p->unique_dir && !p->fpp)
		FAIL("-u (unique directory per process) needs -F");
	if (strchr(p->test_file, '@') && p->unique_dir)
		FAIL("cannot use multiple file names with unique directories");
	if (!p->test_file[0])
		FAIL("empty test file name (-o)");
	if (p->block > INT64_MAX / (p->segments ? p->segments : 1) / ntasks)
		FAIL("aggregate file size overflows (-b x -s x tasks)");
	struct sonde_io_options plan;
	ior_io_plan(p, ntasks, &plan);
	if (sonde_backend_check(backend, &p->backends, &plan, err, errlen) < 0)
		return -1;
	return 0;
}
