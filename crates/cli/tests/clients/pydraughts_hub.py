#!/usr/bin/env python3
"""Plays international draughts games through pydraughts' own Hub client, for
crates/cli/tests/clients/main.rs.

pydraughts (PyPI `pydraughts`, imported as `draughts`) ships `draughts.engine.HubEngine`, the
client a Python GUI or a lidraughts bot uses to drive a Hub engine such as Scan. Here it drives
the engine named on the command line through `--games` games, each to its end as pydraughts
rules it (`Board.is_over()`) or to `--cap` plies. Even games are the engine against itself,
from two seeded random plies; odd games are the engine against a seeded random mover, the
engine taking White in games 1, 5, 9, ... and Black in 3, 7, 11, ...

Every move the engine returns must be one of pydraughts' `legal_moves()`, compared in the Hub
form with the captured squares sorted (routes with the same origin, destination and captured
set are one move). The first one that is not stops the run with the game, ply, FEN and move.

Speed: pydraughts' legal-move generator is slow (tens of milliseconds a position); the one
speed patch of scripts/oracles/draughts_oracle.py is applied, which the oracle test checks
against qizero's own move generator on 1,000 games.

Every line exchanged is written to `--transcript` (`> ` sent, `< ` received), so the caller can
run the whole exchange through its protocol checker. `HubEngine` is subclassed only to record
lines; its own `send`, `recv`, `hub`, `init` and `play` do the work.

Exit status: 0 and a last line `summary ...`; 1 and a line `FAIL ...` when the engine did
something wrong; 3 and a line `error ...` when pydraughts cannot be imported (the oracle is
missing).
"""
import argparse
import random
import sys
from pathlib import Path


def canonical_hub(text):
    """The Hub move `text` with its captured squares in ascending order."""
    if "x" not in text:
        return text
    squares = [int(s) for s in text.split("x")]
    return f"{squares[0]}x{squares[1]}" + "".join(f"x{c}" for c in sorted(squares[2:]))


def canonical(move):
    """A pydraughts legal move in the Hub form, captured squares ascending."""
    steps, captures = move.steps_move, [c for c in move.captures if c is not None]
    if not captures:
        return f"{steps[0]}-{steps[-1]}"
    return f"{steps[0]}x{steps[-1]}" + "".join(f"x{c}" for c in sorted(captures))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cap", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, help="level nodes=N for every engine move")
    parser.add_argument("--movetime", type=float, help="level move-time=S for every engine move")
    parser.add_argument("--transcript", required=True)
    parser.add_argument("engine", nargs=argparse.REMAINDER, help="-- program arguments...")
    args = parser.parse_args()
    command = args.engine[1:] if args.engine[:1] == ["--"] else args.engine

    try:
        import draughts
        from draughts.engine import HubEngine, Limit
    except ImportError as e:
        print(f"error cannot import pydraughts: {e}", flush=True)
        return 3
    from importlib.metadata import version

    # The project's one speed patch for pydraughts (scripts/oracles/pydraughts_speed.py):
    # positions without a capture skip a copy of the game per move; the rules are unchanged.
    sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "scripts" / "oracles"))
    import pydraughts_speed

    pydraughts_speed.install()

    log = []

    class RecordedHubEngine(HubEngine):
        def send(self, line):
            log.append("> " + line)
            super().send(line)

        def recv(self):
            line = super().recv()
            log.append("< " + line)
            return line

    def save():
        with open(args.transcript, "w") as f:
            f.write("\n".join(log) + "\n")

    limit = Limit(nodes=args.nodes) if args.nodes is not None else Limit(movetime=args.movetime or 0.02)
    engine = RecordedHubEngine(command)
    engine.init()
    results = {"1-0": 0, "0-1": 0, "draw": 0, "capped": 0}
    plies = 0
    for g in range(args.games):
        rng = random.Random(args.seed * 1000 + g)
        engine_sides = {draughts.WHITE, draughts.BLACK} if g % 2 == 0 else (
            {draughts.WHITE} if g % 4 == 1 else {draughts.BLACK})
        board = draughts.Board(variant="standard")
        engine.send("new-game")
        while not board.is_over() and len(board.move_stack) < args.cap:
            legal = {canonical(m): m for m in board.legal_moves()}
            ply = len(board.move_stack)
            if board.turn not in engine_sides or (g % 2 == 0 and ply < 2):
                board.push(legal[sorted(legal)[rng.randrange(len(legal))]])
                continue
            fen = board.fen
            try:
                result = engine.play(board, limit, False)
                played = result.move.hub_move
            except (KeyError, IndexError, ValueError) as e:
                # pydraughts could not read the engine's move as one of the position's moves.
                done = next((line for line in reversed(log) if line.startswith("< done")), "(no done line)")
                save()
                print(f"FAIL game {g}, ply {ply}, FEN {fen}: pydraughts rejects the engine's answer "
                      f"{done[2:]!r} ({type(e).__name__}: {e}); legal: {' '.join(sorted(legal))}", flush=True)
                return 1
            mv = legal.get(canonical_hub(played))
            if mv is None:
                save()
                print(f"FAIL game {g}, ply {ply}, FEN {fen}: engine move {played} is not among pydraughts' "
                      f"legal moves {' '.join(sorted(legal))}", flush=True)
                return 1
            board.push(mv)
        plies += len(board.move_stack)
        if not board.is_over():
            results["capped"] += 1
        else:
            results[{draughts.WHITE: "1-0", draughts.BLACK: "0-1"}.get(board.winner(), "draw")] += 1
    engine.quit()
    try:
        rest, _ = engine.p.communicate(timeout=20)
    except Exception as e:  # noqa: BLE001 - any failure to stop is the engine's fault here
        save()
        print(f"FAIL the engine did not exit after quit: {e}", flush=True)
        return 1
    log.extend("< " + line for line in rest.splitlines())
    save()
    if engine.p.returncode != 0:
        print(f"FAIL the engine exited with status {engine.p.returncode} after quit", flush=True)
        return 1
    summary = ", ".join(f"{k} {v}" for k, v in results.items())
    print(f"summary pydraughts {version('pydraughts')} HubEngine: {args.games} games (cap {args.cap} plies), "
          f"{plies} plies, {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
