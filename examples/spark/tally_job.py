"""A chessfmt statistics table made by Spark: the map runs `chessfmt tally` on each games
file (one task per file, in `mapPartitions`) writing a Parquet part, Spark reads the parts
(its own Parquet reader, no rows through Python), the reduce is
`groupBy(key, epd, move).agg(sum, ...)`, and the parts Spark writes (each sorted) are merged
by `chessfmt tally merge` into one table that `chessfmt polyglot from-tally` turns into a book.

    spark-submit tally_job.py --chessfmt /path/to/chessfmt --scratch /shared/tmp \
        --out ALL.parquet GAMES.pgn.zst...
    python tally_job.py --master 'local[2]' --chessfmt ... --out ALL.csv GAMES.pgn...

Inputs are PGN (plain, .gz, .zst, .xz) or lichess's Parquet files of games. `--scratch` must
be a folder every worker and the driver see (the map's parts are written there). Files are
numbered in the order given (`tally --part K`), so moves of equal weight keep the order one
`chessfmt polyglot build` over all the files gives. The key is an unsigned 64-bit column
(Spark reads it as DECIMAL(20,0)); the reduced parts store its 64 bits as a signed BIGINT,
which `chessfmt` reads back as the same key. See README.md for a cluster run.

Files are numbered in the order given (`tally --part K`), so moves of equal weight keep the
order one `chessfmt polyglot build` over all the files gives. See README.md for a cluster run.
"""

import argparse
from decimal import Decimal
import glob
import os
import shutil
import subprocess
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

COUNTS = [
    "white",
    "draws",
    "black",
    "games",
    "white_elo_sum",
    "white_elo_games",
    "black_elo_sum",
    "black_elo_games",
]
# A book's columns (`ctg to-tally`, `kvetka to-tally`): its bytes and whether a row is a book's.
BOOK = ["annotation", "recommendation", "commentary", "from_book"]


def tally_files(chessfmt, max_ply, threads, scratch):
    """The map of one partition: each (number, path) tallied by the CLI into a Parquet part
    in `scratch`; yields the parts' paths."""

    def run(items):
        for number, path in items:
            out = os.path.join(scratch, f"map-{number:05}.parquet")
            subprocess.run(
                [chessfmt, "tally", path, "-o", out, "--force", "--part", str(number),
                 "--max-ply", str(max_ply), "--threads", str(threads)],
                check=True,
                stderr=subprocess.DEVNULL,
            )
            yield out

    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chessfmt", required=True, help="the chessfmt binary (on every worker)")
    p.add_argument("--out", required=True, help="the merged table (.parquet: Parquet, else CSV)")
    p.add_argument("--scratch", help="a folder every worker sees (default: the system's)")
    p.add_argument("--master", help="e.g. local[2] (spark-submit sets it otherwise)")
    p.add_argument("--max-ply", type=int, default=1024)
    p.add_argument("--threads", type=int, default=1, help="threads of each tally task")
    p.add_argument("--partitions", type=int, default=8, help="parts of the reduced table")
    p.add_argument(
        "games", nargs="+", help="PGN files (.pgn, .gz, .zst, .xz) or Parquet games, in order"
    )
    args = p.parse_args()
    if len(args.games) >= 32768:
        p.error("at most 32,767 files (the part number is 15 bits here)")

    builder = SparkSession.builder.appName("chessfmt-tally")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    scratch = tempfile.mkdtemp(prefix="chessfmt-spark-", dir=args.scratch)
    try:
        files = [(i, os.path.abspath(path)) for i, path in enumerate(args.games)]
        maps = (
            spark.sparkContext.parallelize(files, len(files))
            .mapPartitions(
                tally_files(os.path.abspath(args.chessfmt), args.max_ply, args.threads, scratch)
            )
            .collect()
        )
        table = spark.read.parquet(*maps)
        reduced = table.groupBy("key", "epd", "move").agg(
            *[F.sum(c).cast("long").alias(c) for c in COUNTS],
            F.coalesce(
                F.min(F.when(F.col("first_year") > 0, F.col("first_year"))), F.lit(0)
            ).alias("first_year"),
            F.max("last_year").alias("last_year"),
            F.min("first_seen").alias("first_seen"),
            # A book's bytes: the largest; a row from a book stays one when summed.
            *[F.max(c).alias(c) for c in BOOK],
        )
        parts_dir = os.path.join(scratch, "parts")
        # Each part sorted as a table is (by the unsigned key), then the key's 64 bits stored
        # as a signed BIGINT; `tally merge` joins the parts in bounded memory.
        half, whole = F.lit(Decimal(2**63)), F.lit(Decimal(2**64))
        signed = F.when(F.col("key") >= half, F.col("key") - whole).otherwise(F.col("key"))
        (
            reduced.repartitionByRange(args.partitions, "key")
            .sortWithinPartitions("key", "epd", "move")
            .withColumn("key", signed.cast("long"))
            .write.parquet(parts_dir)
        )
        parts = sorted(glob.glob(os.path.join(parts_dir, "part-*.parquet")))
        subprocess.run(
            [args.chessfmt, "tally", "merge", *parts, "-o", args.out, "--force"], check=True
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
