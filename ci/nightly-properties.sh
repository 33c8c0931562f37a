#!/usr/bin/env bash
# Nightly: the property suite with a large case budget and a fresh random seed, then a long
# campaign. Both seeds are printed so a failure replays:
#   RC_PARAMS="seed=S" CVMCHECK_PROP_CASES=N build/bin/cvmcheck_tests --gtest_filter='*OpProperty*'
#   build/bin/cvmcheck campaign --seed S ...
# Usage: ci/nightly-properties.sh [CASES] [CAMPAIGN_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-5000}"
seconds="${2:-3600}"
bash ci/build.sh release >/dev/null
seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
echo "== properties: ${cases} cases per property, RC_PARAMS=seed=${seed}"
status=0
RC_PARAMS="seed=${seed}" CVMCHECK_PROP_CASES="${cases}" \
  build/bin/cvmcheck_tests --gtest_filter='*OpProperty*' --gtest_brief=1 || status=1
echo "== campaign: ${seconds} s"
build/bin/cvmcheck campaign --seconds "${seconds}" --report reports/nightly --quiet || status=1
exit "${status}"
