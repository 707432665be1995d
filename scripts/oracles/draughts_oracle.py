#!/usr/bin/env python3
"""Answers international draughts questions with pydraughts and dame-rs, for
tests/draughts_oracle.rs.

- pydraughts (PyPI `pydraughts`, pure Python) replays whole games: at every ply it lists the
  legal moves and says whether the game is over and who won.
- dame-rs (PyPI `dame-rs`, a Rust engine) counts perft from given positions.

A move is written in a canonical form both sides can produce: `from-to` for a quiet move and
`fromxto` followed by `x<captured>` for each captured square in ascending order for a capture
(the Hub form): `28x19x23`. pydraughts lists one move per capture *route*; routes with the same
origin, destination and captured set are one move, so they are merged here.

Speed: pydraughts finds each legal move by copying its game and playing the first step, even
when no capture is possible and every move is a single step. In a position without a capture
that copy only confirms what `Board.get_possible_positional_moves` already returned, so it is
skipped there (about 30x faster at the start position; `pydraughts_speed.py` beside this file,
shared with the HubEngine client test). Positions with a capture take pydraughts' own
unmodified path.

Requests (stdin), replies (stdout):
  G <fen>|<move> <move> ...  -> one line per position of the game (the start, then after each
                                move): "<over 0|1> <winner W|B|D|-> <legal moves, sorted>".
                                If a move is not legal for pydraughts, the remaining lines are
                                "stop <move>".
  P <depth> <fen>            -> dame-rs perft count
The first line written is "ready <versions>", or "error <why>" and exit status 2.
"""
import sys


def canonical(steps, captures):
    caps = sorted(c for c in captures if c is not None)
    if not caps:
        return f"{steps[0]}-{steps[-1]}"
    return f"{steps[0]}x{steps[-1]}" + "".join(f"x{c}" for c in caps)


def main() -> int:
    try:
        import draughts
        import dame
    except ImportError as e:
        print(f"error cannot import pydraughts or dame-rs: {e}", flush=True)
        return 2

    import pydraughts_speed

    pydraughts_speed.install()

    from importlib.metadata import version
    print(f"ready pydraughts {version('pydraughts')} + dame-rs {version('dame-rs')}", flush=True)

    def winner_letter(board):
        if not board.is_over():
            return "0 -"
        w = board.winner()
        return "1 " + {draughts.WHITE: "W", draughts.BLACK: "B"}.get(w, "D")

    out = sys.stdout
    for line in sys.stdin:
        kind, _, arg = line.rstrip("\n").partition(" ")
        if kind == "G":
            fen, _, moves = arg.partition("|")
            moves = moves.split()
            board = draughts.Board(variant="standard", fen=fen)
            stopped = None
            for i in range(len(moves) + 1):
                if stopped:
                    out.write(f"stop {stopped}\n")
                    continue
                legal = {}
                for m in board.legal_moves():
                    legal.setdefault(canonical(m.steps_move, m.captures), m)
                out.write(f"{winner_letter(board)} {' '.join(sorted(legal))}\n")
                if i < len(moves):
                    m = legal.get(moves[i])
                    if m is None:
                        stopped = moves[i]
                    else:
                        board.push(m)
        elif kind == "P":
            depth, _, fen = arg.partition(" ")
            out.write(f"{dame.perft(dame.Board(fen), int(depth))}\n")
        elif kind == "Q":
            break
        else:
            out.write(f"error unknown request {kind!r}\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
