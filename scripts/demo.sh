#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make demo: runs every workload that build/sonde has, small, on 2 ranks (BTIO: 4, it needs a
# square count) on a scratch directory under /tmp, printing their tables and appending JSON Lines
# results to a run directory under results/. When sonde-suite can run suites/quick.toml (the
# same command lines), the demo is that suite; then sonde-report makes the report.
set -euo pipefail
cd "$(dirname "$0")/.."

SONDE=${SONDE_BIN:-build/sonde}
# The launcher of the MPI sonde is built with (sonde --version names it), not whichever mpirun
# the system's alternatives select.
MPIRUN=${SONDE_MPIRUN:-$("$SONDE" --version | sed -n 's/^Launcher: //p')}
MPIRUN=${MPIRUN:-mpirun}
VENV=.venv
run_dir=${SONDE_DEMO_OUT:-results/demo-$(date -u +%Y-%m-%dT%H-%M-%S)}
mkdir -p "$run_dir"
run_dir=$(cd "$run_dir" && pwd)

# The launch settings the tests use (tests/launch.env says why each is set); a variable the
# user has set already keeps its value.
while IFS='=' read -r key value; do
	if [[ $key =~ ^[A-Za-z_][A-Za-z0-9_]*$ && ! -v $key ]]; then export "$key=$value"; fi
done <tests/launch.env

scratch=$(mktemp -d /tmp/sonde-demo.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# The workloads this binary has: the indented lines after "Workloads:" in sonde --help.
mapfile -t workloads < <("$SONDE" --help |
	awk '/Workloads:$/ {on = 1; next} on && !/^  / {exit} on {print $1}')

launch() { # ranks workload args...
	local np=$1 wl=$2
	shift 2
	echo
	echo "=== $wl on $np ranks: $MPIRUN -n $np sonde $wl $*"
	"$MPIRUN" -n "$np" "$SONDE" "$wl" "$@" --json "$run_dir/$wl.jsonl"
}

# The same small command lines as suites/quick.toml.
demo_ior() {
	mkdir -p "$scratch/ior"
	launch 2 ior -a POSIX -F -C -Q 1 -g -i 2 -w -r -W -R -t 1m -b 16m -s 1 \
		-o "$scratch/ior/testFile"
}

demo_mib() {
	mkdir -p "$scratch/mib"
	launch 2 mib -F -t "$scratch/mib" -l 64 -L 10 -s 512k -H -I --verify
}

demo_btio() {
	mkdir -p "$scratch/btio"
	launch 4 btio --mode rw --method 1 --dumps 2 --grid 16x16x16 --dir "$scratch/btio"
}

demo_mpiio() {
	mkdir -p "$scratch/mpiio"
	launch 2 mpiio -type 2 -nobj 16 -size 64K -touch 3 -chkdata 3 -deletefile \
		-target "$scratch/mpiio/shared.out"
}

demo_mdtest() {
	launch 2 mdtest -n 200 -u -i 2 -w 3901 -e 3901 -X -G 5 -P -d "$scratch/mdtest"
}

demo_find() {
	launch 2 find "$scratch" -name '*' -C -D rates
}

demo_train() {
	mkdir -p "$scratch/train"
	launch 2 train -d "$scratch/train" --generate --train --num-files 32 --record-size 256k \
		--batch-size 4 --read-threads 2 --compute-time 0.005 --epochs 2 --sample-shuffle seed \
		--verify
}

demo_coll() {
	launch 2 coll -b 0 -e 64K -i 100 -c Barrier Bcast Alltoall Allreduce
}

failed=()
if [[ -f suites/quick.toml && -x $VENV/bin/sonde-suite ]] &&
	"$VENV/bin/sonde-suite" run suites/quick.toml --sonde "$SONDE" --dry-run >/dev/null 2>&1
then
	"$VENV/bin/sonde-suite" run suites/quick.toml --sonde "$SONDE" --out "$run_dir" --show-output ||
		failed+=(sonde-suite)
else
	for wl in "${workloads[@]}"; do
		if [[ $(type -t "demo_$wl") != function ]]; then
			echo "demo: no demo command line for workload $wl yet (add one to scripts/demo.sh)"
			continue
		fi
		"demo_$wl" || failed+=("$wl")
	done
fi

echo
if ((${#workloads[@]} == 0)); then
	echo "demo: $SONDE has no workloads yet"
elif [[ -x $VENV/bin/python ]]; then
	# The results as the Python side reads them: proves the files load and validate.
	"$VENV/bin/python" - "$run_dir" <<'PY'
import sys
from collections import Counter

from sonde.results import load

runs = load(sys.argv[1], validate=True)
count = Counter()
for run in runs:
    count[run.workload] += len(run.measurements)
print(f"results: {len(runs)} runs, {sum(count.values())} measurements in {sys.argv[1]}")
for workload, n in sorted(count.items()):
    print(f"  {workload:8s} {n} measurements")
PY
fi
if [[ -x $VENV/bin/sonde-report ]] && ((${#workloads[@]})); then
	# One HTML file that works offline (open it in a browser), the PNGs in report-figures/.
	if "$VENV/bin/sonde-report" "$run_dir" -o "$run_dir/report.html"; then
		echo "report: $run_dir/report.html"
	else
		failed+=(sonde-report)
	fi
fi
if ((${#failed[@]})); then
	echo "demo: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "demo: done"
