#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make uninstall PREFIX=P: removes exactly what make install put into P, as its manifest
# P/share/sonde/install-manifest lists it (scripts/install.sh): the files, the Python venv, and
# the directories the install created, each only when nothing else is left in it.
#
#   scripts/uninstall.sh PREFIX
set -euo pipefail
if (($# != 1)); then
	echo "usage: scripts/uninstall.sh PREFIX" >&2
	exit 2
fi
prefix=$(realpath -m -- "$1")
manifest=$prefix/share/sonde/install-manifest
if [[ ! -f $manifest ]]; then
	echo "uninstall: no sonde installed in $prefix ($manifest is missing)" >&2
	exit 1
fi

files=() dirs=()
while read -r kind path; do
	# Every entry stays inside the prefix; only a directory may be the prefix or above it
	# (created for it), and a directory is only ever removed when empty.
	inside=1
	[[ $path != /* && /$path/ != */../* && /$path/ != */./* && -n $path ]] || inside=0
	case $kind in
	file | tree) ((inside)) || { echo "uninstall: $manifest: bad entry: $kind $path" >&2; exit 1; } ;;
	dir) [[ $inside == 1 || $path =~ ^(\.|\.\.(/\.\.)*)$ ]] ||
		{ echo "uninstall: $manifest: bad entry: $kind $path" >&2; exit 1; } ;;
	*) echo "uninstall: $manifest: bad entry: $kind $path" >&2; exit 1 ;;
	esac
	if [[ $kind == dir ]]; then
		dirs+=("$path")
	else
		files+=("$kind $path")
	fi
done <"$manifest"

for entry in "${files[@]}"; do
	kind=${entry%% *} path=${entry#* }
	if [[ $kind == tree ]]; then
		rm -rf -- "${prefix:?}/$path"
	else
		rm -f -- "$prefix/$path"
	fi
done
# Deepest first: a directory's own directories go before it, the prefix and those above it
# last ("." before "..").
mapfile -t dirs < <(for d in "${dirs[@]}"; do
	depth=$(tr -cd / <<<"$d" | wc -c)
	case $d in .) depth=-1 ;; ..*) depth=$((-2 - depth)) ;; esac
	printf '%d\t%s\n' "$depth" "$d"
done | sort -rn | cut -f2-)
kept=()
for d in "${dirs[@]}"; do
	target=$prefix/$d
	if [[ $d == . ]]; then
		target=$prefix
	elif [[ $d == ..* ]]; then # a directory above the prefix: one dirname per ".."
		target=$prefix rest=$d
		while [[ -n $rest ]]; do
			target=$(dirname "$target") rest=${rest#..}
			rest=${rest#/}
		done
	fi
	rmdir -- "$target" 2>/dev/null || { [[ ! -e $target ]] || kept+=("$target"); }
done
echo "uninstall: removed sonde from $prefix"
if ((${#kept[@]})); then
	echo "uninstall: kept, since they hold files sonde did not install: ${kept[*]}"
fi
