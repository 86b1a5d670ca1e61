#!/usr/bin/env bash
# A real single-node SLURM cluster with accounting, on a Debian machine without systemd, for the
# cluster test (tests/test_cluster.py) and for trying the SLURM profile by hand.
#
#   workflow/cluster/slurm-local.sh start   install (once, as root) and start every daemon
#   workflow/cluster/slurm-local.sh stop    stop the daemons this script started
#   workflow/cluster/slurm-local.sh status  scontrol ping, the node and sacct
#
# Each daemon runs in the foreground under start-stop-daemon, which records its PID in
# $STATE; stop kills those PIDs only. Order matters: munged, MariaDB, slurmdbd (and the
# accounting entries), slurmctld, slurmd.
set -euo pipefail

CLUSTER=attnmem
ACCOUNT=attnmem
STATE=/run/attnmem-slurm
CONF=/etc/slurm
PACKAGES=(munge mariadb-server slurmdbd slurmctld slurmd slurm-client)

log() { printf 'slurm-local: %s\n' "$*" >&2; }

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2
  shift 2
  for _ in $(seq "$((limit * 2))"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  log "gave up waiting for $what after ${limit}s"
  return 1
}

supervise() { # supervise NAME USER COMMAND...: start a foreground daemon in the background
  local name=$1 user=$2
  shift 2
  if [ -f "$STATE/$name.pid" ] && kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null; then
    log "$name already running"
    return 0
  fi
  start-stop-daemon --start --background --make-pidfile --pidfile "$STATE/$name.pid" \
    --chuid "$user" --output "/var/log/attnmem-slurm/$name.out" --exec "$1" -- "${@:2}"
}

install() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
  fi
}

configure() {
  local mem
  mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  mem=$((mem * 9 / 10)) # never above what slurmd reports, or the node is drained
  local cpus
  cpus=$(nproc)
  mkdir -p "$CONF" "$STATE" /run/slurm /run/munge /run/mysqld /var/log/slurm \
    /var/log/attnmem-slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd
  chown slurm:slurm /run/slurm /var/log/slurm /var/lib/slurm /var/lib/slurm/slurmctld
  chown munge:munge /run/munge
  chown mysql:mysql /run/mysqld
  for f in slurmctld slurmd slurmdbd; do
    touch "/var/log/slurm/$f.log"
    chown slurm:slurm "/var/log/slurm/$f.log"
  done
  cat >"$CONF/slurm.conf" <<EOF
ClusterName=$CLUSTER
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageEnforce=associations
JobCompType=jobcomp/none
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  cat >"$CONF/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
SlurmUser=slurm
PidFile=/run/slurm/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=attnmem-local
StorageLoc=slurm_acct_db
EOF
  chown slurm:slurm "$CONF/slurmdbd.conf"
  chmod 0600 "$CONF/slurmdbd.conf"
}

start() {
  [ "$(id -u)" = 0 ] || {
    log "run as root (it installs packages and starts daemons)"
    exit 1
  }
  install
  configure
  supervise munged munge /usr/sbin/munged -F
  wait_for 20 munge munge -n
  supervise mariadb mysql /usr/sbin/mariadbd --user=mysql --socket=/run/mysqld/mysqld.sock
  wait_for 60 mariadb mariadb -e "select 1"
  mariadb -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'attnmem-local';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
  supervise slurmdbd root /usr/sbin/slurmdbd -D
  wait_for 60 slurmdbd sacctmgr -n show cluster
  if [ -z "$(sacctmgr -n -P show cluster format=cluster where cluster="$CLUSTER")" ]; then
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
  fi
  if [ -z "$(sacctmgr -n -P show account format=account where account="$ACCOUNT")" ]; then
    sacctmgr -i add account "$ACCOUNT" cluster="$CLUSTER" >/dev/null
  fi
  local user
  user=$(id -un)
  if [ -z "$(sacctmgr -n -P show assoc format=user where user="$user" account="$ACCOUNT")" ]; then
    sacctmgr -i add user "$user" account="$ACCOUNT" cluster="$CLUSTER" >/dev/null
  fi
  supervise slurmctld root /usr/sbin/slurmctld -D
  wait_for 60 slurmctld scontrol ping
  supervise slurmd root /usr/sbin/slurmd -D -N localhost
  wait_for 60 "an idle node" sh -c 'sinfo -h -N -o %t | grep -qx idle'
  log "cluster $CLUSTER up: account $ACCOUNT, partition main, $(nproc) CPUs"
}

stop() {
  for name in slurmd slurmctld slurmdbd mariadb munged; do
    local pidfile="$STATE/$name.pid"
    [ -f "$pidfile" ] || continue
    start-stop-daemon --stop --retry TERM/20/KILL/5 --pidfile "$pidfile" --remove-pidfile \
      >/dev/null 2>&1 || true
  done
  log "stopped"
}

status() {
  scontrol ping
  sinfo -N
  sacct -n -X -S now-1hour --format=JobID,JobName%30,State,Elapsed | tail -20
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
*)
  echo "usage: $0 start|stop|status" >&2
  exit 2
  ;;
esac
