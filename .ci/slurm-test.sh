#!/usr/bin/env bash
# The Slurm path of schedsim sweep, tested for real on this machine: a
# single-node Slurm (munged, slurmctld and slurmd on localhost, configured
# in a scratch directory) runs the job array that `schedsim sweep
# --emit-slurm` writes; `schedsim sweep --merge` joins its parts, and the
# merged table must be byte-identical to a local sweep of the same points.
#
# Installs Debian's slurmctld, slurmd, slurm-client and munge (without
# recommends) when missing; needs root for that and to run the daemons.
# Every wait is bounded (SLURM_TEST_TIMEOUT seconds for the array, default
# 300). The daemons it started are stopped at the end, by PID, pass or fail.
# See ../shared/notes/slurm-on-one-machine.md for why each setting is there.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
timeout=${SLURM_TEST_TIMEOUT:-300}
t0=$(date +%s)

say() { echo "slurm-test: $*"; }
fail() {
	echo "slurm-test: FAIL: $*" >&2
	exit 1
}

# --- install, only what is missing -----------------------------------------
missing=0
for c in slurmctld slurmd sbatch squeue scontrol sinfo munged munge unmunge; do
	command -v "$c" >/dev/null 2>&1 || missing=1
done
if [ "$missing" = 1 ]; then
	[ "$(id -u)" = 0 ] || fail "Slurm is not installed and installing it needs root"
	export DEBIAN_FRONTEND=noninteractive
	pkgs="slurmctld slurmd slurm-client munge"
	say "installing $pkgs"
	# apt-get update only when the package lists do not have them.
	if ! apt-get install -y -q --no-install-recommends $pkgs >/tmp/slurm-test-apt.log 2>&1; then
		say "apt-get update, then install again"
		apt-get update -q >>/tmp/slurm-test-apt.log 2>&1 || { cat /tmp/slurm-test-apt.log; fail "apt-get update"; }
		apt-get install -y -q --no-install-recommends $pkgs >>/tmp/slurm-test-apt.log 2>&1 || { cat /tmp/slurm-test-apt.log; fail "apt-get install $pkgs"; }
	fi
	say "installed in $(($(date +%s) - t0)) s"
else
	say "Slurm and munge already installed"
fi
[ "$(id -u)" = 0 ] || fail "running slurmctld and slurmd on localhost needs root"

# --- scratch directory and configuration ------------------------------------
scratch=$(mktemp -d /tmp/schedsim-slurm.XXXXXX)
mkdir -p "$scratch/state" "$scratch/spool" "$scratch/work"
export SLURM_CONF=$scratch/slurm.conf
cpus=$(nproc)
mem_mb=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024 / 2))
[ "$mem_mb" -ge 1 ] || mem_mb=1
cat >"$SLURM_CONF" <<EOF
ClusterName=schedsimci
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/slurmctld.log
SlurmdLogFile=$scratch/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MailProg=/bin/true
SchedulerParameters=batch_sched_delay=0
NodeName=localhost CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$scratch/cgroup.conf" <<EOF
CgroupPlugin=autodetect
IgnoreSystemd=yes
EOF
say "$(slurmctld -V), $(munged --version 2>&1 | head -n 1); scratch directory $scratch"

