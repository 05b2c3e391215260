#!/usr/bin/env bash
# A one-node Slurm cluster for the grader's Slurm test (grading/tests/test_slurm.py), with
# everything (config, state, logs, pid files, munge key and socket, fake GPU devices) under
# one folder. Root, no systemd, Debian's slurmctld slurmd slurm-client munge
# (tools/deps.sh slurm). Two fake GPUs as a `gpu` GRES, so that --gres=gpu:1 is accepted and
# each task gets its own CUDA_VISIBLE_DEVICES.
#
# On a GPU host, KIT_SLURM_GPU_FILES=/dev/nvidia0 (a gres.conf File= list, e.g.
# /dev/nvidia[0-1]) with KIT_SLURM_GPU_COUNT=1 makes the real GPUs the node's GRES instead.
#
# usage: tools/slurm_test_cluster.sh start DIR   then: export SLURM_CONF=DIR/slurm.conf
#        tools/slurm_test_cluster.sh stop DIR    cancels the jobs, stops the daemons by the
#                                                pids in their pid files (never by name)
# start waits at most 30 s for each daemon, and on failure prints its log's tail and exits 1.
set -u
what=${1:-}
dir=${2:-}
if [ -z "$dir" ] || { [ "$what" != start ] && [ "$what" != stop ]; }; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi
dir=$(realpath -m "$dir")
export SLURM_CONF=$dir/slurm.conf

fail() {  # message, log file
    echo "slurm_test_cluster: $1" >&2
    if [ -n "${2:-}" ] && [ -f "$2" ]; then
        echo "---- last lines of $2:" >&2
        tail -n 25 "$2" >&2
    fi
    exit 1
}

wait_for() {  # seconds, description, log, command...
    local limit=$1 what=$2 log=$3
    shift 3
    local end=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || fail "$what not up within $limit s" "$log"
        sleep 0.3
    done
}

stop_pid() {  # pid file
    [ -f "$1" ] || return 0
    local pid
    pid=$(cat "$1" 2>/dev/null)
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null
    return 0
}

if [ "$what" = stop ]; then
    if [ -f "$dir/slurmctld.pid" ] && command -v scancel >/dev/null; then
        timeout 10 scancel --full --user="$(id -un)" >/dev/null 2>&1
        sleep 1
    fi
    stop_pid "$dir/slurmd.pid"
    stop_pid "$dir/slurmctld.pid"
    stop_pid "$dir/munge/munged.pid"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || fail "must run as root"
for tool in munged slurmctld slurmd sbatch scontrol; do
    command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] \
        || fail "$tool not installed (tools/deps.sh slurm)"
done
export PATH=$PATH:/usr/sbin
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/dev"
host=$(hostname -s)
mkdir -p "$dir/spool/$host"  # SlurmdSpoolDir=$dir/spool/%n

# munge: its own key and socket, run as the munge user.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chown -R munge: "$dir/munge"
chmod 700 "$dir/munge"
chmod 400 "$dir/munge/munge.key"
runuser -u munge -- munged --force --key-file="$dir/munge/munge.key" \
    --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
    || fail "munged did not start" "$dir/munge/munged.log"
wait_for 15 munged "$dir/munge/munged.log" test -S "$dir/munge/munge.socket"

# Two fake GPUs: character devices (as /dev/null) that gres.conf names; or the real ones.
gpu_files=${KIT_SLURM_GPU_FILES:-$dir/dev/nvidia[0-1]}
gpu_count=${KIT_SLURM_GPU_COUNT:-2}
if [ -z "${KIT_SLURM_GPU_FILES:-}" ]; then
    for i in 0 1; do
        [ -e "$dir/dev/nvidia$i" ] || mknod -m 666 "$dir/dev/nvidia$i" c 1 3 \
            || fail "mknod $dir/dev/nvidia$i failed"
    done
fi

# The node as slurmd sees it (sockets and cores as it reports them), 95% of the memory.
node=$(slurmd -C | head -n 1)
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
node=$(sed "s/RealMemory=[0-9]*/RealMemory=$((memory * 95 / 100))/" <<<"$node")
port=$((20000 + RANDOM % 20000))
cat >"$dir/slurm.conf" <<EOF
# Written by tools/slurm_test_cluster.sh: a one-node test cluster.
ClusterName=kittest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
GresTypes=gpu
KillWait=5
MinJobAge=300
MailProg=/bin/true
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
$node Gres=gpu:$gpu_count State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# A cgroup v2 host (a GPU node, say) makes slurmd set up cgroups even with proctrack/linuxproc;
# without systemd it must be told to do so by itself (KIT_SLURM_CGROUP_V2_NO_SYSTEMD=1).
if [ -n "${KIT_SLURM_CGROUP_V2_NO_SYSTEMD:-}" ]; then
    printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$dir/cgroup.conf"
fi
cat >"$dir/gres.conf" <<EOF
Name=gpu File=$gpu_files
EOF

slurmctld -c -f "$dir/slurm.conf" || fail "slurmctld did not start" "$dir/slurmctld.log"
wait_for 30 slurmctld "$dir/slurmctld.log" bash -c 'scontrol ping | grep -q UP'
slurmd -f "$dir/slurm.conf" || fail "slurmd did not start" "$dir/slurmd.log"
wait_for 30 "the node (slurmd)" "$dir/slurmd.log" \
    bash -c '[ "$(sinfo -h -o %T | head -n 1)" = idle ]'
echo "slurm_test_cluster: up in $dir (export SLURM_CONF=$dir/slurm.conf)"
