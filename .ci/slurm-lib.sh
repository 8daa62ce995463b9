# Helpers for the scripts that run a real Slurm on localhost (sourced by
# .ci/slurm-test.sh and .ci/slurm-backfill-check.sh). Each caller defines
# say and fail first. See ../shared/notes/slurm-on-one-machine.md for why
# each step is there.

# slurm_install: installs Debian's slurmctld, slurmd, slurm-client and munge
# (without recommends) when a command is missing; apt-get update only when
# the package lists do not have them. Needs root to install.
slurm_install() {
	local c missing=0 t0
	t0=$(date +%s)
	for c in slurmctld slurmd sbatch squeue scontrol sinfo munged munge unmunge; do
		command -v "$c" >/dev/null 2>&1 || missing=1
	done
	if [ "$missing" = 0 ]; then
		say "Slurm and munge already installed"
		return 0
	fi
	[ "$(id -u)" = 0 ] || fail "Slurm is not installed and installing it needs root"
	export DEBIAN_FRONTEND=noninteractive
	local pkgs="slurmctld slurmd slurm-client munge" log=/tmp/slurm-apt.$$.log
	say "installing $pkgs"
	if ! apt-get install -y -q --no-install-recommends $pkgs >"$log" 2>&1; then
		say "apt-get update, then install again"
		apt-get update -q >>"$log" 2>&1 || { cat "$log"; fail "apt-get update"; }
		apt-get install -y -q --no-install-recommends $pkgs >>"$log" 2>&1 || { cat "$log"; fail "apt-get install $pkgs"; }
	fi
	rm -f "$log"
	say "installed in $(($(date +%s) - t0)) s"
}

# slurm_wait_gone PID SECONDS: waits (bounded) until the process is gone;
# returns 1 if it is still there.
slurm_wait_gone() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# slurm_start_munged: uses a running munged, or starts one as the munge
# user (creating /run/munge and the key when missing). Sets munged_pid to
# the PID of a munged it started ("" when it found one running).
slurm_start_munged() {
	munged_pid=""
	if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		say "munged already running: using it"
		return 0
	fi
	install -d -o munge -g munge -m 0755 /run/munge
	local key=/etc/munge/munge.key i
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
	runuser -u munge -- munged || fail "munged did not start (runuser -u munge -- munged)"
	for ((i = 0; i < 50; i++)); do
		[ -s /run/munge/munged.pid ] && munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
	munged_pid=$(cat /run/munge/munged.pid 2>/dev/null || true)
	[ -n "$munged_pid" ] || fail "munged did not start"
	say "munged started (PID $munged_pid)"
}

# slurm_stop PIDFILE...: stops the Slurm daemons whose PID files are given
# (scontrol shutdown, then SIGTERM and SIGKILL to the ones still there after
# 20 s), then the munged slurm_start_munged started. Never by name.
slurm_stop() {
	local f pids="" p
	for f in "$@"; do
		[ -s "$f" ] && pids="$pids $(cat "$f")"
	done
	if [ -n "$pids" ]; then
		scontrol shutdown >/dev/null 2>&1
		for p in $pids; do
			if ! slurm_wait_gone "$p" 20; then
				say "PID $p still running 20 s after scontrol shutdown: SIGTERM"
				kill "$p" 2>/dev/null
				slurm_wait_gone "$p" 5 || kill -9 "$p" 2>/dev/null
			fi
		done
		say "Slurm daemons stopped (PIDs$pids)"
	fi
	if [ -n "${munged_pid:-}" ]; then
		kill "$munged_pid" 2>/dev/null
		slurm_wait_gone "$munged_pid" 10 || kill -9 "$munged_pid" 2>/dev/null
		say "munged stopped (PID $munged_pid)"
		munged_pid=""
	fi
}

# slurm_common_conf SCRATCH: prints the slurm.conf lines every local run
# shares (paths in SCRATCH, no accounting, no cgroups); the caller adds
# ports, nodes, partitions and scheduling. Writes SCRATCH/cgroup.conf.
slurm_common_conf() {
	cat >"$1/cgroup.conf" <<EOC
CgroupPlugin=autodetect
IgnoreSystemd=yes
EOC
	cat <<EOC
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$1/state
SlurmctldPidFile=$1/slurmctld.pid
SlurmctldLogFile=$1/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MailProg=/bin/true
EOC
}
