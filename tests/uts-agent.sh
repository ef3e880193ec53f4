#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# An Open MPI rsh launcher agent that makes one machine look like several: each "host" runs in
# its own UTS namespace whose host name is that host's, so MPI sees one node per name.
#   mpirun --mca plm_rsh_agent tests/uts-agent.sh --host nodeA:2,nodeB:2 -n 4 ...
# Open MPI calls the agent as it would call ssh: [ssh options] HOST COMMAND-WORDS..., the
# words being shell text for the remote shell. Needs root (or user namespaces) for unshare.
while [ $# -gt 0 ]; do
	case "$1" in
	-[bcDEeFIiJLlmOopQRSWw]) shift 2 ;; # ssh options that take a value
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "uts-agent.sh: usage: uts-agent.sh [ssh options] HOST COMMAND..." >&2
	exit 255
fi
host=$1
shift
# The host name travels as $0 of the inner shell, never as shell text. The command is a shell
# line, as ssh runs it: an mpirun named by its absolute path sends "PATH=...; export PATH; ...
# orted ..." (its --prefix), which only a shell runs.
exec unshare --uts sh -c "hostname \"\$0\" && $*" "$host"
