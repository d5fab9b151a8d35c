# The prologue every comparison script in xtask/compare shares; each begins with
#     source "$(dirname "$0")/lib/common.sh"
# (`cargo xtask bench` runs only the scripts at the top of xtask/compare, not this one.)
# Afterwards: strict mode; the repository root is the working directory; `$work` is a fresh
# temporary folder removed on exit; and
#   corpus, gnuchess_pgn_xz   ../shared/corpus and gnuchess book_1.02.pgn (145,716 games) in it;
#   need PATH...              skips the comparison (exit 0, a line saying so) unless every
#                             PATH exists: the corpus is outside the repository;
#   build_release [PKG...]    this tree's release chessfmt, and the examples of each PKG;
#   bin, ex                   that chessfmt, and the folder of the examples;
#   chessfmt_bins [OTHER]     bins=(this tree's chessfmt [and the binary OTHER, a path from
#                             where the script was started]), for the scripts that
#                             alternate another build with this one;
#   gnuchess_pgn DEST         the gnuchess PGN decompressed to DEST;
#   machine_line              "machine: N cores, the CPU, the date", the first line of a result;
#   timer COMMAND...          COMMAND under GNU time: wall seconds and peak RSS on stderr;
#   measure WHO COMMAND...    COMMAND run in $work (its output to /dev/null) under GNU time,
#                             "wall peak" left in $work/WHO.time (WHO: peer or ours);
#   peer_job LABEL PEER       a line of the last measure of the peer (named PEER) and of
#                             ours: wall, peak, how much faster, and our share of its memory.
set -euo pipefail
started_in=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."

corpus=../shared/corpus
gnuchess_pgn_xz=$corpus/polyglot/pgn/gnuchess-book_1.02.pgn.xz
bin=$PWD/target/release/chessfmt
ex=$PWD/target/release/examples

need() {
    local path
    for path in "$@"; do
        if [ ! -e "$path" ]; then
            echo "compare: $path absent, skipped"
            exit 0
        fi
    done
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_release() {
    cargo build --release --locked -q -p chessfmt
    local package
    for package in "$@"; do
        cargo build --release --locked -q -p "$package" --examples
    done
}

chessfmt_bins() {
    bins=("$bin")
    if [ $# -ge 1 ]; then
        bins+=("$(cd "$started_in" && realpath "$1")")
    fi
}

gnuchess_pgn() {
    xz -dc "$gnuchess_pgn_xz" > "$1"
}

machine_line() {
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
}

timer() {
    /usr/bin/time -f "%e s wall, %M KiB peak RSS" "$@"
}

measure() {
    local who=$1
    shift
    (cd "$work" && /usr/bin/time -f "%e %M" -o "$work/$who.time" "$@" >/dev/null 2>&1)
}

peer_job() {
    local pw pm ow om
    read -r pw pm < "$work/peer.time"
    read -r ow om < "$work/ours.time"
    awk -v l="$1" -v p="$2" -v pw="$pw" -v pm="$pm" -v ow="$ow" -v om="$om" 'BEGIN {
        printf "  %-30s %s %6.2f s %6.1f MB | chessfmt %6.2f s %6.1f MB | %5.1fx faster, %3.0f %% of the memory\n",
            l, p, pw, pm / 1024, ow, om / 1024, pw / ow, 100 * om / pm }'
}
