#!/usr/bin/env bash
# shellcheck disable=SC2154  # root, seconds, cvmcheck, planted, shards, args: from the .env files
# The batch script of one campaign shard of a night (ci/slurm/night.sh submits it as a task of
# a job array: shard K = SLURM_ARRAY_TASK_ID): shard.sh NIGHT NAME, where NIGHT/night.env holds
# the night's settings and NIGHT/campaigns/NAME/campaign.env the campaign's shard count and
# options.
#
# Each run of the task (the first, then one per requeue: preemption, `scontrol requeue`, a lost
# node) writes its own report, NIGHT/campaigns/NAME/shard-K/attempt-R (R: SLURM_RESTART_COUNT).
# A requeued run goes on from where the last report stopped (`campaign --resume-from`: its seed,
# its next call, its schedule), for the seconds the shard has left (tools/cluster/shard_plan.py);
# when the last report ended by itself, nothing is left to do. So the reports of a shard's runs
# hold each of its calls once, and `cvmcheck merge` joins them by run.resumed_from. A run killed
# without a report (SIGKILL after KillWait, a node lost) has its calls made again.
#
# The harness is exec'd, so that Slurm's SIGTERM (scancel, requeue, preemption, --signal before
# the time limit) reaches it: it stops at the next call boundary and writes its report.
set -euo pipefail
night=${1:?usage: shard.sh NIGHT NAME}
name=${2:?usage: shard.sh NIGHT NAME}
k=${SLURM_ARRAY_TASK_ID:?shard.sh runs as a Slurm array task (ci/slurm/night.sh submits it)}
attempt=${SLURM_RESTART_COUNT:-0}
# shellcheck source=/dev/null
source "$night/night.env"
# shellcheck source=/dev/null
source "$night/campaigns/$name/campaign.env"
dir="$night/campaigns/$name/shard-$k"
report="$dir/attempt-$attempt"
mkdir -p "$dir"
rm -rf "$report"
IFS=$'\t' read -r action from left < <(python3 "$root/tools/cluster/shard_plan.py" "$dir" \
  "$seconds")
case "$action" in
  done) echo "$name shard $k/$shards: its last report ended by itself; nothing left to do"
        exit 0 ;;
  fresh) run=(--seconds "$from") ;;
  resume) run=(--seconds "$left" --resume-from "$from") ;;
  *) echo "shard.sh: tools/cluster/shard_plan.py said '$action'" >&2; exit 2 ;;
esac
echo "$name shard $k/$shards, run $attempt on $(hostname) at $(date -u +%FT%TZ): ${run[*]}"
[ -z "$planted" ] || export CVMCHECK_PLANTED="$planted"
exec "$cvmcheck" campaign "${args[@]}" --shard "$k/$shards" --report "$report" "${run[@]}"
