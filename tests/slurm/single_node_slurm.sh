# A single-node Slurm cluster for a test, sourced by the tests labelled slurm (suite_slurm_test.sh,
# catalogue_slurm_test.sh): checks that Slurm and munge are installed and that it runs as root,
# makes a temporary folder $tmp, starts munged (its own key and socket), slurmctld and slurmd
# (loopback ports, spool and state in $tmp; proctrack/linuxproc, task/none; partition nfttest,
# 2 CPUs), exports SLURM_CONF, and waits for the node to be idle. On exit it cancels $job (when
# the caller set it) so no task outlives the test, stops the daemons by their process ids (newest
# first, SIGKILL after a bounded wait), prints the daemons' and the tasks' logs on a failure, and
# removes $tmp.
#
# The caller sets before sourcing: scale (the timeout scale, 1 = as written), task_log_glob (the
# tasks' logs under $tmp, printed on a failure), and may set job later.
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo python3; do
  command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
  command -v "$tool" >/dev/null 2>&1 || fail "'$tool' not found: scripts/install-deps.sh installs slurm-wlm and munge"
done
[ "$(id -u)" -eq 0 ] || fail "the single-node Slurm of this test runs its daemons as root: run it as root (ctest -L slurm)"

tmp=$(mktemp -d /tmp/nft-slurm-test.XXXXXX)
chmod 755 "$tmp"
pids=()
job=
cleanup() {
  local status=$?
  # A job still queued or running (a failed wait) is cancelled first, so no task outlives the test.
  if [ -n "$job" ] && [ -n "${SLURM_CONF:-}" ]; then
    scancel "$job" 2>/dev/null || true
    for _ in $(seq 1 50); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  # Stop what this test started, by process id, newest first; SIGKILL after a bounded wait.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    echo "--- slurmctld log (tail)"; tail -n 20 "$tmp/log/slurmctld.log" 2>/dev/null || true
    echo "--- slurmd log (tail)"; tail -n 20 "$tmp/log/slurmd.log" 2>/dev/null || true
    for f in "$tmp"/$task_log_glob; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT

# Waits up to $1 seconds for the command "${@:2}" to succeed.
wait_for() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# Reads a pid file once it exists (the daemons write it after forking).
pid_from() { wait_for 10 test -s "$1" && cat "$1"; }

echo "== munged (own key and socket in $tmp/munge)"
mkdir -p "$tmp/munge" "$tmp/munge-key" "$tmp/spool" "$tmp/state" "$tmp/log"
chmod 755 "$tmp/munge"
chmod 700 "$tmp/munge-key"
mungekey --create --keyfile="$tmp/munge-key/munge.key" --bits=1024
socket="$tmp/munge/munge.socket"
munged --socket="$socket" --key-file="$tmp/munge-key/munge.key" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munged.seed"
pids+=("$(pid_from "$tmp/munge/munged.pid")")
wait_for 10 test -S "$socket" || { echo "munged did not create $socket"; exit 1; }

read -r ctld_port slurmd_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

cat >"$tmp/slurm.conf" <<EOF
ClusterName=nfttest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MaxArraySize=1001
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=nfttest Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"

echo "== slurmctld and slurmd (ports $ctld_port, $slurmd_port on 127.0.0.1)"
slurmctld
pids+=("$(pid_from "$tmp/slurmctld.pid")")
slurmd -N localhost   # this node, whatever the host is called
pids+=("$(pid_from "$tmp/slurmd.pid")")
node_idle() { [ "$(sinfo -h -n localhost -o %T)" = "idle" ]; }
wait_for $((30 * scale)) node_idle || { echo "the node did not become idle: $(sinfo 2>&1)"; exit 1; }
sinfo

