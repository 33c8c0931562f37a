#!/usr/bin/env bash
# A night on a real Slurm, checked (docs/nightly.md, "On a cluster"): installs Slurm and munge
# where missing (Debian's slurmctld, slurmd, slurm-client, munge), starts a single-node cluster
# in a temporary folder (ci/slurm/cluster.sh; its daemons stopped by their pid files at the end,
# whatever happens), and submits a night with ci/slurm/night.sh: 4 campaign shards (an operator
# or two of each family, on optimized and a planted bug of max: CVMCHECK_PLANTED), each of 2 jobs,
# fuzz tasks, and the merge job. The node declares 10 CPUs, so that the whole night runs at once
# on the machine's cores.
# Shard 2 is requeued in the middle (`scontrol requeue`: SIGTERM, then a new run of the task),
# once its first run has found the planted bug. Then tools/cluster/check_night.py checks the
# night against an uninterrupted run of shard 2 made here: the merged report holds 4 of 4 shards
# and the planted finding with its repro; shard 2's runs made exactly the uninterrupted run's
# calls, none lost and none twice; the store holds one campaign run; the page is built.
#
#   ci/slurm.sh --smoke   (in ci/test.sh) shards of about MAX_CASES calls each (default 200000,
#                         about 10 s of one core: a campaign of 4 x MAX_CASES), one fuzz task of 10 s: about a minute on 2 cores;
#   ci/slurm.sh           (the nightly) shards of 10 times as many calls, every fuzz target for
#                         60 s.
# Needs root (the daemons; munged runs as the munge user). Not root and not in CI (CI=true): it
# says so and skips. The campaign and fuzz binaries are built by night.sh (the fuzz targets of
# CVMCHECK_FUZZ_PRESET: ci/test.sh's sanitizer build). Keeps its folder with KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=0
[ "${1:-}" != --smoke ] || smoke=1
if [ "$(id -u)" != 0 ]; then
  [ "${CI:-}" != true ] || { echo "ci/slurm.sh: needs root (Slurm's daemons)" >&2; exit 1; }
  echo "ci/slurm.sh: SKIPPED: needs root to start Slurm's daemons"
  exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "== installing Slurm and munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge >/dev/null
fi

planted="planted-max-clamps-at-zero"
cases=${MAX_CASES:-200000}
ops=max,sum,broadcast_add,relu,conv2d,dense,reshape,take,get_valid_counts,ov_strided_slice
fuzz=(--fuzz-targets worker_reply --fuzz-seconds 10 --fuzz-cpus 1)
if [ "$smoke" = 0 ]; then
  cases=$((cases * 10))
  fuzz=(--fuzz-targets all --fuzz-seconds 60 --fuzz-cpus 1)
fi
stopped=2
tmp=$(mktemp -d /tmp/cvmcheck-slurm-XXXXXX)
chmod 0755 "$tmp"  # munged runs as the munge user, in a folder below it
uninterrupted=""
finish() {
  if [ -n "$uninterrupted" ]; then kill "$uninterrupted" 2>/dev/null || true; wait || true; fi
  bash ci/slurm/cluster.sh stop "$tmp/cluster" || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap finish EXIT
echo "== a single-node Slurm cluster in $tmp/cluster"
bash ci/slurm/cluster.sh start "$tmp/cluster" --cpus 10 --requeue-delay 5 >/dev/null
export SLURM_CONF="$tmp/cluster/slurm.conf"
sinfo

echo "== a night: 4 shards of a campaign of $((4 * cases)) calls, ${fuzz[*]}"
# A fuzz corpus of its own: the night merges new inputs into it, never into corpus/.
cp -r corpus "$tmp/corpus"
store="$tmp/reports/findings.sqlite"
bash ci/slurm/night.sh --reports "$tmp/reports" --store "$store" --shards 4 --cpus-per-shard 2 \
  --seconds 600 --seed 20260 --signal-seconds 60 --bisect-seconds 0 --merge-cpus 1 \
  --planted "$planted" --cvm-runtime-worker none --corpus "$tmp/corpus" "${fuzz[@]}" -- \
  --ops "$ops" --backends "optimized,$planted" --max-cases "$((4 * cases))" --shrink-seconds 1 |
  tee "$tmp/submitted.txt"
night=$(sed -n 's/^night: //p' "$tmp/submitted.txt")
main_job=$(sed -n 's/^campaign main: .* job //p' "$tmp/submitted.txt")
merge_job=$(sed -n 's/^merge: job \([0-9]*\).*/\1/p' "$tmp/submitted.txt")

# The uninterrupted run of shard 2, here, while the night runs: the same options and bound.
args=()
# shellcheck source=/dev/null
source "$night/campaigns/main/campaign.env"
CVMCHECK_PLANTED=$planted build/bin/cvmcheck campaign "${args[@]}" --shard "$stopped/4" \
  --seconds 600 --quiet --report "$tmp/uninterrupted" >"$tmp/uninterrupted.log" 2>&1 &
uninterrupted=$!

echo "== requeue shard $stopped in the middle: once its first run has a repro of the planted bug"
first="$night/campaigns/main/shard-$stopped/attempt-0"
still_running() {
  if [ -f "$first/campaign.json" ] || [ -f "$night/merge.status" ]; then
    echo "ci/slurm.sh: shard $stopped ended before it could be requeued (more MAX_CASES?)" >&2
    exit 1
  fi
}
# At once: the planted bug shows within the first calls of the shard's 200,000, so the stop lands
# early in the run however fast the machine (a count decides the check, never the clock).
until compgen -G "$first/repros/*" >/dev/null; do still_running; sleep 0.5; done
still_running
scontrol requeue "${main_job}_$stopped"
echo "requeued ${main_job}_$stopped"

echo "== waiting for the merge job $merge_job"
# A guard against a hung cluster, never a verdict on speed: ten times the smoke's usual minute.
deadline=$((SECONDS + (smoke ? 600 : 3600)))
while [ ! -f "$night/merge.status" ] && [ $SECONDS -lt $deadline ]; do sleep 2; done
# Each task's runs (where and how each started, how it stopped), then the merge job's log.
grep -H -E "^main shard|^fuzz_|^cvmcheck campaign: (seed|resuming)|^stopped by|^calls" \
  "$night"/logs/main-*.out "$night"/logs/fuzz-*.out | sed "s|^$night/logs/||" || true
echo "--- merge.out"
cat "$night/logs/merge.out" || true
wait "$uninterrupted" || true
[ -f "$night/merge.status" ] || { echo "ci/slurm.sh: the night did not end in time" >&2; exit 1; }

echo "== checks"
python3 tools/cluster/check_night.py "$night" --shards 4 --store "$store" \
  --stopped-shard "$stopped" --uninterrupted "$tmp/uninterrupted" --planted "$planted"
# The merge job's status: 1, since the planted bug mismatched; anything else is a failure.
status=$(cat "$night/merge.status")
[ "$status" = 1 ] || { echo "ci/slurm.sh: the merge job exited $status, not 1" >&2; exit 1; }
echo "ci/slurm.sh: the night on Slurm passed its checks"
