#!/usr/bin/env bash
# Submits a night to a Slurm cluster (docs/nightly.md, "On a cluster"), from a checkout on the
# shared file system that every node sees:
#   - the main campaign as a job array of N shards (`campaign --shard K/N`, one seed), each task
#     CPUS cores (its --jobs); optional GPU shards (--gres=gpu:1) of the cuda backends, and the
#     original runtime's nights (one campaign per device) where its worker is built;
#   - fuzz tasks, one per target: libFuzzer's fork mode on a copy of the corpus, then -merge=1
#     into the shared corpus;
#   - one job after all of them (afterany) that merges every report (`cvmcheck merge`), records
#     the night in the findings store (the store is written by that job alone: SQLite over a
#     network file system is not safe for concurrent writers), builds the page and bisects the
#     new findings (ci/slurm/merge.sh).
# Every campaign and fuzz task is submitted --requeue with SIGTERM SIGNAL_SECONDS before its
# time limit; a stopped shard's report is where its requeued run goes on (ci/slurm/shard.sh).
# Prints the night's folder and its job ids; with --wait, waits for the merge job and exits with
# its status (the campaigns': 1 on a mismatch).
# Options (defaults in brackets):
#   --reports DIR          reports folder on the shared file system [reports/slurm]; the night
#                          goes to DIR/night-UTCTIME-seedS, the page's history to DIR/history
#   --store FILE           the findings store [DIR/findings.sqlite]
#   --partition P, --account A, --qos Q   of every job [the cluster's defaults]
#   --gpu-partition P      of the GPU jobs [--partition]
#   --time T               time limit of each campaign and fuzz task, as sbatch takes it
#                          [SECONDS + 10 minutes]
#   --shards N [4]  --seconds S [1800]  --cpus-per-shard C [1]  --seed S [random]
#   --gpu-shards G [0]     shards of cuda and its variants, on GPU nodes
#   --fuzz-targets LIST    comma-separated, `all` for every target, `none` [all]
#   --fuzz-seconds S [SECONDS]  --fuzz-cpus C [2]  --corpus DIR [corpus/ of the checkout]
#   --cvm-runtime-worker PATH  the original runtime's worker [build-cvm-runtime/bin/
#                          cvm-runtime-worker where built; none: no such nights]
#   --cvm-runtime-devices LIST [formal,cpu]  (gpu: on GPU nodes)  --cvm-runtime-shards R [1]
#   --signal-seconds S [120]  --bisect-seconds S [1800; 0: none]  --merge-cpus C [2]
#   --planted NAMES        CVMCHECK_PLANTED for the campaign shards (a check of the night itself)
#   --sbatch-option OPT    one more sbatch option for every job (repeatable)
#   --merge-option OPT     one more sbatch option for the merge job (repeatable), e.g.
#                          --nodelist=NODE where the store is on that node's disk
#   --no-build             take the binaries as they are built
#   --wait                 wait for the merge job and exit with its status
#   -- ARGS                more `cvmcheck campaign` options for the main campaign's shards
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/ci/slurm"
cd "$root"

die() { echo "ci/slurm/night.sh: $*" >&2; exit 2; }

reports=reports/slurm store="" partition="" account="" qos="" gpu_partition="" time_limit=""
shards=4 seconds=1800 cpus=1 seed="" gpu_shards=0 fuzz_targets=all fuzz_seconds="" fuzz_cpus=2
corpus="$root/corpus" worker=default devices=formal,cpu worker_shards=1 signal_seconds=120
bisect_seconds=1800 merge_cpus=2 planted="" build=1 wait=0
sbatch_extra=() merge_extra=() campaign_extra=()
while [ $# -gt 0 ]; do
  opt=$1
  case "$opt" in
    --no-build) build=0; shift; continue ;;
    --wait) wait=1; shift; continue ;;
    --) shift; campaign_extra=("$@"); break ;;
  esac
  [ $# -ge 2 ] || die "$opt wants a value (see the head of this script)"
  case "$opt" in
    --reports) reports=$2 ;;             --store) store=$2 ;;
    --partition) partition=$2 ;;         --account) account=$2 ;;
    --qos) qos=$2 ;;                     --gpu-partition) gpu_partition=$2 ;;
    --time) time_limit=$2 ;;             --shards) shards=$2 ;;
    --seconds) seconds=$2 ;;             --cpus-per-shard) cpus=$2 ;;
    --seed) seed=$2 ;;                   --gpu-shards) gpu_shards=$2 ;;
    --fuzz-targets) fuzz_targets=$2 ;;   --fuzz-seconds) fuzz_seconds=$2 ;;
    --fuzz-cpus) fuzz_cpus=$2 ;;         --corpus) corpus=$2 ;;
    --cvm-runtime-worker) worker=$2 ;;   --cvm-runtime-devices) devices=$2 ;;
    --cvm-runtime-shards) worker_shards=$2 ;;
    --signal-seconds) signal_seconds=$2 ;;
    --bisect-seconds) bisect_seconds=$2 ;;
    --merge-cpus) merge_cpus=$2 ;;       --planted) planted=$2 ;;
    --sbatch-option) sbatch_extra+=("$2") ;;
    --merge-option) merge_extra+=("$2") ;;
    *) die "unknown option $opt (see the head of this script)" ;;
  esac
  shift 2
