#!/usr/bin/env python3
"""Answers xiangqi rule questions with Fairy-Stockfish, for tests/xiangqi_oracle.rs.

Two faces of the same engine are used, each for what it does fast:
- pyffish (PyPI, Fairy-Stockfish as a Python module) checks whole games: that every move
  qizero played is legal, which moves gave check, and how the game ends. pyffish sets up its
  engine anew on every call (about 2.5 ms here), so it is asked a few times per game;
- the Fairy-Stockfish engine (Debian package fairy-stockfish, UCI) lists the legal moves of
  every position, hundreds per game, over one long-lived pipe.

Moves are in Fairy-Stockfish's plain-UCI form (ranks 1-10). The pyffish variant is
Fairy-Stockfish's xiangqi with the move-count rule set to 60 moves (120 plies), as qizero's.

Requests (stdin), replies (stdout):
  B <n>, then n lines <fen>  -> n lines: the legal moves of each position, sorted
  G <fen>|<move> <move>...   -> "ok <flags>": flag i (0/1) says whether the side to move is in check
                                after i moves (i = 0 is the start), or "illegal <i> <why>"
  E <fen>|<move> <move>...   -> <legal count> <optional end 0|1> <value> <result if no legal move, else 0>
                                <insufficient material red 0|1><black 0|1>
The first line written is "ready <versions>", or "error <why>" and exit status 2.
"""
import os
import shutil
import subprocess
import sys
import threading

VARIANT = "qizero-xiangqi"
CONFIG = f"[{VARIANT}:xiangqi]\nnMoveRule = 60\n"


def find_engine():
    for candidate in (os.environ.get("QIZERO_FAIRY_STOCKFISH"), shutil.which("fairy-stockfish"),
                      "/usr/games/fairy-stockfish"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


class Engine:
    """A Fairy-Stockfish process in xiangqi mode."""

    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.name = "fairy-stockfish"
        for line in self.proc.stdout:
            if line.startswith("id name"):
                self.name = line[len("id name "):].strip()
            if line.startswith("uciok"):
                break
        self.send("setoption name UCI_Variant value xiangqi")
        self.send("isready")
        for line in self.proc.stdout:
            if line.startswith("readyok"):
                break

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def legal_moves(self, fens):
        """Legal moves of each position: `go perft 1` lists them one per line."""
        def feed():
            for fen in fens:
                self.proc.stdin.write(f"position fen {fen}\ngo perft 1\n")
            self.proc.stdin.flush()
        writer = threading.Thread(target=feed)
        writer.start()
        result = []
        for _ in fens:
            moves = []
            for line in self.proc.stdout:
                line = line.strip()
                if line.startswith("Nodes searched"):
                    break
                if ":" in line:
                    moves.append(line.split(":")[0])
            result.append(sorted(moves))
        writer.join()
        return result


def main() -> int:
    try:
        import pyffish as sf
    except ImportError as e:
        print(f"error cannot import pyffish: {e}", flush=True)
        return 2
    path = find_engine()
    if path is None:
        print("error Fairy-Stockfish engine not found (apt-get install fairy-stockfish)", flush=True)
        return 2
    sf.load_variant_config(CONFIG)
    engine = Engine(path)
    version = ".".join(map(str, sf.version()))
    print(f"ready pyffish {version} + {engine.name}", flush=True)

    out = sys.stdout
    lines = iter(sys.stdin)
    for line in lines:
        kind, _, arg = line.rstrip("\n").partition(" ")
        if kind == "B":
            fens = [next(lines).rstrip("\n") for _ in range(int(arg))]
            for moves in engine.legal_moves(fens):
                out.write(" ".join(moves) + "\n")
        elif kind == "G":
            fen, _, moves = arg.partition("|")
            moves = moves.split()
            flags = [str(int(sf.gives_check(VARIANT, fen, [])))]
            try:
                sans = sf.get_san_moves(VARIANT, fen, moves)
                flags += ["1" if s.endswith(("+", "#")) else "0" for s in sans]
                out.write("ok " + "".join(flags) + "\n")
            except ValueError as e:
                # Find the first move pyffish refuses.
                bad = next(i for i in range(len(moves) + 1)
                           if i == len(moves) or moves[i] not in sf.legal_moves(VARIANT, fen, moves[:i]))
                out.write(f"illegal {bad} {e}\n")
        elif kind == "E":
            fen, _, moves = arg.partition("|")
            moves = moves.split()
            legal = sf.legal_moves(VARIANT, fen, moves)
            ended, value = sf.is_optional_game_end(VARIANT, fen, moves)
            result = 0 if legal else sf.game_result(VARIANT, fen, moves)
            red, black = sf.has_insufficient_material(VARIANT, fen, moves)
            out.write(f"{len(legal)} {int(ended)} {value} {result} {int(red)}{int(black)}\n")
        elif kind == "Q":
            break
        else:
            out.write(f"error unknown request {kind!r}\n")
        out.flush()
    engine.send("quit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
