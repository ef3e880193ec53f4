#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The legs of make test, timed: each prints its wall time and CPU time when it ends, and make
# test ends with the table of them all (docs/reliability.md, "Where make test's time goes").
#
#   scripts/legs.sh start               a new table (build/leg-times)
#   scripts/legs.sh run NAME CMD...     runs CMD, prints and records NAME's times, exits as CMD
#   scripts/legs.sh summary             the table, and the wall time since start
#
# CPU time is user + system of CMD and every process it waited for (the ranks under mpirun
# included): set beside the wall time it says how much of the 2 cores a leg keeps busy, which is
# what decides how many legs can run at once (TEST_JOBS).
set -uo pipefail
cd "$(dirname "$0")/.."
table=build/leg-times

case ${1:-} in
start)
	mkdir -p build
	echo "start $EPOCHSECONDS" >"$table" ;;
run)
	name=$2
	shift 2
	start=$EPOCHREALTIME
	"$@"
	rc=$?
	wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
	# bash's times, run in this shell (in a pipe it would time a subshell): this shell's
	# line, then its children's user and system time, as XmY.YYYs
	times >"$table.$name"
	cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, t, "m");
		n += t[1] * 60 + t[2] } printf "%.0f", n }' "$table.$name")
	rm -f "$table.$name"
	echo "leg $name: $wall s wall, $cpu s CPU, exit $rc"
	echo "$name $wall $cpu $rc" >>"$table"
	exit "$rc" ;;
summary)
	[[ -f $table ]] || { echo "legs: no $table (scripts/legs.sh start)"; exit 1; }
	echo "make test, leg by leg (wall and CPU seconds; the legs between the builds and the"
	echo "Python tests run side by side, TEST_JOBS at a time):"
	awk -v now="$EPOCHSECONDS" '$1 == "start" { t0 = $2; next }
		{ printf "  %-26s %6d s %6d s CPU%s\n", $1, $2, $3, $4 ? "  FAILED (exit " $4 ")" : "" }
		END { if (t0) printf "  %-26s %6d s\n", "total", now - t0 }' "$table" ;;
*)
	echo "usage: scripts/legs.sh start | run NAME CMD... | summary" >&2
	exit 2 ;;
esac
