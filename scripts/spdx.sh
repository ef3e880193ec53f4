#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every source file names its licence with an SPDX line in its first lines (make lint checks):
#
#   scripts/spdx.sh [check] [DIR]   lists the files of DIR (default: the checkout) without it;
#                                   exit status 1 when there is one
#   scripts/spdx.sh fix [DIR]       adds the line where it is missing, in the file's comments
#
# Source files: C (.c, .h, .c.in), Python, shell (.sh, and any file starting with #!), CMake
# (CMakeLists.txt, .cmake), Makefiles, TOML, .clang-format and the report's Jinja templates.
# Test inputs, fixtures, JSON and Markdown are data and documents, and carry none. In a git
# checkout the files are the tracked ones and the new ones git does not ignore.
set -euo pipefail
id="SPDX-License-Identifier: BSD-3-Clause"
mode=check
if [[ ${1:-} == check || ${1:-} == fix ]]; then
	mode=$1
	shift
fi
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$dir"

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard
	else
		find . -type f -not -path './.git/*' -printf '%P\0'
	fi
}

# The comment that carries the line in file $1, or nothing for a file that needs none.
comment_for() {
	case $1 in
	tests/fuzz/corpus/* | tests/integration/fixtures/*.txt | */.gitkeep) return ;;
	*.c | *.h | *.c.in) echo "/* $id */" ;;
	*.py | *.sh | *.cmake | *.toml | .clang-format) echo "# $id" ;;
	CMakeLists.txt | */CMakeLists.txt | Makefile | */Makefile) echo "# $id" ;;
	*/templates/*.html) echo "{# $id -#}" ;; # the '-' keeps the page's first line its own
	*) [[ $(head -c 2 "$1") != '#!' ]] || echo "# $id" ;;
	esac
}

missing=()
while IFS= read -r -d '' f; do
	[[ -f $f ]] || continue # a tracked file deleted in the work tree
	line=$(comment_for "$f")
	[[ -n $line ]] || continue
	head -n 3 "$f" | grep -qF "$id" && continue
	if [[ $mode == check ]]; then
		missing+=("$f")
		continue
	fi
	# after a #! line, else first
	if [[ $(head -c 2 "$f") == '#!' ]]; then
		{ head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$f.spdx"
	else
		{ echo "$line"; cat "$f"; } >"$f.spdx"
	fi
	chmod --reference="$f" "$f.spdx"
	mv "$f.spdx" "$f"
	echo "spdx: added to $f"
done < <(files)

if ((${#missing[@]})); then
	echo "spdx: these files do not name their licence in their first lines" \
		"(\"$id\"; scripts/spdx.sh fix adds it):" >&2
	printf '  %s\n' "${missing[@]}" >&2
	exit 1
fi
