#!/usr/bin/env python3
"""A Hub (Scan protocol, version 2) adapter around the dame-rs draughts engine.

Run it through `scripts/dame-hub`, which starts it with the project's .venv Python (where
`scripts/test` installs dame-rs); `qizero match --game draughts --b hub:scripts/dame-hub` then
plays against it. It reads commands on standard input and answers on standard output, one line
each; diagnostics go to standard error.

Commands (engine answers after the arrow):
    hub                         -> id name=... version=... ; param ... ; wait
    set-param name=hash value=N    transposition table size in MiB (before or after init)
    init                        -> ready
    new-game                       clears the engine's tables
    pos [pos=<W|B><50 chars>] [moves="m1 m2 ..."]
                                   the position: side to move, then squares 1-50 as e (empty),
                                   w/b (men), W/B (kings); then moves played from it. Without
                                   pos= the start position. The history lets dame see repetitions.
    level depth=N | nodes=N | move-time=S | [moves=N] time=S [inc=S] | infinite
                                   each `level` replaces the previous limits
    go think | ponder | analyze -> info depth=... score=... nodes=... time=... pv="..." ;
                                   done move=<move> ponder=<move>   (think; the others end at stop)
    stop                           ends the search now (it answers done)
    ponder-hit                     accepted and ignored
    ping                        -> pong   (answered at once, even while searching)
    quit                           exits

Moves are Hub notation both ways: `32-28`, and for a capture the origin, the destination, then
every captured square: `28x19x23`. dame writes the same with Move.hub(); we read by matching
(origin, destination, set of captured squares) against dame's legal moves, so the captured
squares may come in any order. A two-square capture (`28x19`, PDN) is accepted when it is
unambiguous.
"""

from __future__ import annotations

import sys
import threading

import dame

VERSION = "0.1"
# Per-move share of the clock when the GUI gives a time control without a move count.
DEFAULT_MOVES_TO_GO = 30

out_lock = threading.Lock()


def say(line: str) -> None:
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def warn(line: str) -> None:
    sys.stderr.write(f"dame-hub: {line}\n")
    sys.stderr.flush()


def fields(line: str) -> tuple[str, dict[str, str]]:
    """The command word and its name=value fields (values may be quoted with ")."""
    words: list[tuple[str, str]] = []
    i, n = 0, len(line)
    while i < n:
        while i < n and line[i].isspace():
            i += 1
        if i >= n:
            break
        j = i
        while j < n and not line[j].isspace() and line[j] != "=":
            j += 1
        name, value = line[i:j], ""
        if j < n and line[j] == "=":
            j += 1
            if j < n and line[j] == '"':
                k = line.find('"', j + 1)
                k = n if k < 0 else k
                value, j = line[j + 1 : k], k + 1
            else:
                k = j
                while k < n and not line[k].isspace():
                    k += 1
                value, j = line[j:k], k
        words.append((name, value))
        i = j
    if not words:
        return "", {}
    return words[0][0], dict(words[1:])


def hub_to_fen(pos: str) -> str:
    """`W` + 50 squares (e, w, b, W, B) to a FEN dame reads: `W:W31,...:B1,...`."""
    if len(pos) != 51 or pos[0] not in "WB" or any(c not in "ewbWB" for c in pos[1:]):
        raise ValueError(f"bad Hub position {pos!r}")
    white = [("K" if c == "W" else "") + str(i) for i, c in enumerate(pos[1:], 1) if c in "wW"]
    black = [("K" if c == "B" else "") + str(i) for i, c in enumerate(pos[1:], 1) if c in "bB"]
    return f"{pos[0]}:W{','.join(white)}:B{','.join(black)}"


def find_move(board: dame.Board, text: str) -> dame.Move:
    """The legal move a Hub text names (see the module docs)."""
    t = text.strip().lower()
    sep = "x" if "x" in t else "-"
    try:
        squares = [int(s) for s in t.split(sep)]
    except ValueError:
        raise ValueError(f"bad move {text!r}") from None
    if len(squares) < 2:
        raise ValueError(f"bad move {text!r}")
    fits = [
        m
        for m in board.legal_moves
        if m.from_square == squares[0]
        and m.to_square == squares[1]
        and m.is_capture == (sep == "x")
        and (len(squares) == 2 or sorted(m.captured) == sorted(squares[2:]))
    ]
    if len(fits) != 1:
        raise ValueError(f"{text!r} fits {len(fits)} legal moves in {board.fen()}")
    return fits[0]


