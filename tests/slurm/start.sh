#!/usr/bin/env bash
# Bring up a single-node SLURM cluster on this machine (slurmctld + slurmd on localhost, munge auth,
# no accounting), for tests/test_slurm.py and `.ci/run`. Needs root (apt-get, daemons).
#
#   bash tests/slurm/start.sh     # installs slurm-wlm + munge if missing, starts the daemons, waits for idle
#   bash tests/slurm/stop.sh      # ends exactly the daemons this script started (pids in $STATE_DIR)
#
# It is a stand-in for a real cluster, to prove profiles/slurm end to end; see README "Running on SLURM".
# Idempotent: if the cluster this script started is still up, it only waits for the node to be idle.
set -euo pipefail

STATE_DIR=${AGREEKIT_SLURM_STATE:-/tmp/agreekit-slurm}
CONF_DIR=/etc/slurm
mkdir -p "$STATE_DIR"

log() { echo "[slurm/start] $*"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "[slurm/start] error: must run as root (installs packages and starts daemons)" >&2
    exit 2
fi

alive() { [ -f "$STATE_DIR/$1.pid" ] && kill -0 "$(cat "$STATE_DIR/$1.pid")" 2>/dev/null; }

wait_idle() {
    for _ in $(seq 1 60); do
        state=$(sinfo -h -N -o '%t' 2>/dev/null | head -n1 || true)
        case "$state" in
            idle|mix|alloc) log "node localhost is $state"; return 0 ;;
            down*|drain*) scontrol update nodename=localhost state=resume >/dev/null 2>&1 || true ;;
        esac
        sleep 1
    done
    echo "[slurm/start] error: node did not become idle within 60 s (see $STATE_DIR/*.log)" >&2
    sinfo -N -l >&2 || true
    return 1
}

if alive slurmctld && alive slurmd && alive munged; then
    log "already running (pids in $STATE_DIR)"
    wait_idle
    exit 0
fi

# ---- 1. packages
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm and munge (apt-get, ~2 min)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# ---- 2. munge: key + daemon
mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge
chmod 400 /etc/munge/munge.key
chmod 700 /etc/munge
if ! alive munged; then
    rm -f /run/munge/munged.pid
    runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
    for _ in $(seq 1 20); do [ -s /run/munge/munged.pid ] && break; sleep 0.2; done
    cp /run/munge/munged.pid "$STATE_DIR/munged.pid"
fi
munge -n | unmunge >/dev/null || { echo "[slurm/start] error: munge does not work" >&2; exit 1; }

# ---- 3. slurm.conf for this host: CPUs and memory from the machine
# OverSubscribe=FORCE:4: up to 4 jobs share a core. Each grouped job of the quick config asks for 2 CPUs,
# so on a 2-core test node the 8 jobs ran one after another (7.5 min, mostly one busy core); a real
# cluster runs them side by side, and so does this node now.
CPUS=$(nproc)
MEM_MB=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
REAL_MB=$(( MEM_MB * 9 / 10 ))        # leave some memory to the OS
mkdir -p "$CONF_DIR" "$STATE_DIR/ctld" "$STATE_DIR/d"
cat > "$CONF_DIR/slurm.conf" <<CONF
# written by agreekit tests/slurm/start.sh: single-node test cluster, no accounting
ClusterName=agreekit
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$STATE_DIR/ctld
SlurmdSpoolDir=$STATE_DIR/d
SlurmctldPidFile=$STATE_DIR/slurmctld.pid
SlurmdPidFile=$STATE_DIR/slurmd.pid
SlurmctldLogFile=$STATE_DIR/slurmctld.log
SlurmdLogFile=$STATE_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=300
NodeName=localhost CPUs=$CPUS RealMemory=$REAL_MB State=UNKNOWN
PartitionName=main Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
log "slurm.conf: CPUs=$CPUS RealMemory=${REAL_MB} MB"

# ---- 4. daemons (both daemonize and write the pid files named in slurm.conf)
if ! alive slurmctld; then
    rm -f "$STATE_DIR/slurmctld.pid"
    /usr/sbin/slurmctld
    for _ in $(seq 1 50); do [ -s "$STATE_DIR/slurmctld.pid" ] && break; sleep 0.2; done
fi
if ! alive slurmd; then
    rm -f "$STATE_DIR/slurmd.pid"
    /usr/sbin/slurmd
    for _ in $(seq 1 50); do [ -s "$STATE_DIR/slurmd.pid" ] && break; sleep 0.2; done
fi
alive slurmctld || { echo "[slurm/start] error: slurmctld did not start (see $STATE_DIR/slurmctld.log)" >&2; exit 1; }
alive slurmd || { echo "[slurm/start] error: slurmd did not start (see $STATE_DIR/slurmd.log)" >&2; exit 1; }
wait_idle
