#!/usr/bin/env python3
"""Plays and analyses xiangqi through the UCI client of PyPI `cchess` (python-chinese-chess),
for crates/cli/tests/clients/main.rs.

`cchess.engine.UciEngine` is the client its GUIs use: it starts one program (a path, no
arguments, so the engine command is wrapped in a small shell script), sends `uci`, reads the
handshake on a thread, and sends `position fen <FEN> ` and `go ...` for every search, reading
`info` and `bestmove` back as actions. Moves are ICCS coordinates with ranks 0-9 from Red's
side (`h2e2`), as qizero writes them.

The run: first an analysis of a middle-game position, `go depth N` then `go infinite` and
`stop` (every `info depth` action must parse, with an integer score and a principal variation
legal along its line on cchess's board; the answer must be a legal move); then `--games`
games, each until the side to move has no legal move on cchess's board (a loss in xiangqi; the
engine must then answer `bestmove (none)`, which cchess reads as 'dead') or `--cap` plies.
Even games are the engine against itself from two seeded random plies, odd games the engine
against a seeded random mover. cchess's board has no repetition or move-count rules, so long
games end at the cap.

A move is legal for cchess when its `ChessBoard.create_moves()` lists it and
`is_checked_move` says it does not leave the mover's own king attacked (cchess's `move` checks
the piece's movement only).

Every line exchanged is written to `--transcript` (`> ` sent, `< ` received, in the order the
reader thread saw them), for the caller's protocol checker. `UciEngine` is subclassed only to
record lines and to let its reader thread end at end of file (it would spin there).

Exit status: 0 and a last line `summary ...`; 1 and a line `FAIL ...` when the engine did
something wrong; 3 and a line `error ...` when cchess cannot be imported (2 is argparse's).
"""
import argparse
import os
import random
import shlex
import stat
import sys
import tempfile
import threading
import time

