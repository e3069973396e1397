"""Reads one SGF game from standard input with sgfmill (a second, independent SGF reader) and
prints what the browser tests compare as JSON: the board size, the players, the root comment,
and the main line's moves (raw SGF points) with each node's comment."""

import json
import sys

from sgfmill import sgf

game = sgf.Sgf_game.from_bytes(sys.stdin.buffer.read())
root = game.get_root()
line = []
for node in game.get_main_sequence()[1:]:
    colour, _ = node.get_move()
    if colour is None:
        continue
    prop = colour.upper()
    line.append({
        "move": prop + node.get_raw(prop).decode("ascii"),
        "comment": node.get("C") if node.has_property("C") else "",
    })
json.dump({
    "size": game.get_size(),
    "black": root.get("PB") if root.has_property("PB") else None,
    "white": root.get("PW") if root.has_property("PW") else None,
    "comment": root.get("C") if root.has_property("C") else "",
    "moves": line,
}, sys.stdout, ensure_ascii=False)
