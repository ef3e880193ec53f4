# SPDX-License-Identifier: BSD-3-Clause
"""The names of the record members the Python layer reads, in one place.

The binary is their source: the `params` of a header or measurement record are written from the
workload's option table (src/core/params.c), each option under its record name (the long name,
or the entry's `.key`; docs/options/<workload>.md lists them), plus a few members a workload adds
(the measurement's own coordinates, such as a collective's message size). Nothing in the Python
layer spells one of these names itself: it uses the constants below.

python/tests/test_names.py checks this module against records the binary writes in the test
(golden records): every name here is present with its type, and every parameter the binary
writes is named here, so a renamed or added option fails the test until it is named here too.

Each name is a `str` (usable as a dict key) that also knows its JSON types and where it appears:
OPTION (header params and every measurement's params), HEADER (header params only) or
MEASUREMENT (measurement params only).

A workload needs no class here to be run by sonde-suite: the binary describes the parameters of
its option table (`sonde --describe-options`), and `workloads` makes the class of a workload
without one from that description (`Params.described`). A class is written here for what the
binary's tables cannot say: the names the Python layer spells (the rules, the report's words),
the members a workload adds to its records besides its options, and which strings are never
null.
"""

NONE = type(None)
INT, BOOL, STR, LIST = (int,), (bool,), (str,), (list,)
STR_OR_NONE = (str, NONE)

OPTION, HEADER, MEASUREMENT = "option", "header", "measurement"


class Name(str):
    """A record member: the string, its JSON types (exact: a bool is no int) and its place."""

    def __new__(cls, name, types, where=OPTION):
        s = super().__new__(cls, name)
        s.types = types
        s.where = where
        return s

    def typed(self, value):
        return type(value) in self.types


# The JSON types of a parameter as `sonde --describe-options` names them; a string parameter
# the options leave unset is null.
DESCRIBED_TYPES = {"bool": BOOL, "int": INT, "number": (int, float), "string": STR_OR_NONE,
                   "list": LIST}


