"""Drive `lokizero uci` with python-chess's chess.engine through a whole
losers game (the engine plays both sides).

python-chess manages UCI_Variant itself: for a plain chess.Board it sends
`setoption name UCI_Variant value chess` whenever the engine declares the
option, and refuses (client side) a value missing from the combo's vars.
lokizero therefore lists `chess` and plays it as losers. The board is a plain
chess.Board: every losers move is a legal chess move, so python-chess can
track the game; the game's end comes from the engine (`bestmove (none)`),
and is then checked here against the losers rules with python-chess.

Usage: uci_python_chess.py LOKIZERO_BINARY BUNDLE_DIR
Prints one JSON line with the game summary; exits non-zero on failure.
"""

import json
import sys

import chess
import chess.engine

MAX_PLIES = 1000


def losers_game_over(board: chess.Board) -> str:
    """Why the game is over by the losers rules (docs/rules.md section 1), or ''."""
    mover = board.turn
    if board.is_checkmate():
        return "checkmate (the mated side wins)"
    if len(board.piece_map()) and all(
        p.piece_type == chess.KING for sq, p in board.piece_map().items() if p.color == mover
    ):
        return "bare king (the side to move wins)"
    if board.is_stalemate():
        return "stalemate (draw)"
    if board.is_repetition(3):
        return "threefold repetition (draw)"
    if board.halfmove_clock >= 100:
        return "fifty-move rule (draw)"
    return ""


def main() -> int:
    binary, bundle = sys.argv[1], sys.argv[2]
    engine = chess.engine.SimpleEngine.popen_uci(
        [binary, "uci", "--variant", "losers", "--bundle", bundle], timeout=60
    )
    try:
        assert engine.id.get("name", "").startswith("lokizero"), engine.id
        assert "UCI_Variant" in engine.options
        assert "chess" in engine.options["UCI_Variant"].var
        board = chess.Board()
        end = ""
        nodes_seen = []
        for ply in range(MAX_PLIES):
            # Alternate limits: node budgets, and a short movetime now and then.
            limit = chess.engine.Limit(time=0.05) if ply % 10 == 9 else chess.engine.Limit(nodes=8)
            result = engine.play(board, limit, info=chess.engine.INFO_ALL)
            if result.move is None:
                end = losers_game_over(board)
                assert end, f"engine ended the game in a live position: {board.fen()}"
                break
            assert result.move in board.legal_moves, result.move
            captures = [m for m in board.legal_moves if board.is_capture(m)]
            if captures:
                assert board.is_capture(result.move), f"capture is compulsory: {board.fen()} {result.move}"
            if "nodes" in result.info and limit.nodes:
                # The engine keeps its tree between moves and reports root
                # visits as lc0 does: after a node-limited move the kept
                # subtree is smaller than the budget; after a timed one it
                # may be larger (then the engine moves at once).
                assert result.info["nodes"] >= 1, result.info
                if ply % 10 != 0:
                    assert result.info["nodes"] <= 8, result.info
                nodes_seen.append(result.info["nodes"])
            assert "score" in result.info and "wdl" in result.info, result.info
            board.push(result.move)
        else:
            raise AssertionError(f"no game end within {MAX_PLIES} plies")
        summary = {
            "plies": len(board.move_stack),
            "end": end,
            "final_fen": board.fen(),
            "moves_with_nodes_info": len(nodes_seen),
        }
        print(json.dumps(summary))
        return 0
    finally:
        engine.quit()


if __name__ == "__main__":
    sys.exit(main())
