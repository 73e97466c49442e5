# bench/timing.sh: sourced by the bench scripts. Whole-command wall times and their medians.
# Needs `repeat` set by the caller.
now_ms() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# timed CMD...: wall ms of CMD (its output and status ignored), median of $repeat runs
timed() {
  for _ in $(seq "$repeat"); do
    local t0; t0=$(now_ms)
    "$@" >/dev/null 2>&1 || true
    echo $(( $(now_ms) - t0 ))
  done | median
}
# ratio A B: A / B
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print a / b}'; }
# alternate F...: the median wall ms of each command F (a function or binary, no arguments), the
# commands run in turn $repeat times over, so drift in the machine (clocks, caches, other load)
# falls on every side alike; prints the medians space-separated, in F's order.
alternate() {
  local n=$# i f t0 d
  d=$(mktemp -d)
  for _ in $(seq "$repeat"); do
    i=0
    for f in "$@"; do
      t0=$(now_ms)
      "$f" >/dev/null 2>&1 || true
      echo $(( $(now_ms) - t0 )) >> "$d/$i"
      i=$((i + 1))
    done
  done
  for ((i = 0; i < n; i++)); do median < "$d/$i"; done | paste -sd' '
  rm -rf "$d"
}
