#!/usr/bin/env bash
# Stop the single-node SLURM cluster that tests/slurm/start.sh started: cancel leftover jobs, then end
# slurmd, slurmctld and munged by the pids start.sh recorded (never by name). Safe to run twice.
set -uo pipefail

STATE_DIR=${AGREEKIT_SLURM_STATE:-/tmp/agreekit-slurm}
log() { echo "[slurm/stop] $*"; }

if [ -f "$STATE_DIR/slurmctld.pid" ] && kill -0 "$(cat "$STATE_DIR/slurmctld.pid")" 2>/dev/null; then
    scancel --user="$(id -un)" >/dev/null 2>&1 || true
fi
for d in slurmd slurmctld munged; do
    f="$STATE_DIR/$d.pid"
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        log "stopped $d (pid $pid)"
    fi
    rm -f "$f"
done
exit 0
