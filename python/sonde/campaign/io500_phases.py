# SPDX-License-Identifier: BSD-3-Clause
"""IO500's phases (github.com/IO500/io500, standard mode) and the parameters each one runs with,
as sonde's records name them.

Each phase says, for every parameter its workload records in the header's `params`, what IO500
allows there (src/phase_*.c build the command lines; the .ini keys are the only way a submitter
changes them):
  - a value: IO500 passes the option with that value, or leaves it at the binary's default
    (the value the binary parses from an empty command line, `binary_defaults`);
  - TUNABLE: an .ini key of the phase sets it (API and its backend options, ior-easy's
    transferSize/blockSize/filePerProc/uniqueDir/verbosity, ior-hard's segmentCount/collective/
    verbosity, mdtest's n, find's pfind queue length and steal-next, dataPacketType);
  - STONEWALL: the campaign's stonewall (IO500's [debug] stonewall-time, 300 s in a valid run);
  - SET: a path IO500 always gives (the data and stonewall status files), any path;
  - FREE: where results go, the data seed IO500 draws from its timestamp, and what the binary
    derives from the other parameters;
  - FilePerProc((a, b)): a with file-per-process, b without (ior-rnd4K-easy-read's -C -Q 2).
A parameter the binary records and a phase does not name is judged a difference: a new option
is not valid in an IO500 campaign until its rule is written here.
"""

from dataclasses import dataclass, field

from ..results.names import FIND, IOR, MDTEST

STONEWALL = 300  # seconds: IO500's stonewall, and the least time a write phase may take


class _Marker(str):
    """A kind of expected value that is not a value."""


TUNABLE = _Marker("tunable")
STONEWALL_TIME = _Marker("stonewall")
SET = _Marker("set")
FREE = _Marker("free")


def binary_defaults(workload):
    """The parameters the binary parses from a command line that gives none (sonde's option
    tables). They are written here until `sonde --parse-only` can say them
    (argcheck.parse(sonde, workload, [], 1, 1)); the clean campaign of
    tests/integration/test_io500.py checks every one against the records of real launches."""
    return dict(_DEFAULTS[workload])