class Params:
    """The params of one workload (subclasses name them as class attributes, or a class made by
    Params.described holds them in `described_names`)."""

    workload = None
    described_names = ()

    @classmethod
    def names(cls, where=None):
        """Every Name of the class, or those of one place (OPTION, HEADER, MEASUREMENT)."""
        found = [v for k, v in vars(cls).items() if isinstance(v, Name) and k.isupper()]
        found += cls.described_names
        return [n for n in found if where is None or n.where == where]

    @classmethod
    def described(cls, description):
        """The Params class of a workload as the binary describes it: one entry of the
        "workloads" of `sonde --describe-options`, its parameters named and typed by its option
        table (each an OPTION). Raises ValueError for a description it cannot read."""
        try:
            workload = description["workload"]
            found = tuple(Name(p["name"], DESCRIBED_TYPES[p["type"]])
                          for p in description["params"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"a workload's description without {e}") from None
        return type(f"Described_{workload}", (cls,),
                    {"workload": workload, "described_names": found})

    @classmethod
    def in_header(cls):
        return cls.names(OPTION) + cls.names(HEADER)

    @classmethod
    def in_measurement(cls):
        return cls.names(OPTION) + cls.names(MEASUREMENT)

    @classmethod
    def find(cls, text):
        """The Name spelled text (as in a suite file), or None."""
        return next((n for n in cls.names() if n == text), None)


class IOR(Params):
    """sonde ior: IOR's own long option and directive names (src/workloads/ior/options.c)."""

    workload = "ior"
    USE_O_DIRECT = Name("useO_DIRECT", BOOL)
    QUIT_ON_ERROR = Name("quitOnError", BOOL)
    API = Name("api", STR)
    REF_NUM = Name("refNum", INT)
    BLOCK_SIZE = Name("blockSize", INT)
    COLLECTIVE = Name("collective", BOOL)
    REORDER_TASKS = Name("reorderTasks", BOOL)
    INTER_TEST_DELAY = Name("interTestDelay", INT)
    DEADLINE_FOR_STONEWALLING = Name("deadlineForStonewalling", INT)
    FSYNC = Name("fsync", BOOL)
    USE_EXISTING_TEST_FILE = Name("useExistingTestFile", BOOL)
    SCRIPT_FILE = Name("scriptFile", STR_OR_NONE)
    FILE_PER_PROC = Name("filePerProc", BOOL)
    INTRA_TEST_BARRIERS = Name("intraTestBarriers", BOOL)
    SET_TIME_STAMP_SIGNATURE = Name("setTimeStampSignature", INT)
    REPETITIONS = Name("repetitions", INT)
    OUTLIER_THRESHOLD = Name("outlierThreshold", INT)
    KEEP_FILE = Name("keepFile", BOOL)
    KEEP_FILE_WITH_ERROR = Name("keepFileWithError", BOOL)
    DATA_PACKET_TYPE = Name("dataPacketType", STR)
    MULTI_FILE = Name("multiFile", BOOL)
    MEMORY_PER_NODE = Name("memoryPerNode", STR_OR_NONE)
    TEST_FILE = Name("testFile", STR)
    DIRECTIVES = Name("directives", LIST)
    TASK_PER_NODE_OFFSET = Name("taskPerNodeOffset", INT)
    READ_FILE = Name("readFile", BOOL)
    CHECK_READ = Name("checkRead", BOOL)
    SEGMENT_COUNT = Name("segmentCount", INT)
    TRANSFER_SIZE = Name("transferSize", INT)
    MAX_TIME_DURATION = Name("maxTimeDuration", INT)
    UNIQUE_DIR = Name("uniqueDir", BOOL)
    HINTS_FILE_NAME = Name("hintsFileName", STR_OR_NONE)
    SHOW_HINTS = Name("showHints", BOOL)
    VERBOSE = Name("verbose", INT)
    WRITE_FILE = Name("writeFile", BOOL)
    CHECK_WRITE = Name("checkWrite", BOOL)
    REORDER_TASKS_RANDOM_SEED = Name("reorderTasksRandomSeed", INT)
    FSYNC_PER_WRITE = Name("fsyncPerWrite", BOOL)
    RANDOM_OFFSET = Name("randomOffset", INT)
    REORDER_TASKS_RANDOM = Name("reorderTasksRandom", INT)
    DRY_RUN = Name("dryRun", BOOL)
    RANDOM_OFFSET_SEED = Name("random-offset-seed", INT)
    # the MMAP backend's own options (src/io/mmap.c)
    MMAP_MADV_DONT_NEED = Name("mmap.madv_dont_need", BOOL)
    MMAP_MADV_PATTERN = Name("mmap.madv_pattern", BOOL)
    # the HDF5 and NCMPI backends' own options (src/io/hdf5.c, src/io/ncmpi.c); setAlignment and
    # noFill under IOR's own names
    HDF5_SET_ALIGNMENT = Name("setAlignment", INT)
    HDF5_NO_FILL = Name("noFill", BOOL)
    HDF5_CHUNK_SIZE = Name("hdf5.chunkSize", INT)
    HDF5_COLLECTIVE_METADATA = Name("hdf5.collectiveMetadata", BOOL)
    HDF5_HINTS_FILE_NAME = Name("hdf5.hintsFileName", STR_OR_NONE)
    NCMPI_HINTS_FILE_NAME = Name("ncmpi.hintsFileName", STR_OR_NONE)
    HDF5_SHOW_HINTS = Name("hdf5.showHints", BOOL)
    NCMPI_SHOW_HINTS = Name("ncmpi.showHints", BOOL)
    PRESET = Name("preset", STR_OR_NONE)
    RANK_DETAILS = Name("rank-details", BOOL)
    DROP_CACHE = Name("drop-cache", BOOL)
    LATENCY = Name("latency", BOOL)
    STONEWALLING_WEAR_OUT = Name("stoneWallingWearOut", BOOL)
    STONEWALLING_WEAR_OUT_ITERATIONS = Name("stoneWallingWearOutIterations", INT)
    STONEWALLING_STATUS_FILE = Name("stoneWallingStatusFile", STR_OR_NONE)
    MIN_TIME_DURATION = Name("minTimeDuration", INT)
    SUMMARY_FORMAT = Name("summaryFormat", STR)
    SUMMARY_FILE = Name("summaryFile", STR_OR_NONE)
    SAVE_RANK_PERFORMANCE_DETAILS_CSV = Name("saveRankPerformanceDetailsCSV", STR_OR_NONE)
    MEMORY_PER_TASK = Name("memoryPerTask", STR_OR_NONE)
    PLATFORM = Name("platform", STR_OR_NONE)
    # the test of an -f script the measurement belongs to (0 without a script)
    TEST = Name("test", INT, MEASUREMENT)


class IORSummary:
    """sonde ior's "summary" records: IOR's "Summary of all tests" row of one operation."""

    OPERATION = Name("operation", STR)
    TEST = Name("test", INT)
    REPETITIONS = Name("repetitions", INT)
    BW_MAX = Name("bw_max_mib_s", (int, float))
    BW_MIN = Name("bw_min_mib_s", (int, float))
    BW_MEAN = Name("bw_mean_mib_s", (int, float))
    BW_STDDEV = Name("bw_stddev_mib_s", (int, float))
    MEAN_TIME = Name("mean_time_s", (int, float))
    AGGREGATE_BYTES = Name("aggregate_bytes", INT)


class IORExtra:
    """sonde ior's every measurement: the bytes each node's ranks moved in the phase (a list,
    node 0 first, the header's node numbering)."""

    NODE_BYTES = Name("node_bytes", LIST)


class IORHintsExtra:
    """sonde ior's measurements through a backend that takes MPI-IO hints (MPIIO, NCMPI, HDF5):
    the hints every open passed, "key=value" in the order given (rank 0's IOR_HINT__MPI__
    variables, then -U's file). They define the experiment; the file's name does not."""

    MPI_HINTS = Name("mpi_hints", LIST)


class IORReadExtra:
    """sonde ior's read measurements with -C: what the reordering did (rank 0 works it out)."""

    READ_SHIFT_RANKS = Name("read_shift_ranks", INT)  # every rank reads rank + this
    SAME_NODE_READS = Name("same_node_reads", INT)  # ranks that read what their node wrote


class IORWriteExtra:
    """sonde ior's write measurements under a stonewall (-D): the aggregate bandwidth up to the
    deadline, IO500's throughput-stonewall."""

    STONEWALL_AGGREGATE = Name("stonewall_aggregate_mib_s", (int, float))


class MIB(Params):
    """sonde mib: mib's long option names (src/workloads/mib/options.c)."""

    workload = "mib"
    TEST_DIR = Name("test_dir", STR)
    CALL_LIMIT = Name("call_limit", INT)
    TIME_LIMIT = Name("time_limit", INT)
    CALL_SIZE = Name("call_size", INT)
    # the granularity of the random reads in bytes, 0 when the reads are sequential
    RANDOM_READS = Name("random_reads", INT)
    NEW = Name("new", BOOL)
    REMOVE = Name("remove", BOOL)
    WRITE_ONLY = Name("write_only", BOOL)
    READ_ONLY = Name("read_only", BOOL)
    PROFILES = Name("profiles", STR_OR_NONE)
    DIRECTIO = Name("directio", BOOL)
    FORCE = Name("force", BOOL)
    SHOW_ENVIRONMENT = Name("show_environment", BOOL)
    SHOW_HEADERS = Name("show_headers", BOOL)
    SHOW_INTERMEDIATE_VALUES = Name("show_intermediate_values", BOOL)
    SHOW_PROGRESS = Name("show_progress", BOOL)
    SHOW_SIGNON = Name("show_signon", BOOL)
    VERSION = Name("version", BOOL)
    NO_MPI = Name("no_mpi", BOOL)
    SEED = Name("seed", INT)
    VERIFY = Name("verify", BOOL)


class BTIO(Params):
    """sonde btio: its long options, as the run uses them (input file lines under the command
    line's) (src/workloads/btio/options.c)."""

    workload = "btio"
    MODE = Name("mode", STR)  # "w", "r" or "rw"
    METHOD = Name("method", INT)
    DUMPS = Name("dumps", INT)
    GRID = Name("grid", LIST)  # [X, Y, Z]
    DIR = Name("dir", STR)
    FILE = Name("file", STR)
    NO_VERIFY = Name("no-verify", BOOL)
    HINTS = Name("hints", LIST)
    INPUT_FILE = Name("input_file", STR_OR_NONE, HEADER)


class MPIIO(Params):
    """sonde mpiio: the LANL test's option words (src/workloads/mpiio/options.c)."""

    workload = "mpiio"
    TYPE = Name("type", INT)
    COLLECTIVE = Name("collective", BOOL)
    NUM_IO = Name("num_io", LIST)
    NOBJ = Name("nobj", INT)
    STRIDED = Name("strided", INT)
    SIZE = Name("size", INT)
    CSIZE = Name("csize", INT)
    TARGET = Name("target", STR)
    TARGETS = Name("targets", STR_OR_NONE)
    DELETEFILE = Name("deletefile", BOOL)
    BARRIER = Name("barrier", BOOL)
    TOUCH = Name("touch", INT)
    SYNC = Name("sync", BOOL)
    SLEEP = Name("sleep", INT)
    CHKDATA = Name("chkdata", INT)
    PREALLOCATE = Name("preallocate", INT)
    AHEAD = Name("ahead", INT)
    HOST = Name("host", LIST)
    LHOSTS = Name("lhosts", BOOL)
    DIO = Name("dio", BOOL)
    HINTS = Name("hints", LIST)
    OP = Name("op", STR_OR_NONE)
    NOFILE = Name("nofile", BOOL)
    NORSEND = Name("norsend", BOOL)
    OUTPUT = Name("output", STR_OR_NONE)
    ERROUT = Name("errout", STR_OR_NONE)
    VERBOSE = Name("verbose", BOOL)
    SETUP = Name("setup", STR_OR_NONE)
    # the layout the options make: ranks that write, files written
    WRITERS = Name("writers", INT, OPTION)
    FILES = Name("files", INT, OPTION)
    PAGE_SIZE = Name("page_size", INT, HEADER)


class COLL(Params):
    """sonde coll: mpiBench's options under record names (src/workloads/coll.c), and each
    measurement's operation, message size and communicator."""

    workload = "coll"
    BEGIN = Name("begin", INT)
    END = Name("end", INT)
    MEM_LIMIT = Name("mem_limit", INT)
    ITERATIONS = Name("iterations", INT)
    TIME_LIMIT_US = Name("time_limit_us", INT)
    DIMS = Name("dims", INT)
    PART_MIN = Name("part_min", INT)
    CHECK_LAST = Name("check_last", BOOL)
    CHECK_ALL = Name("check_all", BOOL)
    NO_BARRIER = Name("no-barrier", BOOL)
    PER_CALL = Name("per-call", BOOL)
    PERCENTILES = Name("percentiles", BOOL)
    OVERLAP = Name("overlap", BOOL)
    # the timing kernel the options chose: "barrier", "no-barrier" or "per-call"
    TIMING = Name("timing", STR)
    OPERATIONS = Name("operations", LIST, HEADER)
    OPERATION = Name("operation", STR, MEASUREMENT)
    SIZE = Name("size", INT, MEASUREMENT)
    COMM = Name("comm", STR, MEASUREMENT)
    COMM_RANKS = Name("comm_ranks", INT, MEASUREMENT)
    ESTIMATE_ONLY = Name("estimate_only", BOOL, MEASUREMENT)
    COUNT = Name("count", INT, MEASUREMENT)
    DATATYPE = Name("datatype", STR, MEASUREMENT)
    ROOT = Name("root", INT, MEASUREMENT)


class COLLExtra:
    """sonde coll's measurement figures: mpiBench's average, minimum and maximum over ranks of
    each rank's mean time per call, in microseconds."""

    AVG_US = Name("avg_us", (int, float))
    MIN_US = Name("min_us", (int, float))
    MAX_US = Name("max_us", (int, float))


class MDTEST(Params):
    """sonde mdtest: mdtest's options by record name (src/workloads/mdtest/options.c)."""

    workload = "mdtest"
    API = Name("api", STR)
    BRANCHING_FACTOR = Name("branching_factor", INT)
    NO_BARRIERS = Name("no_barriers", BOOL)
    COLLECTIVE_CREATES = Name("collective_creates", BOOL)
    CREATE_ONLY = Name("create_only", BOOL)
    TEST_DIRS = Name("test_dirs", STR)
    DIRS_ONLY = Name("dirs_only", BOOL)
    READ_BYTES = Name("read_bytes", INT)
    READ_ONLY = Name("read_only", BOOL)
    FIRST_TASKS = Name("first_tasks", INT)
    FILES_ONLY = Name("files_only", BOOL)
    RANDOM_BUFFER_OFFSET = Name("random_buffer_offset", INT)
    ITERATIONS = Name("iterations", INT)
    ITEMS_PER_DIR = Name("items_per_dir", INT)
    MAKE_NODE = Name("make_node", BOOL)
    LAST_TASKS = Name("last_tasks", INT)
    LEAF_ONLY = Name("leaf_only", BOOL)
    ITEMS = Name("items", INT)
    NSTRIDE = Name("nstride", INT)
    PRE_DELAY = Name("pre_delay", INT)
    PRINT_RATE_AND_TIME = Name("print_rate_and_time", BOOL)
    RANDOM_ORDER = Name("random_order", BOOL)
    RANDOM_SEED = Name("random-seed", INT)
    REMOVE_ONLY = Name("remove_only", BOOL)
    TASKS_STRIDE = Name("tasks_stride", INT)
    SHARED_FILE = Name("shared_file", BOOL)
    TIME_UNIQUE_DIR_OVERHEAD = Name("time_unique_dir_overhead", BOOL)
    STAT_ONLY = Name("stat_only", BOOL)
    UNIQUE_DIR_PER_TASK = Name("unique_dir_per_task", BOOL)
    RENAME_DIRS = Name("rename_dirs", BOOL)
    VERBOSE = Name("verbose", INT)
    WRITE_BYTES = Name("write_bytes", INT)
    STONEWALL_SECONDS = Name("stonewall_seconds", INT)
    STONEWALL_STATUS_FILE = Name("stonewall_status_file", STR_OR_NONE)
    VERIFY_READ = Name("verify-read", BOOL)
    VERIFY_WRITE = Name("verify-write", BOOL)
    SYNC_FILE = Name("sync_file", BOOL)
    CALL_SYNC = Name("call_sync", BOOL)
    DEPTH = Name("depth", INT)
    PRINT_TIME = Name("print_time", BOOL)
    DATA_PACKET_TYPE = Name("dataPacketType", STR)
    RUN_CMD_BEFORE_PHASE = Name("run-cmd-before-phase", STR_OR_NONE)
    RUN_CMD_AFTER_PHASE = Name("run-cmd-after-phase", STR_OR_NONE)
    SAVE_RANK_PERFORMANCE_DETAILS = Name("saveRankPerformanceDetails", STR_OR_NONE)
    SHOW_RANK_STATISTICS = Name("showRankStatistics", BOOL)
    PRINT_ALL_PROCS = Name("print-all-procs", BOOL)
    WARNING_AS_ERRORS = Name("warningAsErrors", BOOL)
    POSIX_ODIRECT = Name("posix.odirect", BOOL)
    # derived from the options: the shape of the work, the -N shift in ranks, the data seed
    ITEMS_PER_RANK = Name("items_per_rank", INT)
    ITEMS_PER_DIRECTORY = Name("items_per_directory", INT)
    TREE_DIRECTORIES = Name("tree_directories", INT)
    STRIDE_RANKS = Name("stride_ranks", INT)
    DATA_SEED = Name("data_seed", INT)


class MdtestExtra:
    """Members of the extra of sonde mdtest's measurements."""

    OPERATION = Name("operation", STR)
    TASKS = Name("tasks", INT)
    RANK_ITEMS = Name("rank_items", LIST)
    RANK_SECONDS = Name("rank_seconds_before_barrier", LIST)


class MdtestCreateStonewallExtra:
    """sonde mdtest's file-create measurement under a stonewall (-W): the items all ranks made
    before the deadline and the seconds that took, IO500's rate-stonewall."""

    STONEWALL_SECONDS = Name("stonewall_seconds", (int, float))
    STONEWALL_ITEMS = Name("stonewall_items", INT)


class FIND(Params):
    """sonde find: pfind's options by record name (src/workloads/find/options.c)."""

    workload = "find"
    WORKDIR = Name("workdir", STR)
    NEWER = Name("newer", STR_OR_NONE)
    SIZE = Name("size", STR_OR_NONE)
    NAME = Name("name", STR_OR_NONE)
    COUNT_ONLY = Name("count_only", BOOL)
    PER_PROCESS = Name("per_process", BOOL)
    DEBUG = Name("debug", STR_OR_NONE)
    STONEWALL = Name("stonewall", INT)
    QUEUE_LENGTH = Name("queue_length", INT)
    MAX_ENTRIES = Name("max_entries", INT)
    STEAL_FROM_NEXT = Name("steal_from_next", BOOL)
    VERBOSE = Name("verbose", INT)
    RESULTS_DIR = Name("results_dir", STR_OR_NONE)


class FindExtra:
    """Members of the extra of sonde find's measurement."""

    FOUND = Name("found", INT)
    SCANNED = Name("scanned", INT)
    DIRENTS = Name("dirents", INT)


class TRAIN(Params):
    """sonde train: DLIO's configuration keys by record name (src/workloads/train/options.c)."""

    workload = "train"
    DATA_DIR = Name("data_dir", STR)
    GENERATE = Name("generate", BOOL)
    TRAIN = Name("train", BOOL)
    NUM_FILES = Name("num_files", INT)
    SAMPLES_PER_FILE = Name("samples_per_file", INT)
    RECORD_SIZE = Name("record_size", INT)
    RECORD_SIZE_STDEV = Name("record_size_stdev", INT)
    NUM_SUBFOLDERS = Name("num_subfolders", INT)
    FORMAT = Name("format", STR)
    CHUNK_DIMS = Name("chunk_dims", STR_OR_NONE)
    NUM_DSET_PER_RECORD = Name("num_dset_per_record", INT)
    MAX_SHAPE = Name("max_shape", STR_OR_NONE)
    COMPRESSION = Name("compression", STR)
    COMPRESSION_LEVEL = Name("compression_level", INT)
    BATCH_SIZE = Name("batch_size", INT)
    EPOCHS = Name("epochs", INT)
    READ_THREADS = Name("read_threads", INT)
    PREFETCH = Name("prefetch", INT)
    COMPUTE_TIME = Name("compute_time", (int, float))
    COMPUTE_TIME_STDEV = Name("compute_time_stdev", (int, float))
    TRANSFER_SIZE = Name("transfer_size", INT)
    SEED = Name("seed", INT)
    FILE_SHUFFLE = Name("file_shuffle", STR)
    SAMPLE_SHUFFLE = Name("sample_shuffle", STR)
    VERIFY = Name("verify", BOOL)
    ODIRECT = Name("odirect", BOOL)
    AU_THRESHOLD = Name("au_threshold", (int, float))
    PRESET = Name("preset", STR_OR_NONE)
    ACCELERATOR = Name("accelerator", STR_OR_NONE)
    CHECKPOINT_FOLDER = Name("checkpoint_folder", STR_OR_NONE)
    MODEL_SIZE = Name("model_size", INT)
    NUM_LAYERS = Name("num_layers", INT)
    CHECKPOINT_TYPE = Name("checkpoint_type", STR)
    CHECKPOINT_SHARED_FILE = Name("checkpoint_shared_file", BOOL)
    STEPS_BETWEEN_CHECKPOINTS = Name("steps_between_checkpoints", INT)
    EPOCHS_BETWEEN_CHECKPOINTS = Name("epochs_between_checkpoints", INT)
    CHECKPOINT_VERIFY = Name("checkpoint_verify", BOOL)
    CHECKPOINT_WRITES = Name("checkpoint_writes", INT)
    CHECKPOINT_READS = Name("checkpoint_reads", INT)
    CHECKPOINT_PRESET = Name("checkpoint_preset", STR_OR_NONE)
    TIME_BETWEEN_CHECKPOINTS = Name("time_between_checkpoints", (int, float))
    RECOVERY_RANK_SHIFT = Name("recovery_rank_shift", BOOL)


class TrainExtra:
    """Members of the extra of sonde train's epoch measurements (phase "train") and of its
    summary record."""

    SAMPLES = Name("samples", INT)
    BATCHES = Name("batches", INT)
    SAMPLES_PER_S = Name("samples_per_s", (int, float))
    INDEX_BYTES = Name("index_bytes", INT)
    INDEX_CALLS = Name("index_calls", INT)
    AU_MIN = Name("au_min", (int, float))
    AU_MIN_RANK = Name("au_min_rank", INT)
    AU_MEAN = Name("au_mean", (int, float))
    AU_MAX = Name("au_max", (int, float))
    AU_THRESHOLD = Name("au_threshold", (int, float))
    AU_PASS = Name("au_pass", (bool, NONE))  # null: no compute time, AU not judged
    RANKS_BELOW_THRESHOLD = Name("ranks_below_threshold", LIST)
    COMPUTE_S_MEAN = Name("compute_s_mean", (int, float))
    WAIT_S_MEAN = Name("wait_s_mean", (int, float))
    WAIT_S_MAX = Name("wait_s_max", (int, float))
    VERIFY_S_MAX = Name("verify_s_max", (int, float))
    CHECKPOINT_STALL_S_MAX = Name("checkpoint_stall_s_max", (int, float))
    COMPUTE_OVERRUN_S_MAX = Name("compute_overrun_s_max", (int, float))


class TrainSummary:
    """Members of sonde train's summary record (besides TrainExtra's, over the whole run)."""

    PHASE = Name("phase", STR)
    EPOCHS = Name("epochs", INT)
    BYTES = Name("bytes", INT)
    READ_CALLS = Name("read_calls", INT)
    SECONDS = Name("seconds", (int, float))
    BANDWIDTH = Name("bandwidth_mib_s", (int, float))
    RANDOM_SEED = Name("random_seed", INT)


class TrainCheckpoint:
    """sonde train's checkpoint measurements: their phases and the members of their extra."""

    WRITE = "checkpoint-write"
    READ = "checkpoint-read"
    CHECKPOINT = Name("checkpoint", INT)  # its number in the run, the record's iteration
    EPOCH = Name("epoch", (int, NONE))  # 0-based; null in checkpoint-only runs and reads
    STEP = Name("step", INT)  # rank 0's steps so far in the run (0 for reads)
    FILES = Name("files", INT)
    LAYERS = Name("layers", INT)
    WRITING_RANKS = Name("writing_ranks", INT)
    SHARED_FILE = Name("shared_file", BOOL)
    RANK_MIN_MIB_S = Name("rank_min_mib_s", (int, float))  # the slowest rank's own rate
    # the longest rank's emulated compute before it (--time-between-checkpoints), left out of
    # seconds and stall_s
    COMPUTE_BEFORE_S = Name("compute_before_s", (int, float))


class TrainCheckpointWrite:
    """Members of the extra of checkpoint-write measurements only."""

    STALL_S = Name("stall_s", (int, float))  # the barrier opening it to the last close
    FILL_S_MAX = Name("fill_s_max", (int, float))  # filling buffers, left out of seconds
    FSYNC_S_MAX = Name("fsync_s_max", (int, float))


class TrainCheckpointRead:
    """Members of the extra of checkpoint-read measurements only."""

    VERIFY_S_MAX = Name("verify_s_max", (int, float))  # checking, left out of seconds
    # rank r read the shards rank (r + rank_shift) % ranks wrote (--recovery-rank-shift: the
    # ranks per node; 0: its own)
    RANK_SHIFT = Name("rank_shift", INT)


WORKLOADS = {p.workload: p for p in (IOR, MIB, BTIO, MPIIO, COLL, MDTEST, FIND, TRAIN)}


def params_of(workload):
    """The Params class of a workload name, or None."""
    return WORKLOADS.get(workload)


def workloads(described):
    """{workload: Params class} of the workloads a binary has, from its `sonde
    --describe-options` answer (the parsed JSON): the class written here where there is one,
    else the one its description makes. Raises ValueError for an answer it cannot read."""
    try:
        entries = described["workloads"]
        return {e["workload"]: WORKLOADS.get(e["workload"]) or Params.described(e)
                for e in entries}
    except (KeyError, TypeError) as e:
        raise ValueError(f"no workloads described ({e})") from None


class Header:
    """Members of the header record (docs/results-schema.md) the Python layer reads."""

    WORKLOAD = Name("workload", STR)
    RANKS = Name("ranks", INT)
    NODES = Name("nodes", INT)
    TASKS_PER_NODE = Name("tasks_per_node", INT)
    HOSTNAMES = Name("hostnames", LIST)
    TASKS_ON_NODE = Name("tasks_on_node", LIST)  # ranks on each node, node 0 first
    NODE_OF_RANK = Name("node_of_rank", LIST)  # the node of each rank
    CLOCK_ERROR = Name("clock_error_s", (int, float))  # a rank's time off rank 0's by at most
    SONDE_VERSION = Name("sonde_version", STR)
    PARAMS = Name("params", (dict,))


class Measurement:
    """Members of a measurement record the Python layer reads."""

    PHASE = Name("phase", STR)
    ITERATION = Name("iteration", INT)
    BYTES = Name("bytes", INT)
    OPS = Name("ops", INT)
    SECONDS = Name("seconds", (int, float))
    BANDWIDTH = Name("bandwidth_mib_s", (int, float, NONE))
    VERIFY = Name("verify", (dict,))
    PARAMS = Name("params", (dict,))
    EXTRA = Name("extra", (dict,))


class Interval:
    """Members of an "interval" record (--interval): one interval of a phase's time series."""

    TYPE = "interval"
    PHASE = Name("phase", STR)
    ITERATION = Name("iteration", INT)
    INTERVAL = Name("interval", INT)  # 0 for the phase's first
    START = Name("start_s", (int, float))  # seconds after the phase's start
    SECONDS = Name("seconds", (int, float))  # its length (the first and last are cut)
    CLOCK = Name("clock_s", (int, float))  # its start on the run's clock (the profiles')
    BYTES = Name("bytes", INT)
    OPS = Name("ops", INT)
    BANDWIDTH = Name("bandwidth_mib_s", (int, float))
    OPS_PER_S = Name("ops_per_s", (int, float))
    LATENCY_P50 = Name("latency_p50_s", (int, float, NONE))  # None: no call in the interval
    LATENCY_P99 = Name("latency_p99_s", (int, float, NONE))
    RANKS_ACTIVE = Name("ranks_active", INT)  # ranks whose phase overlaps the interval
    RANKS = Name("ranks", INT)


class End:
    """Members of the end record the Python layer reads."""

    EXIT_CODE = Name("exit_code", INT)
    ELAPSED_SECONDS = Name("elapsed_seconds", (int, float))
    REASON = Name("reason", STR)  # why the run ended (docs/results-schema.md)


class Stopped:
    """An end record of a run stopped before its end: its reasons, and the members they add."""

    SIGNALLED = "signal"  # a stop signal (SIGTERM, SIGINT) ended the run
    PEER_FAILED = "peer-failed"  # another rank died or failed, and the launcher stopped this one
    SIGNAL = Name("signal", STR)  # SIGNALLED: which one
    RANK = Name("rank", INT)  # PEER_FAILED: the rank, when sonde could tell


class Mix:
    """sonde mix (docs/workloads/mix.md): the members its records add and its mix records have,
    as the report reads them."""

    MIX = "mix"  # the workload name of the mix's own run, and the type of its overlap records
    GROUP = Name("group", INT)  # every record of a group's run
    STAGE = Name("mix_stage", STR)  # its header: "solo" or "concurrent"
    START = Name("start", (int, float, NONE))  # its measurements, on the mix's clock
    END = Name("end", (int, float, NONE))
    GROUPS = Name("groups", LIST)  # the mix's header params, and every mix record
    RUN_ID = Name("run_id", STR)
    SOLO_RUN_ID = Name("solo_run_id", STR_OR_NONE)
    SPEC = Name("spec", STR)
    WORKLOAD = Name("workload", STR)
    WORLD_RANKS = Name("world_ranks", LIST)
    OVERLAP = Name("overlap", INT)  # a mix record: its window
    SECONDS = Name("seconds", (int, float))
    FIGURES = Name("figures", STR)  # PRORATED, or PHASE_AVERAGE in older files
    PRORATED = "intervals-prorated"  # the groups' interval records inside and outside the window
    # sonde before the interval-based figures: each group's figures are its whole phase's
    # averages (bytes, ops, seconds, rates), read as they are
    PHASE_AVERAGE = "phase-average"
    AGGREGATE_BANDWIDTH = Name("aggregate_bandwidth_mib_s", (int, float))
    AGGREGATE_OPS = Name("aggregate_ops_per_s", (int, float))
    PHASE = Name("phase", STR)  # a mix record's group entry
    ITERATION = Name("iteration", INT)
    INTERVALS = Name("intervals", INT)  # the phase's intervals in the window; 0: no figures
    BYTES = Name("bytes", (int, float, NONE))  # inside the window (prorated intervals)
    OPS = Name("ops", (int, float, NONE))
    BANDWIDTH = Name("bandwidth_mib_s", (int, float, NONE))
    OPS_PER_S = Name("ops_per_s", (int, float, NONE))
    OUTSIDE_BANDWIDTH = Name("outside_bandwidth_mib_s", (int, float, NONE))  # rest of the phase
    OUTSIDE_OPS_PER_S = Name("outside_ops_per_s", (int, float, NONE))
    PHASE_BANDWIDTH = Name("phase_bandwidth_mib_s", (int, float, NONE))  # the measurement's
    PHASE_OPS_PER_S = Name("phase_ops_per_s", (int, float, NONE))
    SOLO_BANDWIDTH = Name("solo_bandwidth_mib_s", (int, float, NONE))
    SOLO_OPS_PER_S = Name("solo_ops_per_s", (int, float, NONE))
    BANDWIDTH_RATIO = Name("bandwidth_ratio", (int, float, NONE))
    OPS_RATIO = Name("ops_ratio", (int, float, NONE))