class Adapter:
    def __init__(self) -> None:
        self.hash_mb = 64
        self.engine: dame.Engine | None = None
        self.board: dame.Board | None = dame.Board()
        self.limits: dict[str, float] = {}
        self.search: threading.Thread | None = None

    def ensure_engine(self) -> dame.Engine:
        if self.engine is None:
            self.engine = dame.Engine(hash_mb=self.hash_mb)
        return self.engine

    def wait_search(self) -> None:
        if self.search is not None:
            self.search.join()
            self.search = None

    def stop_search(self) -> None:
        if self.search is not None and self.engine is not None:
            self.engine.stop()
        self.wait_search()

    def set_position(self, f: dict[str, str]) -> None:
        board = dame.Board(hub_to_fen(f["pos"])) if "pos" in f else dame.Board()
        for text in f.get("moves", "").split():
            board.push(find_move(board, text))
        self.board = board

    def set_level(self, f: dict[str, str]) -> None:
        limits: dict[str, float] = {}
        if "depth" in f:
            limits["depth"] = int(f["depth"])
        if "nodes" in f:
            limits["nodes"] = int(f["nodes"])
        if "move-time" in f:
            limits["time"] = float(f["move-time"])
        if "time" in f:
            left = float(f["time"])
            moves = int(f.get("moves", 0)) or DEFAULT_MOVES_TO_GO
            inc = float(f.get("inc", 0))
            budget = min(left / moves + 0.8 * inc, left / 3)
            limits["time"] = min(limits.get("time", budget), max(budget, 0.01))
        # `infinite` (or nothing) leaves no limit: the search runs until `stop`.
        self.limits = limits

    def go(self, mode: str) -> None:
        self.stop_search()
        engine = self.ensure_engine()
        board = self.board.copy() if self.board is not None else None
        limits = dict(self.limits) if mode == "think" else {}

        def info(i: dame.SearchInfo) -> None:
            pv = " ".join(m.hub() for m in i.pv)
            nps = i.nodes / i.elapsed / 1e6 if i.elapsed > 0 else 0.0
            say(
                f"info depth={i.depth} score={i.score / 100:.2f} nodes={i.nodes} "
                f'time={i.elapsed:.3f} nps={nps:.2f} pv="{pv}"'
            )

        def run() -> None:
            if board is None or not board.legal_moves:
                say("done")
                return
            try:
                result = engine.search(board, info=info, **limits)
            except Exception as e:  # noqa: BLE001 - report, never die mid-game
                warn(f"search failed: {e}")
                say("done")
                return
            move = result.best_move
            if move is None:
                say("done")
            elif result.ponder is not None:
                say(f"done move={move.hub()} ponder={result.ponder.hub()}")
            else:
                say(f"done move={move.hub()}")

        self.search = threading.Thread(target=run, daemon=True)
        self.search.start()

    def handle(self, line: str) -> bool:
        """Runs one command; False on quit."""
        command, f = fields(line)
        if command == "":
            return True
        if command == "hub":
            say(f'id name=dame-hub version={VERSION} author="qizero (dame-rs {dame.__version__})"')
            say(f"param name=hash value={self.hash_mb} type=int min=1 max=65536")
            say("wait")
        elif command == "set-param":
            if f.get("name") == "hash":
                self.hash_mb = max(1, int(f.get("value", self.hash_mb)))
                self.stop_search()
                self.engine = None
            else:
                warn(f"unknown parameter {f.get('name')!r}")
        elif command == "init":
            self.ensure_engine()
            say("ready")
        elif command == "new-game":
            self.stop_search()
            self.ensure_engine().clear()
        elif command == "pos":
            self.stop_search()
            # Until a position reads, `go` answers `done` without a move rather than search
            # a stale one.
            self.board = None
            self.set_position(f)
        elif command == "level":
            self.set_level(f)
        elif command == "go":
            mode = next(iter(f), "think")
            self.go(mode)
        elif command == "stop":
            self.stop_search()
        elif command == "ping":
            say("pong")
        elif command == "ponder-hit":
            pass
        elif command == "quit":
            self.stop_search()
            return False
        else:
            warn(f"unknown command {line!r}")
        return True


def main() -> int:
    adapter = Adapter()
    for raw in sys.stdin:
        line = raw.strip()
        try:
            if not adapter.handle(line):
                break
        except (ValueError, KeyError, dame.IllegalMoveError) as e:
            # A bad command is reported and ignored; the GUI decides what to do about it.
            warn(f"{line!r}: {e}")
    adapter.stop_search()
    return 0


if __name__ == "__main__":
    sys.exit(main())
