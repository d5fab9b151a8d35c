#!/usr/bin/env bash
# The pgn-extract column (issue 34: hold the lead on every job a peer also does): a PGN read
# with every move of every game replayed and checked, gnuchess book_1.02.pgn (145,716 games,
# 86 MB), `pgn-extract -r -s` (report errors, extract nothing) against `chessfmt info`
# (games, plies, results, games skipped), alternating in each round, wall seconds and peak
# RSS (GNU time): on one pinned core (our pool at one thread) and on every core (pgn-extract
# has one thread). Then the two readers' answers compared: pgn-extract's games, results and
# plies (`--plycount`, summed from the games it writes) against `chessfmt info --json`.
# COMPARE_RUNS=N rounds (default 2). Skipped (exit 0, a line saying so) without pgn-extract
# (Debian `pgn-extract`, installed in /usr/games) or ../shared/corpus.
source "$(dirname "$0")/lib/common.sh"
need "$gnuchess_pgn_xz"
pe=$(PATH=$PATH:/usr/games command -v pgn-extract || true)
if [ -z "$pe" ]; then
    echo "compare: pgn-extract absent (apt-get install pgn-extract), skipped"
    exit 0
fi
runs=${COMPARE_RUNS:-2}
build_release
gnuchess_pgn "$work/book.pgn"
machine_line
echo "peer: $("$pe" --version 2>&1 | head -1)"
for r in $(seq "$runs"); do
    echo "== round $r"
    measure peer taskset -c 0 "$pe" -r -s book.pgn
    measure ours env RAYON_NUM_THREADS=1 taskset -c 0 "$bin" info book.pgn
    peer_job "check, one core" pgn-extract
    measure peer "$pe" -r -s book.pgn
    measure ours "$bin" info book.pgn
    peer_job "check, $(nproc) cores" pgn-extract
done
echo "== the same games, results and plies"
(cd "$work" && "$pe" -s --plycount -o pe.pgn book.pgn 2>/dev/null)
theirs=$(awk '
    /^\[Event /    { games++ }
    /^\[Result /   { r[$2]++ }
    /^\[PlyCount / { gsub(/[^0-9]/, "", $2); plies += $2 }
    END { printf "games %d plies %d white %d black %d draws %d unknown %d",
          games, plies, r["\"1-0\"]"], r["\"0-1\"]"], r["\"1/2-1/2\"]"], r["\"*\"]"] }' "$work/pe.pgn")
ours=$("$bin" info "$work/book.pgn" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
keys = ("games", "plies", "white_wins", "black_wins", "draws", "unknown_results")
print("games %d plies %d white %d black %d draws %d unknown %d" % tuple(j[k] for k in keys))')
echo "  pgn-extract: $theirs"
echo "  chessfmt:    $ours"
if [ "$theirs" = "$ours" ]; then
    echo "  the same"
else
    echo "  DIFFERENT"
    exit 1
fi
