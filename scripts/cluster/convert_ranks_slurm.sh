#!/bin/bash
# Converts the traces of a job's ranks in parallel, one Slurm array task per
# rank, into one shared TensorBoard run: the same files as
# `tbprof convert TRACE_DIR --logdir LOGDIR --run RUN` in one process (each
# host is split for TensorBoard by its own size, docs/tensorboard_limits.md).
#
#   n=$(ls TRACE_DIR | grep -cE '\.(json|json\.gz|xplane\.pb)$')
#   sbatch --array=0-$((n - 1))%64 scripts/cluster/convert_ranks_slurm.sh TRACE_DIR LOGDIR RUN
#   tbprof report LOGDIR          # afterwards: the whole job, every rank once
#
# LOGDIR must be on a file system every node sees (files are published with
# rename/link, atomic on one file system). Task i converts the (i+1)-th trace
# of TRACE_DIR in version order (rank2 before rank10); a task past the last
# trace does nothing. A failed task leaves nothing of its rank and fails with
# tbprof's message (the other ranks are published; rerun that task alone).
# TBPROF names the tbprof binary (default: tbprof on PATH). Without Slurm,
# run it with SLURM_ARRAY_TASK_ID set, as tests/cluster_convert_test.sh does.
#
#SBATCH --job-name=tbprof-convert
#SBATCH --cpus-per-task=2
#SBATCH --mem=16G
#SBATCH --time=01:00:00
#SBATCH --output=tbprof-convert-%A_%a.out
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: sbatch --array=0-N $0 TRACE_DIR LOGDIR RUN" >&2
  exit 2
fi
traces=$1 logdir=$2 run=$3
tbprof=${TBPROF:-tbprof}
task=${SLURM_ARRAY_TASK_ID:?not an array task: sbatch --array=0-N $0 ...}

mapfile -t files < <(find "$traces" -maxdepth 1 -type f ! -name '.*' \
  \( -name '*.json' -o -name '*.json.gz' -o -name '*.xplane.pb' \) -printf '%f\n' | sort -V)
if (( task >= ${#files[@]} )); then
  echo "tbprof-convert: task $task: $traces has ${#files[@]} traces; nothing to do" >&2
  exit 0
fi
# Two threads read a large JSON trace beside the XSpace builder.
threads=$(( ${SLURM_CPUS_PER_TASK:-1} >= 2 ? 2 : 1 ))
exec "$tbprof" convert "$traces/${files[$task]}" --logdir "$logdir" --run "$run" \
  --threads "$threads" --quiet