_DEFAULTS = {
    "ior": {
        IOR.USE_O_DIRECT: False, IOR.QUIT_ON_ERROR: False, IOR.API: "POSIX", IOR.REF_NUM: 0,
        IOR.BLOCK_SIZE: 1048576, IOR.COLLECTIVE: False, IOR.REORDER_TASKS: False,
        IOR.INTER_TEST_DELAY: 0, IOR.DEADLINE_FOR_STONEWALLING: 0, IOR.FSYNC: False,
        IOR.USE_EXISTING_TEST_FILE: False, IOR.SCRIPT_FILE: None, IOR.FILE_PER_PROC: False,
        IOR.INTRA_TEST_BARRIERS: False, IOR.SET_TIME_STAMP_SIGNATURE: 0, IOR.REPETITIONS: 1,
        IOR.OUTLIER_THRESHOLD: 0, IOR.KEEP_FILE: False, IOR.KEEP_FILE_WITH_ERROR: False,
        IOR.DATA_PACKET_TYPE: "timestamp", IOR.MULTI_FILE: False, IOR.MEMORY_PER_NODE: None,
        IOR.TEST_FILE: "testFile", IOR.DIRECTIVES: [], IOR.TASK_PER_NODE_OFFSET: 1,
        IOR.READ_FILE: False, IOR.CHECK_READ: False, IOR.SEGMENT_COUNT: 1,
        IOR.TRANSFER_SIZE: 262144, IOR.MAX_TIME_DURATION: 0, IOR.UNIQUE_DIR: False,
        IOR.HINTS_FILE_NAME: None, IOR.VERBOSE: 0, IOR.WRITE_FILE: False,
        IOR.CHECK_WRITE: False, IOR.REORDER_TASKS_RANDOM_SEED: 0, IOR.FSYNC_PER_WRITE: False,
        IOR.RANDOM_OFFSET: 0, IOR.REORDER_TASKS_RANDOM: 0, IOR.DRY_RUN: False,
        IOR.RANDOM_OFFSET_SEED: -1, IOR.PRESET: None, IOR.RANK_DETAILS: False,
        IOR.DROP_CACHE: False, IOR.LATENCY: False, IOR.STONEWALLING_WEAR_OUT: False,
        IOR.STONEWALLING_WEAR_OUT_ITERATIONS: 0, IOR.STONEWALLING_STATUS_FILE: None,
        IOR.MIN_TIME_DURATION: 0, IOR.SUMMARY_FORMAT: "default", IOR.SUMMARY_FILE: None,
        IOR.SAVE_RANK_PERFORMANCE_DETAILS_CSV: None, IOR.MEMORY_PER_TASK: None,
        IOR.PLATFORM: None, IOR.MMAP_MADV_DONT_NEED: False, IOR.MMAP_MADV_PATTERN: False,
        IOR.HDF5_SET_ALIGNMENT: 1, IOR.HDF5_NO_FILL: False, IOR.HDF5_CHUNK_SIZE: 0,
        IOR.HDF5_COLLECTIVE_METADATA: False, IOR.HDF5_HINTS_FILE_NAME: None,
        IOR.NCMPI_HINTS_FILE_NAME: None, IOR.SHOW_HINTS: False, IOR.HDF5_SHOW_HINTS: False,
        IOR.NCMPI_SHOW_HINTS: False,
    },
    "mdtest": {
        MDTEST.API: "POSIX", MDTEST.BRANCHING_FACTOR: 1, MDTEST.NO_BARRIERS: False,
        MDTEST.COLLECTIVE_CREATES: False, MDTEST.CREATE_ONLY: True, MDTEST.TEST_DIRS: "./out",
        MDTEST.DIRS_ONLY: True, MDTEST.READ_BYTES: 0, MDTEST.READ_ONLY: True,
        MDTEST.FIRST_TASKS: 1, MDTEST.FILES_ONLY: True, MDTEST.RANDOM_BUFFER_OFFSET: -1,
        MDTEST.ITERATIONS: 1, MDTEST.ITEMS_PER_DIR: 0, MDTEST.MAKE_NODE: False,
        MDTEST.LAST_TASKS: 0, MDTEST.LEAF_ONLY: False, MDTEST.ITEMS: 0, MDTEST.NSTRIDE: 0,
        MDTEST.PRE_DELAY: 0, MDTEST.PRINT_RATE_AND_TIME: False, MDTEST.RANDOM_ORDER: False,
        MDTEST.RANDOM_SEED: 0, MDTEST.REMOVE_ONLY: True, MDTEST.TASKS_STRIDE: 1,
        MDTEST.SHARED_FILE: False, MDTEST.TIME_UNIQUE_DIR_OVERHEAD: False,
        MDTEST.STAT_ONLY: True, MDTEST.UNIQUE_DIR_PER_TASK: False, MDTEST.RENAME_DIRS: True,
        MDTEST.VERBOSE: 0, MDTEST.WRITE_BYTES: 0, MDTEST.STONEWALL_SECONDS: 0,
        MDTEST.STONEWALL_STATUS_FILE: None, MDTEST.VERIFY_READ: False,
        MDTEST.VERIFY_WRITE: False, MDTEST.SYNC_FILE: False, MDTEST.CALL_SYNC: False,
        MDTEST.DEPTH: 0, MDTEST.PRINT_TIME: False, MDTEST.DATA_PACKET_TYPE: "t",
        MDTEST.RUN_CMD_BEFORE_PHASE: None, MDTEST.RUN_CMD_AFTER_PHASE: None,
        MDTEST.SAVE_RANK_PERFORMANCE_DETAILS: None, MDTEST.SHOW_RANK_STATISTICS: False,
        MDTEST.PRINT_ALL_PROCS: False, MDTEST.WARNING_AS_ERRORS: False,
        MDTEST.POSIX_ODIRECT: False,
    },
    "find": {
        FIND.WORKDIR: None, FIND.NEWER: None, FIND.SIZE: None, FIND.NAME: None,
        FIND.COUNT_ONLY: False, FIND.PER_PROCESS: False, FIND.DEBUG: None, FIND.STONEWALL: 0,
        FIND.QUEUE_LENGTH: 100000, FIND.MAX_ENTRIES: 1000, FIND.STEAL_FROM_NEXT: False,
        FIND.VERBOSE: 0, FIND.RESULTS_DIR: None,
    },
}

