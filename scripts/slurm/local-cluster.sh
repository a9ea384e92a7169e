#!/usr/bin/env bash
# A one-node Slurm cluster on localhost (slurmctld + slurmd + munge, Debian's slurm-wlm and munge),
# for testing ecgpipe's job-array scripts without a real cluster:
#   scripts/slurm/local-cluster.sh start    # prints `export SLURM_CONF=...`; exit 77 if it cannot run here
#   scripts/slurm/local-cluster.sh stop
#   scripts/slurm/local-cluster.sh status
# Everything lives in a private state directory (ECGPIPE_SLURM_DIR, default /tmp/ecgpipe-slurm-$UID):
# its own munge key and socket, slurm.conf, spool and logs, so nothing under /etc is touched and a
# system Slurm, if any, is left alone. Daemons run as the calling user (root in CI and containers),
# proctrack/linuxproc and task/none: no cgroups needed.
set -euo pipefail
STATE=${ECGPIPE_SLURM_DIR:-/tmp/ecgpipe-slurm-$(id -u)}
CONF=$STATE/slurm.conf
SKIP=77  # the exit code ctest's SKIP_RETURN_CODE treats as "skipped"

have() { command -v "$1" >/dev/null 2>&1; }
find_daemon() { for d in "$1" "/usr/sbin/$1"; do have "$d" && { command -v "$d"; return; }; done; return 1; }

stop() {
  for pidfile in "$STATE"/slurmd.pid "$STATE"/slurmctld.pid "$STATE"/munged.pid; do
    [[ -f $pidfile ]] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$pidfile"
  done
}

start() {
  local munged slurmctld slurmd
  munged=$(find_daemon munged) && slurmctld=$(find_daemon slurmctld) && slurmd=$(find_daemon slurmd) &&
    have sbatch && have sinfo || { echo "local-cluster: slurm-wlm and munge are not installed" >&2; exit $SKIP; }
  stop
  mkdir -p "$STATE"/spool "$STATE"/ctld "$STATE"/munge
  chmod 700 "$STATE" "$STATE"/munge
  local key=$STATE/munge/munge.key
  if [[ ! -s $key ]]; then
    dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
    chmod 400 "$key"
  fi
  # --force: munged refuses to run as root or with a socket in a directory others may write to
  # unless told; this cluster lives and dies with one test run.
  "$munged" --force --key-file="$key" --socket="$STATE/munge/munge.socket" \
    --pid-file="$STATE/munged.pid" --log-file="$STATE/munged.log" --seed-file="$STATE/munge/munge.seed" ||
    { echo "local-cluster: munged did not start ($STATE/munged.log)" >&2; exit $SKIP; }
  # Free ports unless given: a second cluster (another test run, a leftover) must not collide.
  local ports
  ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  read -r ctld_port slurmd_port <<<"$ports"
  local cpus mem user
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
  user=$(id -un)
  cat >"$CONF" <<CONF
# Written by scripts/slurm/local-cluster.sh: one node on localhost.
ClusterName=ecgpipe-local
SlurmctldHost=localhost
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=${ECGPIPE_SLURMCTLD_PORT:-$ctld_port}
SlurmdPort=${ECGPIPE_SLURMD_PORT:-$slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$STATE/munge/munge.socket
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  # slurmd reads cgroup.conf even with task/none, and warns about an empty one.
  echo "# no cgroup plugins are used (proctrack/linuxproc, task/none)" >"$STATE/cgroup.conf"
  "$slurmctld" -f "$CONF" || { echo "local-cluster: slurmctld did not start ($STATE/slurmctld.log)" >&2; stop; exit $SKIP; }
  "$slurmd" -f "$CONF" || { echo "local-cluster: slurmd did not start ($STATE/slurmd.log)" >&2; stop; exit $SKIP; }
  export SLURM_CONF=$CONF
  for _ in $(seq 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "export SLURM_CONF=$CONF"
      return 0
    fi
    sleep 0.5
  done
  echo "local-cluster: the node did not come up in 30 s:" >&2
  sinfo >&2 || true
  tail -n 5 "$STATE/slurmctld.log" "$STATE/slurmd.log" >&2 || true
  stop
  exit $SKIP
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) SLURM_CONF=$CONF sinfo ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
