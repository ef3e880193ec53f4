#!/usr/bin/env bash
# Installs what sonde needs on Debian and creates the Python venv (.venv). Idempotent and quick
# when everything is there: apt runs only for missing packages, pip only when
# python/pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config git libopenmpi-dev openmpi-bin libpnetcdf-dev
          pnetcdf-bin netcdf-bin fio clang-format python3 python3-venv python3-pip
          libmpich-dev mpich clang-14 libclang-rt-14-dev
          slurmctld slurmd slurm-client munge chromium fonts-dejavu-core)

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
		echo "setup: system packages present"
	fi
else
	echo "setup: not a Debian system: install by hand: ${packages[*]}"
fi

# MPICH is the second MPI (make test-mpich, docs/reliability.md); Open MPI stays the default
# mpicc/mpirun/mpiexec whatever the alternatives' priorities say.
if command -v update-alternatives >/dev/null; then
	as_root=()
	((EUID == 0)) || as_root=(sudo)
	for pair in mpi:/usr/bin/mpicc.openmpi mpirun:/usr/bin/mpirun.openmpi \
	            mpi-x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu/openmpi/include; do
		name=${pair%%:*} want=${pair#*:}
		now=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')
		if [[ -e $want && -n $now && $now != "$want" ]]; then
			echo "setup: $name back to Open MPI ($want)"
			"${as_root[@]}" update-alternatives --set "$name" "$want"
		fi
	done
fi

# The venv uses the distribution's Python where there is one, so that a fresh Debian works
# whatever else is on PATH.
python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
if [[ ! -x .venv/bin/python ]]; then
	echo "setup: creating .venv with $python"
	"$python" -m venv .venv
fi
stamp=.venv/.sonde-pyproject
if [[ -f $stamp ]] && cmp -s python/pyproject.toml "$stamp"; then
	echo "setup: python package up to date in .venv"
else
	echo "setup: installing the python package into .venv (pip install -e python[test])"
	.venv/bin/python -m pip install -q --disable-pip-version-check -e 'python[test]'
	cp python/pyproject.toml "$stamp"
fi
