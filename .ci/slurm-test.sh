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
. .ci/slurm-lib.sh
slurm_install
[ "$(id -u)" = 0 ] || fail "running slurmctld and slurmd on localhost needs root"

# --- scratch directory and configuration ------------------------------------
scratch=$(mktemp -d /tmp/schedsim-slurm.XXXXXX)
mkdir -p "$scratch/state" "$scratch/spool" "$scratch/work"
export SLURM_CONF=$scratch/slurm.conf
cpus=$(nproc)
mem_mb=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024 / 2))
[ "$mem_mb" -ge 1 ] || mem_mb=1
{
	echo "ClusterName=schedsimci"
	slurm_common_conf "$scratch"
	cat <<EOF
SlurmctldPort=16817
SlurmdPort=16818
SlurmdSpoolDir=$scratch/spool
SlurmdPidFile=$scratch/slurmd.pid
SlurmdLogFile=$scratch/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
NodeName=localhost CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
} >"$SLURM_CONF"
say "$(slurmctld -V), $(munged --version 2>&1 | head -n 1); scratch directory $scratch"

# --- daemons, stopped by PID on exit -----------------------------------------
munged_pid=""
ok=0
cleanup() {
	set +e
	slurm_stop "$scratch/slurmctld.pid" "$scratch/slurmd.pid"
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

slurm_start_munged

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
