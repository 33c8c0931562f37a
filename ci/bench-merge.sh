#!/usr/bin/env bash
# The merge of a night's shards (cvmcheck merge, docs/nightly.md "Merging shards"): its wall and
# CPU time and peak memory (/usr/bin/time) at 16, 64 and 256 shard reports of one campaign, made from
# real ones. Four real shards of one seed run first (every operator, the default backends and
# every planted-bug backend, so the reports hold findings with repros, SECONDS each, one job);
# each of the N reports is then shard K of N made from real shard K mod 4: its shard, its
# findings' call indices and repro paths renamed as shard K's, some findings left out and the
# others' calls scaled, so that the signatures' groups differ from shard to shard.
#
#   bash ci/bench-merge.sh [SECONDS] [OUT]      (default 20, build/bench-merge; needs build/bin/cvmcheck)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
out=${2:-build/bench-merge}
bin=build/bin/cvmcheck
[[ -x $bin ]] || { echo "bench-merge: build $bin first (bash ci/build.sh release)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench-merge: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/real"
for k in 1 2 3 4; do
  # Exit 1: the planted bugs are found, which is what the reports are for.
  CVMCHECK_PLANTED=all "$bin" campaign --shard "$k/4" --seed 4242 --seconds "$seconds" --jobs 1 \
    --shrink-seconds 0 --quiet --allow-unreached-paths --allow-nothing-compared \
    --report "$out/real/shard-$k" > "$out/real/shard-$k.txt" 2>&1 || true
  [[ -s $out/real/shard-$k/campaign.json ]] || { cat "$out/real/shard-$k.txt"; exit 1; }
done
echo "real shards: $(du -sh "$out/real" | cut -f1); campaign.json sizes (bytes):" \
  "$(stat -c %s "$out"/real/shard-*/campaign.json | tr '\n' ' ')"

# Shard K (1-based) of N from real shard (K-1) mod 4 (argv: real folder, out folder, N).
make_shards() {
  python3 - "$@" <<'PY'
import json, os, random, sys
real, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
bases = [json.load(open(os.path.join(real, f"shard-{j}", "campaign.json"))) for j in range(1, 5)]
rng = random.Random(n)
for k in range(n):
    r = json.loads(json.dumps(bases[k % 4]))
    r["shard"] = f"{k + 1}/{n}"
    folder = os.path.join(out, f"shard-{k + 1}")
    kept = []
    for f in r["findings"]:
        if len(bases[k % 4]["findings"]) > 1 and rng.random() < 0.2:
            continue
        f["first_index"] = f["first_index"] // 4 * n + k
        f["calls"] = max(1, int(f["calls"] * rng.uniform(0.5, 1.5)))
        f["repro_dirs"] = [os.path.join(folder, "repros", os.path.basename(d)) for d in f["repro_dirs"]]
        f["repro_dir"] = f["repro_dirs"][0] if f["repro_dirs"] else ""
        kept.append(f)
    r["findings"] = kept
    r["seconds"] = r["seconds"] * rng.uniform(0.9, 1.1)
    os.makedirs(folder)
    with open(os.path.join(folder, "campaign.json"), "w") as f:
        json.dump(r, f, indent=2)
PY
}

# Each merge three times; the median of the wall and CPU (user + system) seconds, the largest
# peak resident memory.
printf '%-7s %-8s %-8s %-9s %s\n' shards wall_s cpu_s peak_MiB "inputs_MiB (campaign.json, all shards)"
for n in 16 64 256; do
  make_shards "$out/real" "$out/n$n" "$n"
  walls=() cpus=() peak=0
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %U %S %M' -o "$out/time-$n.txt" "$bin" merge --quiet \
      --report "$out/merged-$n" "$out/n$n"/shard-* > "$out/merge-$n.txt" 2>&1 || true
    grep -q "merged $n of $n shards" "$out/merge-$n.txt" || { cat "$out/merge-$n.txt"; exit 1; }
    read -r wall user sys rss < <(tail -1 "$out/time-$n.txt")
    walls+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
    (( rss > peak )) && peak=$rss
  done
  median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
  bytes=$(cat "$out/n$n"/shard-*/campaign.json | wc -c)
  printf '%-7s %-8s %-8s %-9s %s\n' "$n" "$(median "${walls[@]}")" "$(median "${cpus[@]}")" \
    "$((peak / 1024))" "$((bytes / 1048576))"
done
