# SPDX-License-Identifier: BSD-3-Clause
# Thin wrapper around CMake, ctest, pytest and the scripts: the commands a user and CI type.
#   make demo    set up, build, run every workload small on 2 ranks and print their tables
#   make test    set up, build (normal + ASan/UBSan), run unit, integration and Python tests
SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
.SHELLFLAGS := -o pipefail -ec
PREFIX ?= /usr/local
JOBS ?= 2
VENV := .venv
PY := $(VENV)/bin/python
# pytest keeps no cache in the tree.
PYTEST := $(PY) -m pytest -q -p no:cacheprovider
# The MPI each build uses is named by explicit paths, never by what `mpicc` and `mpirun` point to
# (Debian's alternatives, which another package or the machine's owner may switch): Open MPI's
# own wrapper and launcher when Debian's are there, else the mpicc and mpiexec on PATH (a
# cluster's MPI module). Override them for another MPI: make build MPICC=... MPIEXEC=...
MPICC ?= $(firstword $(wildcard /usr/bin/mpicc.openmpi) mpicc)
MPIEXEC ?= $(firstword $(wildcard /usr/bin/mpiexec.openmpi) $(shell command -v mpiexec))
MPICH_CC ?= mpicc.mpich
MPICH_EXEC ?= /usr/bin/mpiexec.mpich
# Every build compiles through ccache when it is installed (scripts/setup.sh test installs it):
# an object compiled once from the same source and flags is taken from the cache, so CI's fresh
# clone takes those of the developer's builds on the same machine, and a rebuild after a change
# compiles only what changed. Paths are hashed relative to the checkout (CCACHE_BASEDIR) and
# without the working directory (CCACHE_NOHASHDIR), so that a clone elsewhere hits the same
# entries (every object of a build, measured); ccache -s says how many hit.
CCACHE ?= $(shell command -v ccache)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
ccache_flags = $(if $(CCACHE),-DCMAKE_C_COMPILER_LAUNCHER=$(CCACHE))
mpi_flags = -DMPI_C_COMPILER=$(1) $(if $(2),-DMPIEXEC_EXECUTABLE=$(2))
C_SOURCES = $(shell find src tests bench -name '*.[ch]' 2>/dev/null | sort)
SAN_LOGS := $(CURDIR)/build-asan/sanitizer-logs
# Sanitizer reports go to files as well as failing the process, so that an error in a run that a
# test expected to fail anyway (exit code checked only for non-zero) is still caught: each
# sanitized suite fails when its log directory is not empty afterwards.
# Leaks are checked (LEAK_CHECK=1): Open MPI's own (it frees little of what MPI_Init allocates)
# are suppressed by library in tests/lsan.supp, which needs complete stacks through Open MPI
# (built without frame pointers), hence fast_unwind_on_malloc=0: that makes every MPI launch
# about five times slower. So the unit tests check leaks, the sanitized integration suite checks
# addresses and undefined behaviour only, and test_leaks.py runs each workload once with leak
# checking. LEAK_CHECK=0 turns leak checking off everywhere.
LEAK_CHECK ?= 1
ifeq ($(LEAK_CHECK),1)
leak_opts := detect_leaks=1:fast_unwind_on_malloc=0
else
leak_opts := detect_leaks=0
endif
san_env = ASAN_OPTIONS=$(or $(2),$(leak_opts)):halt_on_error=1:abort_on_error=1:log_path=$(SAN_LOGS)/$(1)/asan \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(SAN_LOGS)/$(1)/ubsan
san_begin = rm -rf $(SAN_LOGS)/$(1) && mkdir -p $(SAN_LOGS)/$(1)
san_check = if compgen -G "$(SAN_LOGS)/$(1)/*" >/dev/null; then head -n 60 $(SAN_LOGS)/$(1)/*; \
	echo "sanitizer errors in the $(1) tests (logs in $(SAN_LOGS)/$(1))"; exit 1; fi
# pytest exits 5 when it collected no test (no workload has integration tests yet): not a failure.
pytest_allow_empty = rc=0; $(1) || rc=$$?; \
	if ((rc == 5)); then echo "no tests collected in $(2)"; rc=0; fi; exit $$rc

.PHONY: all setup setup-demo setup-bench build build-asan test unit-test unit-test-asan integration-test integration-test-asan \
	integration-test-openmpi integration-test-once integration-test-timing \
	python-test asan-selection demo bench bench-smoke install uninstall clean format lint build-mpich test-mpich \
	build-fuzz fuzz-test fuzz

all: build

# What each purpose installs (scripts/setup.sh): setup is the developer's (everything make test
# uses); demo and bench install only what they need.
setup:
	@scripts/setup.sh test

setup-demo:
	@scripts/setup.sh demo

setup-bench:
	@scripts/setup.sh bench

# BUILD_TARGETS: only these CMake targets
build:
	cmake -S . -B build $(call mpi_flags,$(MPICC),$(MPIEXEC)) -DSONDE_WERROR=ON \
		-DSONDE_TEST_HOOKS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(ccache_flags) >/dev/null
	cmake --build build -j$(JOBS) $(if $(BUILD_TARGETS),--target $(BUILD_TARGETS))

# GCC's maybe-uninitialized analysis gives false positives under the sanitizers' instrumentation
# (GCC's manual says so); the normal build keeps it an error, here it stays a warning.
build-asan:
	cmake -S . -B build-asan $(call mpi_flags,$(MPICC),$(MPIEXEC)) -DSONDE_SANITIZE=ON \
		-DSONDE_WERROR=ON -DSONDE_TEST_HOOKS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS=-Wno-error=maybe-uninitialized $(ccache_flags) >/dev/null
	cmake --build build-asan -j$(JOBS)

# make test: the four builds (each keeps both cores busy), then the legs side by side,
# TEST_JOBS at a time, longest first: an integration leg spends most of its time waiting on
# mpirun's start-up and exit (a launch keeps a core busy for a fifth to a third of its wall
# time), so three legs fit on two cores in little more than the longest one's time. The Python
# tests, which compute rather than wait (pandas, the report's PNG workers, Chromium), are one of
# those legs: their bounds are made for this shared machine (the report renders in 60 s, not
# the second it takes) and their comparisons of real measurements for a loaded one. Then,
# alone, on a machine at rest: the timing tests, and lint. Each leg prints its wall and CPU
# time when it ends, and make test ends with the table (scripts/legs.sh); -Otarget prints each
# leg's output whole when it ends.
# docs/reliability.md, "Where make test's time goes", has the budget of each leg.
# TEST_JOBS=1 runs the legs one after the other, as make test did before.
# What each leg proves (so that no two prove the same thing on the same build):
#   integration-test-openmpi  sonde's C paths (-m "not once": every workload, I/O path, fault
#                             and bad input) on the reference build, Open MPI
#   integration-test-asan     the same C lines and branches free of memory errors and undefined
#                             behaviour (the tests that reach them all: not asan_covered),
#                             leaks once per workload (test_leaks.py)
#   test-mpich                the same paths on another MPI: Hydra's launches, exit codes and
#                             signals, ROMIO's MPI-IO, MPICH's collectives and error texts
#   integration-test-once     what no build changes: installer, launchers and Slurm, suites,
#                             manual pages, the bench and test harnesses (Open MPI build)
#   python-test               sonde-suite and sonde-report on records the binary writes
#   unit-test, unit-test-asan the C units, the second under ASan/UBSan with leak checks
#   fuzz-test                 the parsers of outside input: the corpus replayed, then searched
#   integration-test-timing   timings (marker timing), alone after the others
# The order packs 2 cores: the Python tests (steadily CPU-bound, one core) start at once beside
# the two legs that wait most (launch latency, suites' fixed durations); the ASan and MPICH legs
# take the first slots freed. Started fifth, the Python tests ran alone at the end (1829 s).
TEST_JOBS ?= 3
TEST_LEGS = python-test integration-test-openmpi integration-test-once integration-test-asan \
	test-mpich unit-test-asan fuzz-test unit-test
test: setup
	@scripts/legs.sh start
	@scripts/legs.sh run builds $(MAKE) build build-asan build-mpich build-fuzz
	@rc=0; $(MAKE) -k -j$(TEST_JOBS) -Otarget $(addprefix leg-,$(TEST_LEGS)) || rc=1; \
		$(MAKE) -k leg-integration-test-timing leg-lint || rc=1; \
		scripts/legs.sh summary; exit $$rc

leg-%:
	@scripts/legs.sh run $* $(MAKE) $*

unit-test:
	ctest --test-dir build --output-on-failure -j$(JOBS)

unit-test-asan:
	@$(call san_begin,unit)
	$(call san_env,unit) ctest --test-dir build-asan --output-on-failure -j$(JOBS)
	@$(call san_check,unit)

integration-test:
	@$(call pytest_allow_empty,SONDE_BIN=build/sonde $(PYTEST) tests/integration,tests/integration)

# The Open MPI leg of make test in three parts (together: integration-test): sonde's C paths on
# this build (what the ASan and MPICH legs run on theirs), the tests of what does not change with
# the build (marker once: the installer, launchers and Slurm, the suite runner...), and the
# timing tests (marker timing), which make test runs alone, after the other legs: a timing
# taken beside another leg's launches measures the load.
integration-test-openmpi:
	@$(call pytest_allow_empty,SONDE_BIN=build/sonde $(PYTEST) -m "not once" \
		tests/integration,tests/integration)

integration-test-once:
	@$(call pytest_allow_empty,SONDE_BIN=build/sonde $(PYTEST) -m "once and not timing" \
		tests/integration,tests/integration)

integration-test-timing:
	@$(call pytest_allow_empty,SONDE_BIN=build/sonde $(PYTEST) -m timing \
		tests/integration,tests/integration)

python-test:
	$(PYTEST) python/tests

# The sanitized build runs the C-path tests that together reach every C line and branch outcome
# the whole of them reach (not those marked asan_covered: tests/integration/asan_covered.txt),
# and the tests whose reach gcov cannot see (signals, another user, the leak checks).
integration-test-asan:
	@$(call san_begin,integration)
	@$(call pytest_allow_empty,$(call san_env,integration,detect_leaks=0) \
		SONDE_LEAK_CHECK=$(LEAK_CHECK) SONDE_BIN=build-asan/sonde \
		$(PYTEST) -m "not once and not asan_covered" tests/integration,tests/integration)
	@$(call san_check,integration)

# The ASan leg's selection, measured (tests/asan_selection.py): the C-path tests on the ASan
# build with gcov's counters, each test's counts apart, then the list of those whose reach the
# others cover. Longer than the ASan leg; run it when the tests of sonde's C paths change much,
# and commit the list.
asan-selection:
	cmake -S . -B build-asan-coverage $(call mpi_flags,$(MPICC),$(MPIEXEC)) -DSONDE_SANITIZE=ON \
		-DSONDE_TEST_HOOKS=ON -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS=--coverage -O0" \
		-DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage >/dev/null
	cmake --build build-asan-coverage -j$(JOBS) --target sonde faultshim test_topology
	rm -rf build-asan-coverage/runs
	@$(call san_begin,coverage)
	$(call san_env,coverage,detect_leaks=0) ASAN_SELECTION_RUNS=$(CURDIR)/build-asan-coverage/runs \
		PYTHONPATH=tests SONDE_BIN=build-asan-coverage/sonde $(PYTEST) -p asan_selection \
		-m "not once" tests/integration
	@$(call san_check,coverage)
	$(PY) tests/asan_selection.py build-asan-coverage build-asan-coverage/runs \
		>tests/integration/asan_covered.txt

# The second MPI (docs/reliability.md): MPICH in build-mpich, beside Open MPI, which stays the
# default. Debian's PnetCDF is built on Open MPI, so this build leaves it out (two MPI libraries
# in one process), and the check below fails a build that links both. It keeps -Werror, as
# make install MPICC=mpicc.mpich (the README's MPICH install) does.
# The btio tests include PnetCDF methods this build has not (methods 0/1 run in test_faults and
# the fault matrix). Tests of what does not change with the build (launchers and Slurm, the suite
# runner, make install, manual pages, timings: the "once" marker, tests/integration/conftest.py)
# run in the Open MPI leg only, here and in the ASan leg. The unit tests' failures do not stop the
# integration tests.
build-mpich:
	cmake -S . -B build-mpich $(call mpi_flags,$(MPICH_CC),$(MPICH_EXEC)) -DSONDE_PNETCDF=OFF \
		-DSONDE_WERROR=ON -DSONDE_TEST_HOOKS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(ccache_flags) >/dev/null
	cmake --build build-mpich -j$(JOBS)
	@libs=$$(ldd build-mpich/sonde); if ! grep -q libmpich <<<"$$libs" || \
		grep -q 'libmpi\.so' <<<"$$libs"; then \
		echo "build-mpich/sonde must link MPICH and only MPICH:"; grep -i mpi <<<"$$libs"; \
		exit 1; fi

test-mpich: build-mpich
	rc=0; ctest --test-dir build-mpich --output-on-failure -j$(JOBS) || rc=1; \
	SONDE_BIN=$(CURDIR)/build-mpich/sonde SONDE_MPIRUN=$(MPICH_EXEC) $(PYTEST) -m "not once" \
		tests/integration --ignore=tests/integration/test_btio.py \
		--ignore=tests/integration/test_btio_input.py || rc=1; exit $$rc

# libFuzzer (tests/fuzz, clang): make test runs each target FUZZ_TIME seconds from its corpus
# (which replays every input kept there, crashes found earlier included); make fuzz runs longer.
# New inputs go to build-fuzz/corpus, crashes to build-fuzz/artifacts. make test's fuzzing has
# one budget, FUZZ_BUDGET seconds, shared out between the targets (at least 5 s each, the
# corpus's replay and a few seconds of search): a new target does not lengthen make test.
FUZZ_CC ?= clang-14
FUZZ_TARGETS = $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BUDGET ?= 50
FUZZ_TIME ?= $(shell n=$(words $(FUZZ_TARGETS)); t=$$(( $(FUZZ_BUDGET) / (n ? n : 1) )); \
	echo $$(( t > 5 ? t : 5 )))
build-fuzz:
	CC=$(FUZZ_CC) cmake -S . -B build-fuzz $(call mpi_flags,$(MPICC),$(MPIEXEC)) -DSONDE_FUZZ=ON \
		-DBUILD_TESTING=OFF -DSONDE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		$(ccache_flags) >/dev/null
	cmake --build build-fuzz -j$(JOBS)

fuzz-test: build-fuzz
	@mkdir -p build-fuzz/artifacts
	@for t in $(FUZZ_TARGETS); do mkdir -p build-fuzz/corpus/$$t; echo "fuzz: $$t, $(FUZZ_TIME) s"; \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp:print_suppressions=0 \
		build-fuzz/fuzz/$$t -max_total_time=$(FUZZ_TIME) -print_final_stats=0 \
		-artifact_prefix=build-fuzz/artifacts/$$t- build-fuzz/corpus/$$t tests/fuzz/corpus/$$t \
		2>build-fuzz/$$t.log || { tail -n 40 build-fuzz/$$t.log; exit 1; }; done

fuzz:
	$(MAKE) fuzz-test FUZZ_TIME=$${FUZZ_TIME:-600}

demo: setup-demo build
	@scripts/demo.sh

bench: setup-bench build
	$(PY) bench/run.py

# Every bench case once, small, without pauses: does it all run? (no verdicts; a few minutes)
bench-smoke: setup-bench build
	$(PY) bench/run.py --smoke

# The program, its manual pages and completion, the suites, the Python tools in a venv under
# PREFIX/lib/sonde and an Lmod module; uninstall removes exactly what install created (its
# manifest: PREFIX/share/sonde/install-manifest). README.md, "Installing on a cluster".
# It builds in build-install, without the test builds' SONDE_TEST_HOOKS and without the tests.
install:
	cmake -S . -B build-install $(call mpi_flags,$(MPICC),$(MPIEXEC)) -DSONDE_WERROR=ON \
		-DSONDE_TEST_HOOKS=OFF -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-install -j$(JOBS) --target sonde sonde_docs
	scripts/install.sh "$(PREFIX)" build-install

uninstall:
	scripts/uninstall.sh "$(PREFIX)"

clean:
	rm -rf build build-asan build-mpich build-fuzz build-install build-asan-coverage

format:
	clang-format -i $(C_SOURCES)

# Every source file names its licence (SPDX line); scripts/spdx.sh fix adds it to new files.
lint:
	scripts/spdx.sh check
	clang-format --dry-run -Werror $(C_SOURCES)
	@if [[ -x $(VENV)/bin/ruff ]]; then (cd python && ../$(VENV)/bin/ruff check --no-cache .) && \
		$(VENV)/bin/ruff check --no-cache --config python/pyproject.toml bench tests/launch_env.py tests/skip_policy.py tests/leftovers.py tests/asan_selection.py \
			tests/integration; \
	else echo "lint: ruff not in $(VENV) (make setup installs it); Python not linted"; fi
