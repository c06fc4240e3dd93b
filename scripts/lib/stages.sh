# Sourced by scripts/test.sh, scripts/test-reliability.sh and .ci/run: the stages of a run, each
# with its time.
#
#   stage NAME COMMAND...   runs COMMAND under a "== NAME ==" heading, then prints
#                           "-- NAME: N s" (and its exit status when it failed); returns its status
#   stage_summary           the table of every stage run so far with their total
#
# The times go to the file $NFT_STAGE_TIMES (one "seconds<TAB>status<TAB>name" line per stage),
# created here when unset, so that .ci/run's summary includes the stages of the scripts it calls.

nft_stage_times_owner=0
if [ -z "${NFT_STAGE_TIMES:-}" ]; then
  NFT_STAGE_TIMES="$(mktemp "${TMPDIR:-/tmp}/nft-stages.XXXXXX")"
  export NFT_STAGE_TIMES
  nft_stage_times_owner=1  # removed by stage_summary
fi

stage() {
  local name="$1"
  shift
  echo "== $name =="
  local start=$SECONDS status=0
  "$@" || status=$?
  local took=$((SECONDS - start))
  if [ "$status" -eq 0 ]; then
    echo "-- $name: $took s"
  else
    echo "-- $name: $took s, failed (exit status $status)"
  fi
  printf '%d\t%d\t%s\n' "$took" "$status" "$name" >>"$NFT_STAGE_TIMES"
  return "$status"
}

stage_summary() {
  if [ -s "$NFT_STAGE_TIMES" ]; then
    echo "== Stage times =="
    awk -F'\t' '{ printf "%6d s  %s%s\n", $1, $3, ($2 != 0 ? "  (failed)" : ""); total += $1 }
                END { printf "%6d s  total (%d min %d s)\n", total, total / 60, total % 60 }' "$NFT_STAGE_TIMES"
  fi
  if [ "$nft_stage_times_owner" = 1 ]; then rm -f "$NFT_STAGE_TIMES"; fi
}
