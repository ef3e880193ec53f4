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
C_SOURCES = $(shell find src tests bench -name '*.[ch]' 2>/dev/null | sort)
SAN_LOGS := $(CURDIR)/build-asan/sanitizer-logs
# Sanitizer reports go to files as well as failing the process, so that an error in a run that a
# test expected to fail anyway (exit code checked only for non-zero) is still caught: each
# sanitized suite fails when its log directory is not empty afterwards. Leaks are checked, with
# Open MPI's own (it frees little of what MPI_Init allocates) suppressed by tests/lsan.supp.
san_env = ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:halt_on_error=1:abort_on_error=1:log_path=$(SAN_LOGS)/$(1)/asan \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(SAN_LOGS)/$(1)/ubsan
san_begin = rm -rf $(SAN_LOGS)/$(1) && mkdir -p $(SAN_LOGS)/$(1)
san_check = if compgen -G "$(SAN_LOGS)/$(1)/*" >/dev/null; then head -n 60 $(SAN_LOGS)/$(1)/*; \
	echo "sanitizer errors in the $(1) tests (logs in $(SAN_LOGS)/$(1))"; exit 1; fi
# pytest exits 5 when it collected no test (no workload has integration tests yet): not a failure.
pytest_allow_empty = rc=0; $(1) || rc=$$?; \
	if ((rc == 5)); then echo "no tests collected in $(2)"; rc=0; fi; exit $$rc

.PHONY: all setup build build-asan test unit-test unit-test-asan integration-test integration-test-asan \
	python-test demo bench install clean format lint

all: build

setup:
	@scripts/setup.sh

build:
	cmake -S . -B build -DSONDE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build -j$(JOBS)

build-asan:
	cmake -S . -B build-asan -DSONDE_SANITIZE=ON -DSONDE_WERROR=ON \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-asan -j$(JOBS)

test: setup
	$(MAKE) build build-asan
	$(MAKE) -k unit-test unit-test-asan integration-test \
		integration-test-asan python-test

unit-test:
	ctest --test-dir build --output-on-failure -j$(JOBS)

unit-test-asan:
	@$(call san_begin,unit)
	$(call san_env,unit) ctest --test-dir build-asan --output-on-failure -j$(JOBS)
	@$(call san_check,unit)

integration-test:
	@$(call pytest_allow_empty,SONDE_BIN=build/sonde $(PYTEST) tests/integration,tests/integration)

integration-test-asan:
	@$(call san_begin,integration)
	@$(call pytest_allow_empty,$(call san_env,integration) SONDE_BIN=build-asan/sonde \
		$(PYTEST) tests/integration,tests/integration)
	@$(call san_check,integration)

python-test:
	$(PYTEST) python/tests

demo: setup build
	@scripts/demo.sh

bench: setup build
	$(PY) bench/run.py

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-asan

format:
	clang-format -i $(C_SOURCES)

lint:
	clang-format --dry-run -Werror $(C_SOURCES)
	@if [[ -x $(VENV)/bin/ruff ]]; then $(VENV)/bin/ruff check python bench tests/integration; \
	else echo "lint: ruff not in $(VENV) (make setup installs it); Python not linted"; fi
