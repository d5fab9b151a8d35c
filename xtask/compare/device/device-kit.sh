#!/usr/bin/env bash
# Makes the folder that `scaling-threads.sh` runs from on a machine without a Rust toolchain
# (the lent 16-core device machine; not run by `cargo xtask bench`, which runs the scripts
# of xtask/compare itself): release binaries, stripped (chessfmt and the peers'
# examples: cbvault's export and walk, montyformat's writer and reader, the database
# repeater), twic1134 and gnuchess `book_1.02.pgn.xz` from ../shared/corpus, and the script
# itself. About 28 MB: under the device's 64 MiB for what travels.
#
# usage: device-kit.sh [KIT]   (default target/device-kit, ignored by git)
# env: BUILDS_ONLY=1 (chessfmt and the PGN only: for `BUILDS_ONLY=1 scaling-threads.sh`),
#   OLD_BIN=PATH (an older chessfmt, copied stripped as `chessfmt-old`: for `OLD=chessfmt-old`).
# then, with the device tool: run with carry ["target/device-kit"] and the command
#   bash target/device-kit/scaling-threads.sh target/device-kit
set -euo pipefail
cd "$(dirname "$0")/../../.."
kit=${1:-target/device-kit}
corpus=../shared/corpus
twic=$corpus/chessbase/uncbv-tests/twic1134
pgn=$corpus/polyglot/pgn/gnuchess-book_1.02.pgn.xz
[ -d "$twic" ] && [ -f "$pgn" ] || { echo "device-kit: ../shared/corpus absent" >&2; exit 1; }
cargo build --release --locked -q -p chessfmt
rm -rf "$kit"
mkdir -p "$kit"
strip -o "$kit/chessfmt" target/release/chessfmt
[ -z "${OLD_BIN:-}" ] || strip -o "$kit/chessfmt-old" "$OLD_BIN"
if [ "${BUILDS_ONLY:-0}" != 1 ]; then
    cargo build --release --locked -q -p chessbase-db --examples
    cargo build --release --locked -q -p selfplay-format --examples
    mkdir -p "$kit/twic1134"
    for e in cbvault_export cbvault_walk repeat_database monty_generate monty_read; do
        strip -o "$kit/$e" "target/release/examples/$e"
    done
    cp "$twic"/* "$kit/twic1134/"
fi
cp "$pgn" "$kit/book.pgn.xz"
cp xtask/compare/device/scaling-threads.sh "$kit/"
du -sh "$kit"
