#!/bin/bash
# scripts/cluster/convert_ranks_slurm.sh run as a Slurm job array would, with
# local processes: one per rank of the 8-rank DLRM job, all at once, into one
# shared run. The run must hold exactly what one `tbprof convert DIR` writes,
# `tbprof report` must see 8 ranks of 8, and a task past the last trace must
# do nothing. Skips (77) without the test data.
#   cluster_convert_test.sh TBPROF TESTDATA WORKDIR
set -euo pipefail
tbprof=$1 testdata=$2 work=$3
script=$(dirname "$0")/../scripts/cluster/convert_ranks_slurm.sh
ranks=$testdata/kineto/dlrm_8ranks
[[ -d $ranks ]] || { echo "no $ranks: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"

pids=()
for task in 0 1 2 3 4 5 6 7 8; do
  SLURM_ARRAY_TASK_ID=$task SLURM_CPUS_PER_TASK=2 TBPROF=$tbprof \
    bash "$script" "$ranks" "$work/tb" job > "$work/task$task.out" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "FAIL: a task failed:"; cat "$work"/task*.out; exit 1; }
done
grep -q "task 8: .* has 8 traces; nothing to do" "$work/task8.out" ||
  { echo "FAIL: task 8 should do nothing"; cat "$work/task8.out"; exit 1; }

"$tbprof" convert "$ranks" --logdir "$work/one" --run job --quiet > /dev/null
diff <(cd "$work/one/plugins/profile" && find . | sort) \
     <(cd "$work/tb/plugins/profile" && find . | sort) ||
  { echo "FAIL: the array's run differs from one process's"; exit 1; }
for f in "$work"/one/plugins/profile/job/*.xplane.pb; do
  cmp -s "$f" "$work/tb/plugins/profile/job/$(basename "$f")" ||
    { echo "FAIL: $(basename "$f") differs"; exit 1; }
done
"$tbprof" report "$work/tb" --quiet --width 100 > "$work/report.txt"
grep -q "Distributed: 8 ranks of 8" "$work/report.txt" ||
  { echo "FAIL: report does not see 8 ranks of 8"; head -5 "$work/report.txt"; exit 1; }

# Usage: no array task id.
if TBPROF=$tbprof bash "$script" "$ranks" "$work/tb" job 2> "$work/usage.err"; then
  echo "FAIL: ran without SLURM_ARRAY_TASK_ID"; exit 1
fi
grep -q "not an array task" "$work/usage.err" || { cat "$work/usage.err"; exit 1; }
echo "PASS"
