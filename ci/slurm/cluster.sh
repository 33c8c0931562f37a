#!/usr/bin/env bash
# A single-node Slurm cluster in one folder, for CI and for trying a night on one machine
# (docs/nightly.md, "On a cluster"): munged with its own key and socket, slurmctld and slurmd
# with their state, spool, logs and pid files under DIR, ports chosen free. No systemd and no
# cgroups: processes are tracked by process group (proctrack/pgid), tasks are not bound
# (task/none), CPUs are the consumable resource (cons_tres, CR_Core).
#
#   ci/slurm/cluster.sh start DIR [--cpus N] [--requeue-delay S]
#       starts it and prints `export SLURM_CONF=DIR/slurm.conf`, which every client (sbatch,
#       squeue, scontrol) needs. --cpus: the node's CPUs (default nproc); --requeue-delay: how
#       long a requeued job waits before it may start again (default 120 s, Slurm's; it is the
#       lifetime of a job step's credential, AuthInfo cred_expire);
#   ci/slurm/cluster.sh stop DIR
#       cancels its jobs, then stops its daemons by their pid files (SIGTERM, SIGKILL after
#       15 s); safe to call twice and on a half-started cluster.
#
# Runs as root (the daemons as root, munged as the munge user, which munged wants); needs the
# Debian packages slurmctld, slurmd, slurm-client and munge (ci/slurm.sh installs them).
set -euo pipefail

die() { echo "ci/slurm/cluster.sh: $*" >&2; exit 2; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

write_conf() {  # DIR CPUS REQUEUE_DELAY NODE CTLD_PORT SLURMD_PORT
  local dir=$1 cpus=$2 delay=$3 node=$4 host
  # slurmctld runs only where SlurmctldHost names the host; its address needs no name lookup.
  host=$(hostname -s)
  cat >"$dir/slurm.conf" <<CONF
# Written by ci/slurm/cluster.sh: a single-node cluster under $dir.
ClusterName=cvmcheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$5
SlurmdPort=$6
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=$delay
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/pids/slurmctld.pid
SlurmdPidFile=$dir/pids/slurmd.pid
SlurmctldLogFile=$dir/logs/slurmctld.log
SlurmdLogFile=$dir/logs/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
MpiDefault=none
ReturnToService=2
JobRequeue=1
KillWait=30
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=night Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

as_munge() { setpriv --reuid=munge --regid=munge --init-groups -- "$@"; }

start_munge() {  # DIR
  local dir=$1
  getent passwd munge >/dev/null || die "no munge user (apt-get install munge)"
  as_munge test -x "$dir" ||
    die "the munge user cannot reach $dir: every folder above it must be searchable (chmod o+x)"
  mkdir -p "$dir/munge"
  # A key of this cluster alone; munged insists that it and its folder belong to its user.
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge/munge.key"
  # Execute for all: clients of another user reach the socket in it.
  chmod 0711 "$dir/munge"
  chown -R munge:munge "$dir/munge"
  as_munge munged --force \
    --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed"
  wait_pid_file "$dir/munge/munged.pid"
  cp "$dir/munge/munged.pid" "$dir/pids/munged.pid"
}

wait_pid_file() {  # FILE: a daemon writes its pid file after it forks; stop() needs it
  for _ in $(seq 1 100); do
    [ -s "$1" ] && return 0
    sleep 0.2
  done
  die "no pid file $1 (the daemon did not start; logs in $DIR/logs)"
}

alive() {  # NAME: its pid file names a running process
  [ -s "$DIR/pids/$1.pid" ] && kill -0 "$(cat "$DIR/pids/$1.pid")" 2>/dev/null
}

# NODE: the node takes jobs once slurmd has registered (about 1 s here; the guard against a
# daemon that never registers is generous, so that a loaded machine is never failed for speed).
wait_idle() {
  local state="" deadline=$((SECONDS + 180))
  while [ $SECONDS -lt $deadline ]; do
    for daemon in slurmctld slurmd; do
      # No pid file yet: the daemon is still starting (it writes it after it forks).
      [ ! -s "$DIR/pids/$daemon.pid" ] || alive "$daemon" ||
        die "$daemon stopped: $(tail -n 3 "$DIR/logs/$daemon.log" 2>/dev/null)"
    done
    state=$(timeout 10 sinfo -h -n "$1" -o %t 2>/dev/null || true)
    case "$state" in
      idle*|mix*|alloc*) return 0 ;;
      down*|drain*) timeout 10 scontrol update nodename="$1" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.5
  done
  die "node $1 did not become idle (state '$state'); logs in $DIR/logs"
}

start() {  # [--cpus N] [--requeue-delay S]
  local cpus delay=120 node
  cpus=$(nproc)
  while [ $# -gt 0 ]; do
    case "$1" in
      --cpus) cpus=${2:?--cpus wants a number} ;;
      --requeue-delay) delay=${2:?--requeue-delay wants seconds} ;;
      *) die "unknown option $1" ;;
    esac
    shift 2
  done
  [ "$(id -u)" = 0 ] || die "run it as root (the daemons, and munged as the munge user)"
  for exe in munged slurmctld slurmd sinfo; do
    command -v "$exe" >/dev/null ||
      die "$exe is missing (apt-get install slurmctld slurmd slurm-client munge)"
  done
  mkdir -p "$DIR"/{state,spool,logs,pids}
  chmod 0755 "$DIR"
  node=cvmnode  # a name of its own: the host's may not resolve; its address is 127.0.0.1
  write_conf "$DIR" "$cpus" "$delay" "$node" "$(free_port)" "$(free_port)"
  export SLURM_CONF="$DIR/slurm.conf"
  # A start that fails half-way stops what it started, by the pid files, before it exits.
  trap 'stop >/dev/null 2>&1 || true' EXIT
  start_munge "$DIR"
  slurmctld
  wait_pid_file "$DIR/pids/slurmctld.pid"
  slurmd -N "$node"
  wait_pid_file "$DIR/pids/slurmd.pid"
  wait_idle "$node"
  trap - EXIT
  echo "export SLURM_CONF=$SLURM_CONF"
}

stop_pid_file() {  # FILE: SIGTERM to the pid it names, SIGKILL after 15 s
  local pid
  [ -s "$1" ] || return 0
  pid=$(cat "$1")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

stop() {
  export SLURM_CONF="$DIR/slurm.conf"
  if alive slurmctld; then
    # Jobs first, so that no slurmstepd outlives slurmd: scancel's SIGTERM, SIGKILL after KillWait.
    timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 1 80); do
      [ -z "$(timeout 10 squeue -h -t RUNNING,COMPLETING -o %i 2>/dev/null || echo x)" ] && break
      sleep 0.5
    done
  fi
  stop_pid_file "$DIR/pids/slurmd.pid"
  stop_pid_file "$DIR/pids/slurmctld.pid"
  stop_pid_file "$DIR/pids/munged.pid"
}

usage="usage: ci/slurm/cluster.sh start DIR [--cpus N] [--requeue-delay S] | stop DIR"
[ $# -ge 2 ] || die "$usage"
DIR=$(mkdir -p "$2" && cd "$2" && pwd)
case "$1" in
  start) start "${@:3}" ;;
  stop) stop ;;
  *) die "$usage" ;;
esac
