# shellcheck shell=bash
# What a build says while it runs (sourced by ci/build.sh, so by every script that builds): its
# output goes to a log, and stderr shows how far it is: on a terminal one line that updates in
# place, else (a CI log) a line at each tenth of the steps; on failure the log's path and its
# lines from the first failed step. Ninja names each step "[finished/total] " as it ends
# (NINJA_STATUS below; its output is a pipe, so it prints one line per step).

# "42 s", "4 min 05 s"
build_elapsed() {
  if (($1 < 60)); then
    printf '%d s' "$1"
  else
    printf '%d min %02d s' $(($1 / 60)) $(($1 % 60))
  fi
}

# build_progress_lines LABEL START: copies stdin (a build's output) to stdout and, for each of
# ninja's "[n/N] " lines, says on stderr "LABEL: n/N steps (P%), ELAPSED" since START ($SECONDS).
build_progress_lines() {
  local label=$1 start=$2 line finished total percent shown=-1 tty=false last_total=0
  [[ -t 2 ]] && tty=true
  while IFS= read -r line || [[ -n $line ]]; do
    printf '%s\n' "$line"
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\  ]] || continue
    # CMake's own steps (the check of its globs, a configure run again) are not the build's.
    [[ $line == *"Re-checking globbed directories"* || $line == *"Re-running CMake"* ]] && continue
    finished=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
    ((total > 0)) || continue
    # A new count (ninja starting again after CMake re-ran its configure) starts the tenths anew.
    if ((total != last_total)); then
      last_total=$total
      shown=-1
    fi
    percent=$((finished * 100 / total))
    if $tty; then
      printf '\r%s: %d/%d steps (%d%%), %s   ' "$label" "$finished" "$total" "$percent" \
        "$(build_elapsed $((SECONDS - start)))" >&2
    elif ((percent / 10 > shown)); then
      shown=$((percent / 10))
      printf '%s: %d/%d steps (%d%%), %s\n' "$label" "$finished" "$total" "$percent" \
        "$(build_elapsed $((SECONDS - start)))" >&2
    fi
  done
  # The terminal's updating line ends before what comes next.
  if $tty && ((last_total > 0)); then printf '\n' >&2; fi
  return 0
}

# build_failure_report LABEL LOG: the log's path, and its lines from ninja's first "FAILED:"
# (the failed step's command and its errors), or its last lines when no step failed (cmake's
# configure step), at most 40.
build_failure_report() {
  local label=$1 log=$2 first lines
  lines=$(wc -l <"$log")
  first=$(grep -n -m 1 '^FAILED: ' "$log" | cut -d: -f1 || true)
  [[ -n $first ]] || first=$((lines > 40 ? lines - 39 : 1))
  echo "$label: failed; the log is $log (line $first on):" >&2
  sed -n "${first},$((first + 39))p" "$log" | sed 's/^/  | /' >&2
  if ((lines > first + 39)); then
    echo "  ... $((lines - first - 39)) more lines in $log" >&2
  fi
}

# logged_build LABEL LOG COMMAND [ARG...]: runs COMMAND (cmake's configure or build step, or
# ninja) with its output appended to LOG and its progress on stderr; on failure the report
# above. Returns COMMAND's status.
logged_build() {
  local label=$1 log=$2 status=0
  shift 2
  (
    set -o pipefail
    NINJA_STATUS='[%f/%t] ' "$@" 2>&1 | build_progress_lines "$label" "$SECONDS" >>"$log"
  ) || status=$?
  if ((status != 0)); then build_failure_report "$label" "$log"; fi
  return "$status"
}