done
for n in shards seconds cpus gpu_shards fuzz_cpus worker_shards signal_seconds bisect_seconds \
         merge_cpus; do
  [[ "${!n}" =~ ^[0-9]+$ ]] || die "--${n//_/-} wants a whole number, got '${!n}'"
done
[ "$shards" -ge 1 ] || die "--shards wants at least 1"
fuzz_seconds=${fuzz_seconds:-$seconds}
[[ "$fuzz_seconds" =~ ^[0-9]+$ ]] || die "--fuzz-seconds wants a whole number"
seed=${seed:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
command -v sbatch >/dev/null || die "sbatch not found (a Slurm client, and SLURM_CONF where needed)"

# The fuzz targets, one task each.
targets=()
case "$fuzz_targets" in
  none) ;;
  all) mapfile -t targets < <(bash ci/fuzz-targets.sh) ;;
  *) IFS=, read -r -a targets <<<"$fuzz_targets" ;;
esac

# The original runtime's worker, where it is built.
[ "$worker" != default ] || worker="$root/build-cvm-runtime/bin/cvm-runtime-worker"
[ "$worker" = none ] || [ -x "$worker" ] || worker=none

# The fuzz targets' build, as ci/fuzz-build.sh chooses it (CVMCHECK_FUZZ_PRESET).
case "${CVMCHECK_FUZZ_PRESET:-fuzz}" in
  asan-ubsan) fuzz_dir="build-asan" ;;
  *) fuzz_dir="build-fuzz" ;;
esac
if [ "$build" = 1 ]; then
  bash ci/build.sh release cvmcheck >/dev/null
  if [ ${#targets[@]} -gt 0 ]; then
    # shellcheck disable=SC2034  # read by ci/fuzz-build.sh
    mapfile -t fuzz_build_targets < <(printf 'fuzz_%s\n' "${targets[@]}")
    source ci/fuzz-build.sh
  fi
fi
fuzz_bin="$root/$fuzz_dir/bin"
cvmcheck="$root/build/bin/cvmcheck"
[ -x "$cvmcheck" ] || die "$cvmcheck is not built (bash ci/build.sh release cvmcheck)"
for t in "${targets[@]}"; do
  [ -x "$fuzz_bin/fuzz_$t" ] || die "$fuzz_bin/fuzz_$t is not built"
done

mkdir -p "$reports"
reports=$(cd "$reports" && pwd)
store=${store:-$reports/findings.sqlite}
mkdir -p "$(dirname "$store")"
store="$(cd "$(dirname "$store")" && pwd)/$(basename "$store")"
if [ -d "$corpus" ]; then corpus=$(cd "$corpus" && pwd); fi
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]] || commit="$commit+changes"
night="$reports/night-$(date -u +%Y%m%dT%H%M%SZ)-seed$seed"
history="$reports/history"
mkdir -p "$night/logs" "$night/campaigns" "$night/fuzz/artifacts"
declare -p root cvmcheck seed commit seconds store night history bisect_seconds fuzz_bin \
  corpus fuzz_seconds planted >"$night/night.env"

