#!/usr/bin/env bash
# The distributed sweep on a REAL single-node Slurm (issue 20), end to end:
#  1. installs Slurm and munge through scripts/setup-system.sh (fails loudly when they cannot be installed);
#  2. starts munged, slurmctld and slurmd as plain processes with all state in a temporary folder (no systemd, no
#     cgroups; a private munge socket and free TCP ports, so a system Slurm or munge is neither needed nor touched);
#  3. writes a 120-point plan and submits it through scripts/sweep-slurm.sh as one array job of 12 tasks
#     (10 points each), with task 7 killed on purpose after its first point (a wrapper that exists only in this
#     test SIGKILLs it);
#  4. checks the script reports exactly task 7 as failed and that the merge refuses, naming its 9 unfinished
#     points; re-submits only task 7, merges, and compares the merged JSON byte for byte with the one-machine
#     `gclab sweep ... --json` of the same points;
#  5. submits a second plan without --wait (array + chained merge job) and compares its sweep.json too;
#  6. shuts the cluster down on exit (trap), and fails if any Slurm or munge process it started is left.
# Needs root (the daemons run as root/munge). GCLAB_BIN selects the gclab binary (default: the debug build).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
start=$SECONDS
say() { echo "slurm test: $*" >&2; }
fail() { echo "slurm test: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root to run slurmctld, slurmd and munged (CI runs scripts/test.sh as root)"
scripts/setup-system.sh slurm || fail "cannot install the Slurm packages (slurmctld slurmd slurm-client munge)"
for b in slurmctld slurmd sbatch squeue sinfo scontrol munged; do
  command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || fail "$b missing after installing the slurm packages"
done
export PATH="$PATH:/usr/sbin"

gclab="${GCLAB_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/gclab}"
[ -x "$gclab" ] || fail "no gclab binary at $gclab (build it: cargo build -p gclab)"

tmp="$(mktemp -d /tmp/gclab-slurm.XXXXXX)"
chmod 755 "$tmp"
host="$(hostname -s)"
pids_file="$tmp/pids"
: > "$pids_file"
# Processes of these programs that existed before this test are not ours; the check at exit ignores them.
daemons="slurmctld slurmd slurmstepd munged"
ours_candidates() { for n in $daemons; do pgrep -x "$n" || true; done; }
before="$(ours_candidates | tr '\n' ' ')"

cleanup() {
  local rc=$?
  set +e
  if [ -f "$tmp/slurm.conf" ]; then
    SLURM_CONF="$tmp/slurm.conf" timeout 10 scontrol shutdown >/dev/null 2>&1
  fi
  # Wait for the daemons we started (pid files) to leave; then kill what remains, by pid.
  local pids
  pids="$(cat "$tmp/slurmctld.pid" "$tmp/slurmd.pid" "$tmp/munge/munged.pid" 2>/dev/null | tr '\n' ' ')"
  [ -f "$tmp/munge/munged.pid" ] && kill "$(cat "$tmp/munge/munged.pid")" 2>/dev/null
  for _ in $(seq 50); do
    local alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break
    sleep 0.2
  done
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  # Any slurmstepd or daemon that was not there before the test is ours: none may be left.
  local left=""
  for _ in $(seq 25); do
    left=""
    for p in $(ours_candidates); do
      [[ " $before " == *" $p "* ]] || left="$left $p"
    done
    [ -z "$left" ] && break
    sleep 0.2
  done
  if [ -n "$left" ]; then
    echo "slurm test: FAIL: processes left behind:$left" >&2
    ps -o pid,comm,args -p "${left# }" >&2
    for p in $left; do kill -9 "$p" 2>/dev/null; done
    rc=1
  fi
  if [ $rc -ne 0 ]; then
    for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/munge/munged.log; do
      [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
    done
  fi
  rm -rf "$tmp"
  [ $rc -eq 0 ] && say "passed in $((SECONDS - start)) s, cluster shut down, no process left"
  exit $rc
}
trap cleanup EXIT

free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
  done
}

# --- munge: a private daemon and socket (the package's key) --------------------------------------------------
mkdir -p "$tmp/munge"
chown munge:munge "$tmp/munge"
chmod 755 "$tmp/munge"
runuser -u munge -- munged --socket="$tmp/munge/munge.socket.2" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" --key-file=/etc/munge/munge.key \
  || fail "munged did not start"

# --- slurm: controller and node daemon, state in $tmp ---------------------------------------------------------
mkdir -p "$tmp/state" "$tmp/spool"
node="$(slurmd -C | head -n1 | sed -e "s/^NodeName=[^ ]*/NodeName=$host/" -e 's/ RealMemory=.*//')"
cat > "$tmp/slurm.conf" <<EOF
ClusterName=gclabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket.2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
SlurmUser=root
SlurmdUser=root
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 100); do
  [ "$(sinfo -h -N -o %T 2>/dev/null)" = "idle" ] && break
  sleep 0.2
