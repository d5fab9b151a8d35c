#!/usr/bin/env python3
"""Writes python-chess-expectations.tsv: python-chess's find_all() answers on the real books of
../shared/corpus/polyglot/books (positions its own tests use, a breadth-first sample of each
book's tree, and every sampled position where a king-takes-rook entry appears).

Run from the repository root with `pip install chess` (python-chess 1.11):
    python3 testdata/polyglot/make-expectations.py > testdata/polyglot/python-chess-expectations.tsv
"""
import collections
import chess
import chess.polyglot

BOOKS = "../shared/corpus/polyglot/books/"
SAMPLE = 150
CASTLE_RAW = {0x0107, 0x0100, 0x0F3F, 0x0F38}

FIXED = {
    "python-chess-lasker-trap.bin": [
        "rnbqk1nr/ppp2ppp/8/4P3/1BP5/8/PP2KpPP/RN1Q1BNR b kq - 1 7",
    ],
    "python-chess-performance.bin": [
        "r2q1rk1/4bppp/p2p1n2/np5b/3BP1P1/5N1P/PPB2P2/RN1QR1K1 b - - 0 15",
        "r1bqr1k1/pp1nbppp/2p2n2/3p2B1/3P4/2NBP3/PPQ1NPPP/R3K2R w KQ - 6 10",
        "r3k1nr/1pp1q1pp/p1pb1p2/4p3/3PP1b1/2P1BN2/PP1N1PPP/R2Q1RK1 b kq - 4 9",
        "1r1qr1k1/1b2bp1n/p2p2pB/1pnPp2p/P1p1P3/R1P2NNP/1PBQ1PP1/4R1K1 w - - 0 1",
    ],
}


def row(book, board, reader):
    entries = list(reader.find_all(board, minimum_weight=0))
    moves = " ".join(f"{e.move.uci()}:{e.weight}:{e.learn}:{e.raw_move}" for e in entries)
    return f"{book}\t{board.fen()}\t{moves}"


def main():
    print("book\tfen\tmoves (uci:weight:learn:raw, in book order)")
    for book in sorted(
        ["gnuchess-book_1.02.bin", "pychess-1.0.3-book.bin", "python-chess-performance.bin",
         "python-chess-lasker-trap.bin"]
    ):
        seen = set()
        rows = []
        with chess.polyglot.open_reader(BOOKS + book) as reader:
            for fen in FIXED.get(book, []):
                rows.append(row(book, chess.Board(fen), reader))
            queue = collections.deque([chess.Board()])
            castles = 0
            while queue and (len(seen) < SAMPLE or castles < 20):
                board = queue.popleft()
                key = chess.polyglot.zobrist_hash(board)
                if key in seen:
                    continue
                seen.add(key)
                entries = list(reader.find_all(board, minimum_weight=0))
                raw_castle = any(e.raw_move in CASTLE_RAW for e in reader.find_all(board, minimum_weight=0))
                if len(seen) <= SAMPLE or raw_castle:
                    rows.append(row(book, board, reader))
                    castles += raw_castle
                for e in entries:
                    child = board.copy(stack=False)
                    child.push(e.move)
                    queue.append(child)
        for r in rows:
            print(r)


main()
