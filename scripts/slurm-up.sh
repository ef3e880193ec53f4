#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Brings up a one-node Slurm cluster on this machine (localhost), idempotently, for the tests
# and for trying sonde under srun. Needs root and Debian's slurmctld, slurmd, slurm-client and
# munge (scripts/setup.sh installs them). `scripts/slurm-up.sh down` stops the daemons.
# Prints "slurm: ready" when a job can run; exits non-zero with the reason otherwise.
set -euo pipefail

conf_dir=/etc/slurm
conf=$conf_dir/slurm.conf

stop() {
	pkill -x slurmd 2>/dev/null || true
	pkill -x slurmctld 2>/dev/null || true
}

if [ "${1:-}" = down ]; then
	stop
	echo "slurm: stopped"
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "slurm: needs root (SlurmUser=root, munge key)" >&2; exit 1; }
for b in slurmctld slurmd srun sinfo munged; do
	command -v "$b" >/dev/null || { echo "slurm: $b is not installed" >&2; exit 1; }
done

host=$(hostname -s)
cpus=$(nproc)
# Leave the system some memory; Slurm refuses a node whose RealMemory exceeds what it sees.
mem_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))

# munge: a generated key, munged run as the munge user.
if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
	runuser -u munge -- /usr/sbin/munged --force
	for _ in $(seq 50); do
		munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
fi

mkdir -p "$conf_dir" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
wanted=$(cat <<CONF
# Written by sonde's scripts/slurm-up.sh: a one-node cluster on localhost.
ClusterName=sonde
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
KillWait=10
InactiveLimit=0
MinJobAge=60
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
)
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$wanted" ]; then
	printf '%s\n' "$wanted" >"$conf"
	stop
fi

pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd

for _ in $(seq 100); do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	case "$state" in
	idle* | mixed* | allocated*)
		echo "slurm: ready ($host, $cpus CPUs, partition debug)"
		exit 0
		;;
	down* | drain*)
		scontrol update nodename="$host" state=resume 2>/dev/null || true
		;;
	esac
	sleep 0.2
done
echo "slurm: the node did not become idle (state: ${state:-unknown}); see /var/log/slurm/" >&2
exit 1