# sbatch's options for every job, then per kind of job.
common=(--parsable --chdir "$root" --open-mode append)
[ -z "$partition" ] || common+=(--partition "$partition")
[ -z "$account" ] || common+=(--account "$account")
[ -z "$qos" ] || common+=(--qos "$qos")
common+=(${sbatch_extra[@]+"${sbatch_extra[@]}"})
gpu=(--gres gpu:1)
[ -z "$gpu_partition" ] || gpu+=(--partition "$gpu_partition")
task_time() {  # SECONDS: --time, or the time box with 10 minutes to start, shrink and report
  echo "${time_limit:-$(( ($1 + 600 + 59) / 60 ))}"
}
preemptible=(--requeue --signal "B:TERM@$signal_seconds")

# campaign NAME SHARDS CPUS [sbatch options ...] -- campaign options: one array of shards.
jobs=()
campaign() {
  local name=$1 shards=$2 task_cpus=$3 sbatch_opts=() args
  shift 3
  while [ "$1" != -- ]; do sbatch_opts+=("$1"); shift; done
  shift
  args=(--seed "$seed" --commit "$commit" --jobs "$task_cpus" "$@")
  mkdir -p "$night/campaigns/$name"
  declare -p shards args >"$night/campaigns/$name/campaign.env"
  jobs+=("$(sbatch "${common[@]}" "${preemptible[@]}" --job-name "cvmcheck-$name" \
    --array "1-$shards" --cpus-per-task "$task_cpus" --time "$(task_time "$seconds")" \
    --output "$night/logs/$name-%a.out" ${sbatch_opts[@]+"${sbatch_opts[@]}"} \
    "$here/shard.sh" "$night" "$name")")
  echo "campaign $name: $shards shards, job ${jobs[-1]}"
}

campaign main "$shards" "$cpus" -- ${campaign_extra[@]+"${campaign_extra[@]}"}
if [ "$gpu_shards" -gt 0 ]; then
  campaign gpu "$gpu_shards" "$cpus" "${gpu[@]}" -- \
    --backends cuda,cuda@tile,cuda@warp,cuda@split,cuda@nms8,cuda/simple
fi
if [ "$worker" != none ]; then
  lists="$root/adapters/cvm-runtime"
  IFS=, read -r -a device_list <<<"$devices"
  for d in "${device_list[@]}"; do
    b="cvm-runtime-$d"
    xfail=(--xfail-for "$b=$lists/known-differences.txt")
    [ ! -f "$lists/known-$d.txt" ] || xfail+=(--xfail-for "$b=$lists/known-$d.txt")
    where=()
    if [ "$d" = gpu ]; then where=("${gpu[@]}"); xfail+=(--worker-memory 0); fi
    campaign "$b" "$worker_shards" "$cpus" ${where[@]+"${where[@]}"} -- \
      --backend-def "$b=$worker --device $d" --backends "$b" --call-timeout 20 "${xfail[@]}"
  done
fi
if [ ${#targets[@]} -gt 0 ]; then
  printf '%s\n' "${targets[@]}" >"$night/fuzz/targets.txt"
  jobs+=("$(sbatch "${common[@]}" "${preemptible[@]}" --job-name cvmcheck-fuzz \
    --array "1-${#targets[@]}" --cpus-per-task "$fuzz_cpus" --time "$(task_time "$fuzz_seconds")" \
    --output "$night/logs/fuzz-%a.out" "$here/fuzz.sh" "$night")")
  echo "fuzz: ${#targets[@]} targets, job ${jobs[-1]}"
fi

# The merge job: after every task, whatever its end; one at a time per store (singleton: the
# jobs of one name and user run one after another), so that two nights never write it at once.
store_job="cvmcheck-store-$(printf '%s' "$store" | md5sum | cut -c1-12)"
dependency="afterany:$(IFS=:; echo "${jobs[*]}"),singleton"
merge_job=$(sbatch "${common[@]}" --no-requeue --job-name "$store_job" --dependency "$dependency" \
  --cpus-per-task "$merge_cpus" --time "$(( (bisect_seconds + 1800 + 59) / 60 ))" \
  --output "$night/logs/merge.out" ${merge_extra[@]+"${merge_extra[@]}"} "$here/merge.sh" "$night")
echo "merge: job $merge_job (after ${jobs[*]}), store $store"
echo "night: $night"
[ "$wait" = 1 ] || exit 0
while [ ! -f "$night/merge.status" ] && [ -n "$(squeue -h -j "$merge_job" -o %i 2>/dev/null)" ]; do
  sleep 5
done
cat "$night/logs/merge.out" 2>/dev/null || true
[ -f "$night/merge.status" ] || die "the merge job $merge_job ended without a status"
exit "$(cat "$night/merge.status")"