done
[ "$(sinfo -h -N -o %T 2>/dev/null)" = "idle" ] || fail "the node did not become idle: $(sinfo -N 2>&1 | tail -n1)"
say "cluster up in $((SECONDS - start)) s ($host, $(nproc) CPUs)"

# --- the sweep: 3 collectors × 4 bank sizes × 10 seeds = 120 points ---------------------------------------------
work="$tmp/work"
mkdir -p "$work"
sweep_args=(preset:kvm/calculator --vary collector.kind=base,k-allocation,adaptive
  --vary heap.bank_size=4KiB,8KiB,16KiB,32KiB --vary seed=1,2,3,4,5,6,7,8,9,10)
"$gclab" sweep plan "${sweep_args[@]}" -o "$work/plan.json"
[ "$("$gclab" sweep info "$work/plan.json" | awk '$1 == "points" { print $2 }')" = 120 ] || fail "the plan has not 120 points"
"$gclab" sweep "${sweep_args[@]}" --json "$work/local.json"

# The test's own fault: a gclab wrapper that, while the poison file exists, lets shard 7 finish its first point
# (index 7) only and then SIGKILLs the task — a task dying mid-way, deterministically.
cat > "$work/gclab-poisoned" <<EOF
#!/usr/bin/env bash
if [ "\$1 \$2" = "sweep run" ] && [[ " \$* " == *" --shard 7/"* ]] && [ -e "$work/poison" ]; then
  "$gclab" sweep run "$work/plan.json" --index 7 --out "$work/out" --quiet
  kill -KILL \$\$
fi
exec "$gclab" "\$@"
EOF
chmod +x "$work/gclab-poisoned"
touch "$work/poison"

set +e
GCLAB="$work/gclab-poisoned" scripts/sweep-slurm.sh --tasks 12 --parallel 12 --wait "$work/plan.json" "$work/out" \
  --time=10 2> "$work/submit1.err"
rc=$?
set -e
cat "$work/submit1.err" >&2
[ $rc -eq 1 ] || fail "the first submission should fail (task 7 killed), exit status was $rc"
grep -q "1 of 12 tasks failed: 7 " "$work/submit1.err" || fail "the script should name task 7 alone as failed"
[ ! -e "$work/out/sweep.json" ] || fail "a merged sweep.json was written although task 7 failed"
set +e
"$gclab" sweep merge "$work/plan.json" "$work/out" --json "$work/partial.json" 2> "$work/merge1.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "merging with task 7's points missing should exit 1, was $rc"
grep -q "9 of 120 points missing: indices 19, 31, 43, 55, 67, 79, 91, 103, 115" "$work/merge1.err" \
  || fail "the merge should name the 9 unfinished points of task 7: $(cat "$work/merge1.err")"
[ -f "$work/out/000/000007.json" ] || fail "task 7's finished point is not on disk"
[ ! -e "$work/partial.json" ] || fail "a failed merge left an output file"
say "task 7 failed as intended; $(ls "$work"/out/000/*.json | wc -l) of 120 points on disk; merge refused: $(cat "$work/merge1.err")"

rm "$work/poison"
GCLAB="$work/gclab-poisoned" scripts/sweep-slurm.sh --only 7 --wait "$work/plan.json" "$work/out" --time=10
cmp "$work/out/sweep.json" "$work/local.json" || fail "the merged Slurm sweep differs from the one-machine sweep"
say "re-submitted task 7 alone; merged JSON is byte-identical to the local sweep ($(wc -c < "$work/local.json") bytes)"

# --- without --wait: the script chains a merge job after the array (afterany) ------------------------------------
sweep2=(preset:kvm/kwml --vary collector.kind=base,adaptive --vary seed=1,2,3,4,5,6,7,8,9,10,11,12)
"$gclab" sweep plan "${sweep2[@]}" -o "$work/plan2.json"
"$gclab" sweep "${sweep2[@]}" --json "$work/local2.json"
GCLAB="$gclab" scripts/sweep-slurm.sh --tasks 4 "$work/plan2.json" "$work/out2" 2> "$work/submit2.err" || fail "submission without --wait: $(cat "$work/submit2.err")"
cat "$work/submit2.err" >&2
grep -q "merge job" "$work/submit2.err" || fail "no merge job submitted"
for _ in $(seq 240); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -o %i)" ] || fail "jobs still queued after 2 min: $(squeue -h)"
[ -f "$work/out2/sweep.json" ] || fail "the merge job wrote no sweep.json: $(cat "$work/out2/.slurm/merge.log" 2>/dev/null)"
cmp "$work/out2/sweep.json" "$work/local2.json" || fail "the merge job's sweep.json differs from the one-machine sweep"
say "without --wait: array + chained merge job wrote the same bytes as the local sweep"