# What every phase of a workload may set or leave free, whatever IO500 fixes for the phase.
_FREE = {
    "ior": {IOR.API: TUNABLE, IOR.USE_O_DIRECT: TUNABLE, IOR.HINTS_FILE_NAME: TUNABLE,
            IOR.DATA_PACKET_TYPE: TUNABLE, IOR.SET_TIME_STAMP_SIGNATURE: FREE,
            IOR.DIRECTIVES: FREE, IOR.SAVE_RANK_PERFORMANCE_DETAILS_CSV: FREE,
            IOR.TEST_FILE: SET},
    "mdtest": {MDTEST.API: TUNABLE, MDTEST.POSIX_ODIRECT: TUNABLE,
               MDTEST.DATA_PACKET_TYPE: TUNABLE, MDTEST.RANDOM_BUFFER_OFFSET: FREE,
               MDTEST.SAVE_RANK_PERFORMANCE_DETAILS: FREE, MDTEST.TEST_DIRS: SET,
               MDTEST.STONEWALL_STATUS_FILE: SET,
               # derived from the options above (the tree's shape, -N in ranks, -G's seed)
               MDTEST.ITEMS_PER_RANK: FREE, MDTEST.ITEMS_PER_DIRECTORY: FREE,
               MDTEST.TREE_DIRECTORIES: FREE, MDTEST.STRIDE_RANKS: FREE,
               MDTEST.DATA_SEED: FREE},
    "find": {FIND.WORKDIR: SET, FIND.NEWER: SET},
}

# ior-easy: -g -G -k -e -o, and with IO500's standard flags -C -Q 1 and the stonewall status
# file; transferSize, blockSize, filePerProc, uniqueDir and verbosity from [ior-easy]
_IOR_COMMON = {IOR.INTRA_TEST_BARRIERS: True, IOR.KEEP_FILE: True, IOR.FSYNC: True,
               IOR.VERBOSE: TUNABLE}
_IOR_STD = {IOR.REORDER_TASKS: True, IOR.TASK_PER_NODE_OFFSET: 1,
            IOR.STONEWALLING_STATUS_FILE: SET}
_IOR_EASY = {**_IOR_COMMON, **_IOR_STD, IOR.TRANSFER_SIZE: TUNABLE, IOR.BLOCK_SIZE: TUNABLE,
             IOR.FILE_PER_PROC: TUNABLE, IOR.UNIQUE_DIR: TUNABLE}
_IOR_HARD = {**_IOR_COMMON, **_IOR_STD, IOR.TRANSFER_SIZE: 47008, IOR.BLOCK_SIZE: 47008,
             IOR.SEGMENT_COUNT: TUNABLE, IOR.COLLECTIVE: TUNABLE}
_IOR_WRITE = {IOR.WRITE_FILE: True, IOR.DEADLINE_FOR_STONEWALLING: STONEWALL_TIME,
              IOR.STONEWALLING_WEAR_OUT: True}
_IOR_READ = {IOR.READ_FILE: True, IOR.CHECK_READ: True}

# mdtest: -n -P -N 1 -F -d -x (and -G) in both; easy -u -L, hard -t -w 3901 -e 3901
_MD_COMMON = {MDTEST.ITEMS: TUNABLE, MDTEST.PRINT_RATE_AND_TIME: True, MDTEST.NSTRIDE: 1,
              MDTEST.FILES_ONLY: True, MDTEST.DIRS_ONLY: False}