# --- daemons, stopped by PID on exit -----------------------------------------
munged_pid=""
ok=0
wait_gone() { # PID SECONDS: wait until the process is gone
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
cleanup() {
	set +e
	local pids=""
	for f in "$scratch/slurmctld.pid" "$scratch/slurmd.pid"; do
		[ -s "$f" ] && pids="$pids $(cat "$f")"
	done
	if [ -n "$pids" ]; then
		scontrol shutdown >/dev/null 2>&1
		for p in $pids; do
			if ! wait_gone "$p" 20; then
				say "PID $p still running 20 s after scontrol shutdown: SIGTERM"
				kill "$p" 2>/dev/null
				wait_gone "$p" 5 || kill -9 "$p" 2>/dev/null
			fi
		done
		say "slurmctld and slurmd stopped (PIDs$pids)"
	fi
	if [ -n "$munged_pid" ]; then
		kill "$munged_pid" 2>/dev/null
		wait_gone "$munged_pid" 10 || kill -9 "$munged_pid" 2>/dev/null
		say "munged stopped (PID $munged_pid)"
	fi
	if [ "$ok" = 1 ]; then
		rm -rf "$scratch"
	else
		for f in slurmctld.log slurmd.log; do
			[ -f "$scratch/$f" ] && { echo "--- last lines of $f"; tail -n 30 "$scratch/$f"; }
		done
		echo "slurm-test: scratch directory kept: $scratch"
	fi
}
trap cleanup EXIT

if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	say "munged already running: using it"
else
	install -d -o munge -g munge -m 0755 /run/munge
	key=/etc/munge/munge.key
	if [ ! -s "$key" ]; then
		install -d -o munge -g munge -m 0700 /etc/munge
		if command -v mungekey >/dev/null 2>&1; then
			mungekey --create --keyfile="$key"
		else
			dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
		fi
	fi
	chown munge:munge "$key"
	chmod 0400 "$key"
	rm -f /run/munge/munged.pid
	runuser -u munge -- munged
	for ((i = 0; i < 50; i++)); do
		[ -s /run/munge/munged.pid ] && munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
	munged_pid=$(cat /run/munge/munged.pid 2>/dev/null || true)
	[ -n "$munged_pid" ] || fail "munged did not start"
	say "munged started (PID $munged_pid)"
fi

slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N localhost
state=""
for ((i = 0; i < 300; i++)); do
	state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
	[ "$state" = idle ] && break
	sleep 0.1
done
[ "$state" = idle ] || fail "node localhost is '$state', not idle, 30 s after starting slurmctld and slurmd"
say "slurmctld (PID $(cat "$scratch/slurmctld.pid")) and slurmd (PID $(cat "$scratch/slurmd.pid")) up; node localhost idle with $cpus CPUs, ${mem_mb} MB"

# --- the sweep ------------------------------------------------------------------
say "building schedsim"
go build -o "$scratch/schedsim" ./cmd/schedsim
ss=$scratch/schedsim
cd "$scratch/work"
"$ss" generate --jobs 2000 --procs 64 --load 0.9 --seed 11 --out t.swf.gz 2>&1
grid=(--trace t.swf.gz --param lookahead=1,10,100,all --param order=fcfs,sjf)
"$ss" sweep "${grid[@]}" --emit-slurm "$scratch/array" --chunk 1 --array-limit 2
grep '^#SBATCH' "$scratch/array/sweep.sbatch"

ts=$(date +%s)
jobid=$(sbatch --parsable "$scratch/array/sweep.sbatch")
jobid=${jobid%%;*}
say "submitted array job $jobid"
seen_running=0
for ((i = 0; ; i++)); do
	q=$(squeue -h -j "$jobid" -o '%i %T %R' 2>/dev/null || true)
	[ -z "$q" ] && break
	if [ "$seen_running" = 0 ] && grep -q RUNNING <<<"$q"; then
		seen_running=1
		echo "squeue while the array runs:"
		sed 's/^/  /' <<<"$q"
	fi
	[ $(($(date +%s) - ts)) -lt "$timeout" ] || fail "array job $jobid not done after $timeout s: $q"
	sleep 0.2
done
say "array job $jobid left the queue after $(($(date +%s) - ts)) s"

echo "scontrol show job $jobid (one record per array task):"
scontrol -o show job "$jobid" | tr ' ' '\n' | grep -E '^(JobId|ArrayJobId|ArrayTaskId|JobState|ExitCode|NodeList|BatchHost|RunTime)=' | paste -sd ' ' | sed 's/ JobId=/\nJobId=/g' | sed 's/^/  /' || true
done_tasks=$(scontrol -o show job "$jobid" | grep -c 'JobState=COMPLETED.*ExitCode=0:0' || true)
say "$done_tasks of 8 array tasks COMPLETED with exit code 0 (from scontrol)"
[ "$done_tasks" = 8 ] || fail "want 8 completed tasks"
echo "first line of each task's output (written by the task under Slurm):"
for f in "$scratch"/array/logs/task-*.out; do
	echo "  $(basename "$f"): $(head -n 1 "$f")"
done

"$ss" sweep --merge "$scratch/array" --plots=false
"$ss" sweep "${grid[@]}" --out "$scratch/local" -q --plots=false
for f in sweep.csv sweep.parquet; do
	cmp "$scratch/array/$f" "$scratch/local/$f" || fail "merged $f differs from the local sweep's"
	say "merged $f is identical to the local sweep's ($(wc -c <"$scratch/local/$f") bytes)"
done
ok=1
say "PASS in $(($(date +%s) - t0)) s"
