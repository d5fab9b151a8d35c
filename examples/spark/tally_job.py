"""A chessfmt statistics table made by Spark: the map runs `chessfmt tally` on each PGN file
(one task per file, in `mapPartitions`), the reduce is Spark's
`groupBy(key, epd, move).agg(sum, ...)`, and the parts Spark writes (each sorted) are merged
by `chessfmt tally merge` into one table that `chessfmt polyglot from-tally` turns into a book.

    spark-submit tally_job.py --chessfmt /path/to/chessfmt --out ALL.csv GAMES.pgn...
    python tally_job.py --master 'local[2]' --chessfmt ... --out ALL.csv GAMES.pgn...

Files are numbered in the order given (`tally --part K`), so moves of equal weight keep the
order one `chessfmt polyglot build` over all the files gives. See README.md for a cluster run.
"""

import argparse
import glob
import os
import shutil
import subprocess
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

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

SCHEMA = T.StructType(
    [
        T.StructField("key", T.StringType()),
        T.StructField("epd", T.StringType()),
        T.StructField("move", T.StringType()),
    ]
    + [T.StructField(c, T.LongType()) for c in COUNTS]
    + [
        T.StructField("first_year", T.IntegerType()),
        T.StructField("last_year", T.IntegerType()),
        # Parts are numbered below 32,768: first_seen fits a signed 64-bit column.
        T.StructField("first_seen", T.LongType()),
    ]
)


def tally_files(chessfmt, max_ply, threads):
    """The map of one partition: each (number, path) tallied by the CLI, its rows parsed."""

    def run(items):
        for number, path in items:
            with tempfile.TemporaryDirectory() as scratch:
                out = os.path.join(scratch, "part.csv")
                subprocess.run(
                    [chessfmt, "tally", path, "-o", out, "--part", str(number),
                     "--max-ply", str(max_ply), "--threads", str(threads)],
                    check=True,
                    stderr=subprocess.DEVNULL,
                )
                with open(out, encoding="utf-8") as table:
                    next(table)  # the header
                    for line in table:
                        f = line.rstrip("\n").split(",")
                        yield (
                            f[0], f[1], f[2], *(int(x) for x in f[3:11]),
                            int(f[11]), int(f[12]), int(f[13]) if f[13] else None,
                        )

    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chessfmt", required=True, help="the chessfmt binary (on every worker)")
    p.add_argument("--out", required=True, help="the merged table (CSV)")
    p.add_argument("--master", help="e.g. local[2] (spark-submit sets it otherwise)")
    p.add_argument("--max-ply", type=int, default=1024)
    p.add_argument("--threads", type=int, default=1, help="threads of each tally task")
    p.add_argument("--partitions", type=int, default=8, help="parts of the reduced table")
    p.add_argument("pgn", nargs="+", help="PGN files (.pgn, .gz, .zst, .xz), in order")
    args = p.parse_args()
    if len(args.pgn) >= 32768:
        p.error("at most 32,767 files (the part number is 15 bits here)")

    builder = SparkSession.builder.appName("chessfmt-tally")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    files = [(i, os.path.abspath(path)) for i, path in enumerate(args.pgn)]
    rows = spark.sparkContext.parallelize(files, len(files)).mapPartitions(
        tally_files(os.path.abspath(args.chessfmt), args.max_ply, args.threads)
    )
    table = spark.createDataFrame(rows, SCHEMA)
    reduced = table.groupBy("key", "epd", "move").agg(
        *[F.sum(c).alias(c) for c in COUNTS],
        F.coalesce(F.min(F.when(F.col("first_year") > 0, F.col("first_year"))), F.lit(0)).alias(
            "first_year"
        ),
        F.max("last_year").alias("last_year"),
        F.min("first_seen").alias("first_seen"),
    )
    scratch = tempfile.mkdtemp(prefix="chessfmt-spark-")
    try:
        parts_dir = os.path.join(scratch, "parts")
        # Each part sorted as a table is; `tally merge` joins them in bounded memory.
        (
            reduced.repartitionByRange(args.partitions, "key")
            .sortWithinPartitions("key", "epd", "move")
            .write.csv(parts_dir, header=True)
        )
        parts = sorted(glob.glob(os.path.join(parts_dir, "part-*.csv")))
        subprocess.run(
            [args.chessfmt, "tally", "merge", *parts, "-o", args.out, "--force"], check=True
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
