#!/usr/bin/env bash
# Runs a gclab sweep plan as ONE Slurm array job, then merges the results.
#
#   scripts/sweep-slurm.sh [--tasks T] [--parallel M] [--only LIST] [--wait] PLAN.json OUTDIR [sbatch options...]
#
# - The plan's N points are split over T array tasks (default: min(N, 1000); Slurm's MaxArraySize is 1001 by
#   default): task I runs `gclab sweep run PLAN --shard I/T` (points I, I+T, I+2T, …), so one task handles about N/T
#   points, on ${SLURM_CPUS_PER_TASK:-1} threads. `--array=0-(T-1)%M` lets at most M tasks run at once (default 64).
# - Every point's result is one file under OUTDIR, written atomically; a re-run task skips the points already there.
# - Bookkeeping lives in OUTDIR/.slurm/: the task count (fixed at the first submission: a re-submission must shard
#   the same way), the batch script, one log per task (task-I.log) and a marker per task that succeeded (task-I.ok).
# - Without --wait: a merge job runs after the array (`--dependency=afterany`) and writes OUTDIR/sweep.json; if a
#   task failed the merge fails naming the missing points (see OUTDIR/.slurm/merge.log).
#   With --wait: the script waits for the array (polling squeue), lists the tasks that failed and how to re-submit
#   just them (--only 7,12), or merges into OUTDIR/sweep.json itself. Exit status 0 only when the merge succeeded.
# - sbatch options after OUTDIR go to every job submitted (--partition, --account, --time, --cpus-per-task, …).
# - The gclab binary: $GCLAB, else `gclab` on PATH, else this checkout's target/release/gclab. It must be on a
#   filesystem the compute nodes see, like PLAN.json and OUTDIR.
set -euo pipefail

usage() { echo "usage: $0 [--tasks T] [--parallel M] [--only LIST] [--wait] PLAN.json OUTDIR [sbatch options...]" >&2; exit 2; }
die() { echo "sweep-slurm: $*" >&2; exit 2; }

tasks="" parallel=64 only="" wait=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) tasks="${2:-}"; shift 2 ;;
    --parallel) parallel="${2:-}"; shift 2 ;;
    --only) only="${2:-}"; shift 2 ;;
    --wait) wait=1; shift ;;
    -h|--help) usage ;;
    --*) die "unknown option $1 (sbatch options go after PLAN.json OUTDIR)" ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
plan="$1" out="$2"; shift 2
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || die "--parallel $parallel: expected a whole number ≥ 1"
[ -z "$tasks" ] || [[ "$tasks" =~ ^[1-9][0-9]*$ ]] || die "--tasks $tasks: expected a whole number ≥ 1"
[ -z "$only" ] || [[ "$only" =~ ^[0-9]+([-,][0-9]+)*$ ]] || die "--only $only: expected task ids like 7 or 3,8-10"
for tool in sbatch squeue; do
  command -v "$tool" >/dev/null || die "$tool not found: run this on a Slurm submit host"
done

here="$(cd "$(dirname "$0")/.." && pwd)"
gclab="${GCLAB:-$(command -v gclab || echo "${CARGO_TARGET_DIR:-$here/target}/release/gclab")}"
[ -x "$gclab" ] || die "gclab binary $gclab is not executable (set GCLAB=/path/to/gclab)"
gclab="$(cd "$(dirname "$gclab")" && pwd)/$(basename "$gclab")"
[ -f "$plan" ] || die "$plan: no such plan (write one with gclab sweep plan)"
plan="$(cd "$(dirname "$plan")" && pwd)/$(basename "$plan")"
mkdir -p "$out/.slurm"
out="$(cd "$out" && pwd)"
state="$out/.slurm"

points="$("$gclab" sweep info "$plan" | awk '$1 == "points" { print $2 }')"
[ -n "$points" ] || die "$plan: cannot read its point count"
if [ -f "$state/tasks" ]; then
  fixed="$(cat "$state/tasks")"
  [ -z "$tasks" ] || [ "$tasks" = "$fixed" ] || die "$out was sharded over $fixed tasks; --tasks $tasks would run other points"
  tasks="$fixed"
else
  [ -n "$tasks" ] || tasks=1000
  [ "$tasks" -le "$points" ] || tasks="$points"
  echo "$tasks" > "$state/tasks"
fi

cat > "$state/task.sh" <<EOF
#!/usr/bin/env bash
# One array task of a gclab sweep (written by scripts/sweep-slurm.sh): shard \$SLURM_ARRAY_TASK_ID of $tasks.
id="\$SLURM_ARRAY_TASK_ID"
rm -f "$state/task-\$id.ok"
"$gclab" sweep run "$plan" --shard "\$id/$tasks" --out "$out" --threads "\${SLURM_CPUS_PER_TASK:-1}" --quiet
rc=\$?
[ \$rc -ne 0 ] || touch "$state/task-\$id.ok"
exit \$rc
EOF
chmod +x "$state/task.sh"

array="${only:-0-$((tasks - 1))}%$parallel"
jobid="$(sbatch --parsable --job-name=gclab-sweep --array="$array" --output="$state/task-%a.log" "$@" "$state/task.sh")"
jobid="${jobid%%;*}"
echo "sweep-slurm: submitted array job $jobid: $points points in $tasks tasks (--array=$array)" >&2

merge_cmd=("$gclab" sweep merge "$plan" "$out" --json "$out/sweep.json" --quiet)
if [ "$wait" = 0 ]; then
  mjob="$(sbatch --parsable --job-name=gclab-merge --dependency="afterany:$jobid" --output="$state/merge.log" "$@" \
    --wrap "$(printf '%q ' "${merge_cmd[@]}")")"
  echo "sweep-slurm: merge job ${mjob%%;*} runs after it → $out/sweep.json (log: $state/merge.log)" >&2
  exit 0
fi

# --wait: poll until no task of the array is pending or running (sbatch --wait polls every 32 s).
while :; do
  if q="$(squeue -h -j "$jobid" -o %i 2>&1)"; then
    [ -n "$q" ] || break
  elif grep -q "Invalid job id" <<<"$q"; then
    break
  fi
  sleep 0.5
done
failed=()
for ((i = 0; i < tasks; i++)); do
  [ -f "$state/task-$i.ok" ] || failed+=("$i")
done
if [ ${#failed[@]} -gt 0 ]; then
  list="$(IFS=,; echo "${failed[*]}")"
  echo "sweep-slurm: ${#failed[@]} of $tasks tasks failed: $list (logs: $state/task-I.log)" >&2
  echo "sweep-slurm: re-submit only them: $0 --only $list --wait $plan $out $*" >&2
  exit 1
fi
"${merge_cmd[@]}"
echo "sweep-slurm: merged $points points → $out/sweep.json" >&2
