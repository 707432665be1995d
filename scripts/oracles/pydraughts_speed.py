"""The one speed patch for pydraughts, shared by the scripts that drive it
(scripts/oracles/draughts_oracle.py, crates/cli/tests/clients/pydraughts_hub.py).

pydraughts finds each legal move by copying its game and playing the first step, even when no
capture is possible and every move is a single step. In a position without a capture that copy
only confirms what `Board.get_possible_positional_moves` already returned, so `install` skips it
there (about 30x faster at the start position). Positions with a capture take pydraughts' own
unmodified path, so the rules pydraughts applies are unchanged.
"""


def install():
    """Patches pydraughts' `Game.get_moves` as the module docs say (pydraughts must import)."""
    from draughts.core.game import Game

    original_get_moves = Game.get_moves

    def get_moves(self):
        if not self._not_added_capture and not self.board.get_possible_capture_moves([]):
            moves = self.board.get_possible_positional_moves()
            return [[m] for m in moves], [[None] for _ in moves]
        return original_get_moves(self)

    Game.get_moves = get_moves