MIDGAME = "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w"
PATIENCE = 30.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--cap", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--go", default="depth 2", help="the go arguments of every game move")
    parser.add_argument("--analysis-depth", type=int, default=4)
    parser.add_argument("--transcript", required=True)
    parser.add_argument("engine", nargs=argparse.REMAINDER, help="-- program arguments...")
    args = parser.parse_args()
    command = args.engine[1:] if args.engine[:1] == ["--"] else args.engine

    try:
        import cchess
        from cchess.board import ChessBoard
        from cchess.engine import UciEngine
    except ImportError as e:
        print(f"error cannot import cchess: {e}", flush=True)
        return 3
    from importlib.metadata import version

    log = []
    lock = threading.Lock()

    class RecordedUciEngine(UciEngine):
        def _send_cmd(self, cmd_str):
            with lock:
                log.append("> " + cmd_str)
            return super()._send_cmd(cmd_str)

        def run_once(self):
            raw = self.pout.readline()
            if raw == "":
                self.running = False
                return
            with lock:
                log.append("< " + raw.rstrip("\n"))
            output = raw.strip()
            if output:
                self.engine_out_queque.put(output)

    def save():
        with lock:
            text = "\n".join(log) + "\n"
        with open(args.transcript, "w") as f:
            f.write(text)

    def fail(message):
        save()
        print(f"FAIL {message}", flush=True)
        return 1

    def legal_moves(board):
        moves = set()
        for (f, t) in board.create_moves():
            if not board.is_checked_move(f, t):
                moves.add(f"{chr(97 + f[0])}{f[1]}{chr(97 + t[0])}{t[1]}")
        return moves

    def play(board, iccs):
        board.move_iccs(iccs)
        board.next_turn()

    def search(engine, fen, params, stop_after=None):
        """Runs one search; returns (info_move actions, the final action)."""
        engine.go_from(fen, params)
        infos, started = [], time.time()
        stop_sent = False
        while time.time() - started < PATIENCE:
            if stop_after is not None and not stop_sent and time.time() - started > stop_after:
                # The client's own stop: it sends `stop` and reads (and drops) two actions,
                # so the final answer is looked for in the transcript as well.
                engine.stop_thinking()
                stop_sent = True
            action = engine.get_action()
            if action is None:
                if stop_sent and any(line.startswith("< bestmove") for line in log[-3:]):
                    return infos, {"action": "stopped"}
                time.sleep(0.002)
                continue
            if action["action"] == "info_move":
                infos.append(action)
            elif action["action"] in ("bestmove", "dead", "draw"):
                return infos, action
        return infos, None

    def check_pv(fen, info):
        board = ChessBoard(fen)
        for i, iccs in enumerate(info.get("moves", [])):
            if iccs not in legal_moves(board):
                return f"pv move {i + 1} {iccs} is illegal in {board.to_fen()} (info {info['raw_msg']!r})"
            play(board, iccs)
        return None

    workdir = tempfile.mkdtemp(prefix="qizero-cchess-")
    wrapper = os.path.join(workdir, "engine.sh")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec " + " ".join(shlex.quote(c) for c in command) + "\n")
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)

    engine = RecordedUciEngine()
    if not engine.load(wrapper) or not engine.wait_for_ready(timeout=PATIENCE):
        return fail(f"the engine did not complete the UCI handshake (ids {engine.ids})")
    if "name" not in engine.ids:
        return fail(f"no id name in the handshake: {engine.ids}")

    # The analysis.
    infos, final = search(engine, MIDGAME, {"depth": args.analysis_depth})
    if final is None or final["action"] != "bestmove":
        return fail(f"analysis go depth {args.analysis_depth}: no bestmove within {PATIENCE} s ({final})")
    if not infos:
        return fail("analysis: no info depth lines")
    for info in infos:
        if not isinstance(info.get("score", info.get("mate")), int) or not isinstance(info.get("depth"), int):
            return fail(f"analysis: info without an integer depth and score: {info['raw_msg']!r}")
        why = check_pv(MIDGAME, info)
        if why:
            return fail(f"analysis: {why}")
    if final["move"] not in legal_moves(ChessBoard(MIDGAME)):
        return fail(f"analysis: bestmove {final['move']} is illegal in {MIDGAME}")
    deepest = max(info["depth"] for info in infos)
    infos, final = search(engine, MIDGAME, {"infinite": ""}, stop_after=0.3)
    if final is None:
        return fail("analysis go infinite: no bestmove after stop")
    for info in infos:
        why = check_pv(MIDGAME, info)
        if why:
            return fail(f"analysis (infinite): {why}")

    # The games.
    go = dict(zip(args.go.split()[::2], args.go.split()[1::2]))
    results = {"red": 0, "black": 0, "capped": 0}
    plies = 0
    for g in range(args.games):
        rng = random.Random(args.seed * 1000 + g)
        board = ChessBoard(cchess.FULL_INIT_FEN)
        engine_sides = {"w", "b"} if g % 2 == 0 else ({"w"} if g % 4 == 1 else {"b"})
        ply = 0
        while ply < args.cap:
            fen = board.to_fen()
            legal = legal_moves(board)
            mover = fen.split()[1]
            if not legal:
                _, final = search(engine, fen, go)
                if final is None or final["action"] != "dead":
                    return fail(f"game {g}, ply {ply}, FEN {fen}: no legal move, yet the engine answered {final}")
                results["black" if mover == "w" else "red"] += 1
                break
            if mover not in engine_sides or (g % 2 == 0 and ply < 2):
                mv = sorted(legal)[rng.randrange(len(legal))]
            else:
                _, final = search(engine, fen, go)
                if final is None:
                    return fail(f"game {g}, ply {ply}, FEN {fen}: no bestmove within {PATIENCE} s")
                mv = final.get("move")
                if final["action"] != "bestmove" or mv not in legal:
                    return fail(f"game {g}, ply {ply}, FEN {fen}: engine answer {final.get('raw_msg')!r} "
                                f"is not among cchess's legal moves {' '.join(sorted(legal))}")
            play(board, mv)
            ply += 1
        else:
            results["capped"] += 1
        plies += ply

    engine.quit()
    try:
        engine.process.wait(timeout=20)
    except Exception as e:  # noqa: BLE001 - any failure to stop is the engine's fault here
        return fail(f"the engine did not exit after quit: {e}")
    engine.join(timeout=5)
    save()
    if engine.process.returncode != 0:
        return fail(f"the engine exited with status {engine.process.returncode} after quit")
    summary = ", ".join(f"{k} {v}" for k, v in results.items())
    print(f"summary cchess {version('cchess')} UciEngine: analysis to depth {deepest} and go infinite/stop; "
          f"{args.games} games (cap {args.cap} plies, go {args.go}), {plies} plies, {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
