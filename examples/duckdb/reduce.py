"""The reduce of a chessfmt statistics table in DuckDB: parts written by `chessfmt tally`
summed per (key, epd, move) with SQL, written as one table that `chessfmt polyglot
from-tally` (or any `from-tally`) turns into a book.

    python reduce.py ALL.csv PART.csv [PART.csv ...]
    python reduce.py ALL.parquet PART.parquet [PART.parquet ...]

Parts are CSV or Parquet (by name, all alike); the output is Parquet when its name ends in
`.parquet`, CSV otherwise.

The sums are those of `chessfmt tally merge`: counts added, the earliest first year that is
known (0 is none), the latest last year, the smallest first_seen (empty when unknown), the
largest of a book's bytes (annotation, recommendation, commentary) and whether any part's row
is a book's (from_book). Parts written before those columns existed lack them: reduce those
with the columns left out (or through `chessfmt tally merge`, which reads both forms).
"""

import sys

import duckdb

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

# A book's columns: its bytes (empty or NULL when none) and whether the row is a book's.
BOOK = ["annotation", "recommendation", "commentary", "from_book"]


def reduce(out, parts):
    con = duckdb.connect()
    if all(p.endswith(".parquet") for p in parts):
        # Parquet keeps the types: the key is an unsigned 64-bit integer, sorted as such.
        con.read_parquet(parts).create_view("parts")
        key, fmt = "key", "FORMAT parquet, COMPRESSION zstd"
    else:
        # The columns in the table's order (its header line); the key is 16 hex digits.
        types = {"key": "VARCHAR", "epd": "VARCHAR", "move": "VARCHAR"}
        types.update({c: "UBIGINT" for c in COUNTS})
        types.update(first_year="USMALLINT", last_year="USMALLINT", first_seen="UBIGINT")
        types.update({c: "UTINYINT" for c in BOOK})
        con.read_csv(parts, header=True, columns=types, delimiter=",", quotechar='"').create_view(
            "parts"
        )
        key, fmt = 'key COLLATE "binary"', "HEADER, DELIMITER ',', QUOTE ''"
    if out.endswith(".parquet"):
        fmt = "FORMAT parquet, COMPRESSION zstd"
    sums = ", ".join(f"sum({c})::UBIGINT AS {c}" for c in COUNTS)
    # The largest of each byte (NULL, none, where no row has one); 1 where any row is a book's.
    book = ", ".join(f"max({c}) AS {c}" for c in BOOK)
    con.execute(
        f"""
        COPY (
            SELECT key, epd, move, {sums},
                   coalesce(min(nullif(first_year, 0)), 0) AS first_year,
                   max(last_year) AS last_year,
                   min(first_seen) AS first_seen, {book}
            FROM parts
            GROUP BY key, epd, move
            ORDER BY {key}, epd COLLATE "binary", move COLLATE "binary"
        ) TO '{out}' ({fmt})
        """
    )


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    reduce(sys.argv[1], sys.argv[2:])
