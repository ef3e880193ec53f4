#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages sonde needs and creates the Python venv (.venv), for one purpose:
#
#   scripts/setup.sh demo    building sonde and make demo: compiler, CMake, Open MPI, PnetCDF,
#                            Python (the venv without the test tools)
#   scripts/setup.sh bench   the same and fio, for make bench
#   scripts/setup.sh [test]  everything make test uses (make setup): also MPICH, clang and
#                            clang-format, Slurm and munge, Chromium, netcdf-bin, parallel
#                            HDF5 and its tools, man-db, Lmod, bash-completion, fio, strace;
#                            the venv with pytest and ruff
#
# Idempotent and quick when everything is there: apt runs only for missing packages, pip only
# when python/pyproject.toml changed since the last install. It installs packages and changes
# nothing else on the machine: the system's MPI alternatives (mpicc, mpirun) stay as they are,
# since every build and test names its MPI by explicit paths (the Makefile's MPICC, MPIEXEC).
set -euo pipefail
cd "$(dirname "$0")/.."

purpose=${1:-test}
base=(build-essential cmake pkg-config git libopenmpi-dev openmpi-bin libpnetcdf-dev python3
      python3-venv python3-pip)
case $purpose in
demo)
	packages=("${base[@]}") extras="" ;;
bench)
	packages=("${base[@]}" fio) extras="" ;;
test)
	# MPICH: make test-mpich; clang: make fuzz-test; Slurm: test_slurm.py; Chromium and its
	# fonts: the report's browser test; netcdf-bin: ncdump in the BTIO tests;
	# libhdf5-openmpi-dev and hdf5-tools: ior -a HDF5 and h5dump in its tests; man-db: the
	# generated manual pages checked with man --warnings; Lmod and bash-completion: the
	# installed module and completion (test_install.py); fio: the bench harness's smoke run
	# (test_bench.py); ccache: make test's builds share their objects (Makefile, CCACHE);
	# strace: the tests whose oracle is the system calls (test_ior_fsync.py, test_inputs.py,
	# test_ior_mmap.py, test_ior_random_blocks.py, test_mdtest.py, test_mib.py), which skip
	# without it (an unexpected skip under CI=true).
	packages=("${base[@]}" fio ccache clang-format libmpich-dev mpich clang-14 libclang-rt-14-dev
	          slurmctld slurmd slurm-client munge chromium fonts-dejavu-core netcdf-bin
	          libhdf5-openmpi-dev hdf5-tools man-db groff-base lmod bash-completion strace)
	extras="[test]" ;;
*)
	echo "usage: scripts/setup.sh [demo|bench|test]" >&2
	exit 2 ;;
esac

if command -v dpkg-query >/dev/null; then
	missing=()
	for p in "${packages[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || missing+=("$p")
	done
	if ((${#missing[@]})); then
		sudo=()
		if ((EUID != 0)); then
			sudo=(sudo)
		fi
		echo "setup: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		"${sudo[@]}" apt-get update -q
		"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
	else
		echo "setup: system packages for $purpose present"
	fi
else
	echo "setup: not a Debian system: install by hand: ${packages[*]}"
fi

# The venv uses the distribution's Python where there is one, so that a fresh Debian works
# whatever else is on PATH.
python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
if [[ ! -x .venv/bin/python ]]; then
	echo "setup: creating .venv with $python"
	"$python" -m venv .venv
fi
# One stamp per set of extras: the test venv also serves demo and bench.
stamp=.venv/.sonde-pyproject$extras
if [[ -f $stamp ]] && cmp -s python/pyproject.toml "$stamp"; then
	echo "setup: python package up to date in .venv"
else
	echo "setup: installing the python package into .venv (pip install -e python$extras)"
	.venv/bin/python -m pip install -q --disable-pip-version-check -e "python$extras"
	cp python/pyproject.toml "$stamp"
	[[ -z $extras ]] || cp python/pyproject.toml .venv/.sonde-pyproject
fi