_MD_EASY = {**_MD_COMMON, MDTEST.UNIQUE_DIR_PER_TASK: True, MDTEST.LEAF_ONLY: True}
_MD_HARD = {**_MD_COMMON, MDTEST.TIME_UNIQUE_DIR_OVERHEAD: True, MDTEST.WRITE_BYTES: 3901,
            MDTEST.READ_BYTES: 3901}


def _md_only(which):
    """mdtest's phase flags: -C, -T, -E or -r runs that phase alone."""
    return {MDTEST.CREATE_ONLY: which == "C", MDTEST.STAT_ONLY: which == "T",
            MDTEST.READ_ONLY: which == "E", MDTEST.REMOVE_ONLY: which == "r",
            MDTEST.RENAME_DIRS: False}


class FilePerProc(tuple):
    """A value that depends on filePerProc: (with -F, without)."""

    def resolve(self, params):
        return self[0] if params.get(IOR.FILE_PER_PROC) else self[1]


# ior-rnd4K-easy-read: ior-easy's -g -G -k -e -o [-u] [-F] without its standard flags, then
# -r -D stonewall -z -z -t 4096 -b 4096 -s 10000000 -O stoneWallingWearOut=1, and -C -Q 2 with
# -F
_IOR_RND4K = {**_IOR_COMMON, IOR.FILE_PER_PROC: TUNABLE, IOR.UNIQUE_DIR: TUNABLE,
              IOR.READ_FILE: True, IOR.DEADLINE_FOR_STONEWALLING: STONEWALL_TIME,
              IOR.RANDOM_OFFSET: 2, IOR.TRANSFER_SIZE: 4096, IOR.BLOCK_SIZE: 4096,
              IOR.SEGMENT_COUNT: 10000000, IOR.STONEWALLING_WEAR_OUT: True,
              IOR.REORDER_TASKS: FilePerProc((True, False)),
              IOR.TASK_PER_NODE_OFFSET: FilePerProc((2, 1))}

_MD_CREATE = {**_md_only("C"), MDTEST.CALL_SYNC: True,
              MDTEST.STONEWALL_SECONDS: STONEWALL_TIME}

# pfind: datadir -newer timestampfile -size 3901c -name "*01*" -C -q N [-N]
_FIND = {FIND.SIZE: "3901c", FIND.NAME: "*01*", FIND.COUNT_ONLY: True,
         FIND.QUEUE_LENGTH: TUNABLE, FIND.STEAL_FROM_NEXT: TUNABLE}


@dataclass(frozen=True)
class PhaseDef:
    """One IO500 phase: which sonde workload runs it, which measurement scores it, and what IO500
    allows in each parameter (the module's docstring)."""

    name: str
    workload: str | None  # None: the timestamp, which sonde-suite makes itself
    record: str | None  # the measurement phase that gives the score
    group: str | None  # "BW", "MD", or None (not scored)
    write: bool = False  # must run at least the stonewall
    rules: dict = field(default_factory=dict)  # parameter -> value or marker, beyond defaults
    family: str | None = None  # IO500's .ini section whose keys the phase shares

    @property
    def data(self):
        """(parameter, path in IO500's datadir) of the phase's data, or None."""
        return DATA.get(self.family)

    @property
    def unit(self):
        return "GiB/s" if self.name.startswith("ior") else "kIOPS"

    def expected(self):
        """Every parameter of the workload: its value, or TUNABLE / STONEWALL_TIME / SET /
        FREE."""
        if self.workload is None:
            return {}
        return {**binary_defaults(self.workload), **_FREE[self.workload], **self.rules}


PHASES = (
    PhaseDef("ior-easy-write", "ior", "write", "BW", True, {**_IOR_EASY, **_IOR_WRITE},
             "ior-easy"),
    PhaseDef("mdtest-easy-write", "mdtest", "file-create", "MD", True,
             {**_MD_EASY, **_MD_CREATE}, "mdtest-easy"),
    PhaseDef("timestamp", None, None, None),
    PhaseDef("ior-hard-write", "ior", "write", "BW", True, {**_IOR_HARD, **_IOR_WRITE},
             "ior-hard"),
    PhaseDef("mdtest-hard-write", "mdtest", "file-create", "MD", True,
             {**_MD_HARD, **_MD_CREATE}, "mdtest-hard"),
    PhaseDef("find", "find", "find", "MD", False, _FIND, "find"),
    PhaseDef("ior-easy-read", "ior", "read", "BW", False, {**_IOR_EASY, **_IOR_READ},
             "ior-easy"),
    PhaseDef("mdtest-easy-stat", "mdtest", "file-stat", "MD", False,
             {**_MD_EASY, **_md_only("T")}, "mdtest-easy"),
    PhaseDef("ior-hard-read", "ior", "read", "BW", False, {**_IOR_HARD, **_IOR_READ},
             "ior-hard"),
    PhaseDef("mdtest-hard-stat", "mdtest", "file-stat", "MD", False,
             {**_MD_HARD, **_md_only("T")}, "mdtest-hard"),
    PhaseDef("mdtest-easy-delete", "mdtest", "file-remove", "MD", False,
             {**_MD_EASY, **_md_only("r")}, "mdtest-easy"),
    PhaseDef("mdtest-hard-read", "mdtest", "file-read", "MD", False,
             {**_MD_HARD, **_md_only("E"), MDTEST.VERIFY_READ: True}, "mdtest-hard"),
    PhaseDef("mdtest-hard-delete", "mdtest", "file-remove", "MD", False,
             {**_MD_HARD, **_md_only("r")}, "mdtest-hard"),
    # not scored, but IO500 runs it and a run where it fails or scores 0 is invalid
    PhaseDef("ior-rnd4K-easy-read", "ior", "read", None, False, _IOR_RND4K, "ior-easy"),
)
PHASE_NAMES = tuple(p.name for p in PHASES)
BY_NAME = {p.name: p for p in PHASES}

# What IO500 sets once in an .ini section for all its phases: the phases of a family must
# agree on them (ior-easy-read reads the files ior-easy-write wrote, as it wrote them), where
# both leave them to the submitter.
SHARED = {
    "ior-easy": (IOR.TRANSFER_SIZE, IOR.BLOCK_SIZE, IOR.FILE_PER_PROC, IOR.UNIQUE_DIR,
                 IOR.VERBOSE, IOR.TEST_FILE, IOR.STONEWALLING_STATUS_FILE),
    "ior-hard": (IOR.SEGMENT_COUNT, IOR.VERBOSE, IOR.TEST_FILE, IOR.STONEWALLING_STATUS_FILE),
    "mdtest-easy": (MDTEST.ITEMS, MDTEST.TEST_DIRS, MDTEST.STONEWALL_STATUS_FILE),
    "mdtest-hard": (MDTEST.ITEMS, MDTEST.TEST_DIRS, MDTEST.STONEWALL_STATUS_FILE),
}


# Where IO500 puts each section's data in its datadir (the find runs on the datadir itself).
DATA = {"ior-easy": (IOR.TEST_FILE, "ior-easy/ior_file_easy"),
        "ior-hard": (IOR.TEST_FILE, "ior-hard/file"),
        "mdtest-easy": (MDTEST.TEST_DIRS, "mdtest-easy"),
        "mdtest-hard": (MDTEST.TEST_DIRS, "mdtest-hard"),
        "find": (FIND.WORKDIR, "")}


def check_steps(steps):
    """Why a suite's step names are not an IO500 campaign (None when they are): each phase
    once, in IO500's order, nothing else."""
    if list(steps) == list(PHASE_NAMES):
        return None
    extra = [s for s in steps if s not in PHASE_NAMES]
    if extra:
        return f"step '{extra[0]}' is not an IO500 phase (phases: {', '.join(PHASE_NAMES)})"
    missing = [p for p in PHASE_NAMES if p not in steps]
    if missing:
        return f"IO500 phase '{missing[0]}' has no step"
    if len(steps) != len(set(steps)):
        return "an IO500 campaign runs each phase once (repetitions = 1)"
    return "the steps must run in IO500's order: " + ", ".join(PHASE_NAMES)
