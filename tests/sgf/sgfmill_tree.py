"""Reads the first game of an SGF file (the path given) with sgfmill, a reader independent of
ours, and prints its whole tree as canonical JSON: per node its move, comment, name, set-up and
markup (points as the project writes them: `D4`, no `I`; lists sorted), then its children in
order. `crates/server/tests/review_tree.rs` compares it with the server's tree and with
`sabaki_tree.mjs`'s."""

import json
import sys

from sgfmill import sgf

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def name(point):
    row, col = point
    return f"{COLUMNS[col]}{row + 1}"


def canonical(node):
    colour, move = node.get_move()
    out = {"move": None if colour is None else
           f"{colour.upper()} {'pass' if move is None else name(move)}"}
    for ident in ("C", "N"):
        out[ident] = node.get(ident) if node.has_property(ident) else ""
    for ident in ("AB", "AW", "AE", "TR", "SQ", "CR", "MA"):
        out[ident] = sorted(name(p) for p in node.get(ident)) if node.has_property(ident) else []
    out["LB"] = sorted(f"{name(p)}:{t}" for p, t in node.get("LB")) if node.has_property("LB") else []
    for ident in ("AR", "LN"):
        out[ident] = sorted(f"{name(a)}-{name(b)}" for a, b in node.get(ident)) \
            if node.has_property(ident) else []
    out["children"] = [canonical(c) for c in node]
    return out


with open(sys.argv[1], "rb") as f:
    game = sgf.Sgf_game.from_bytes(f.read())
json.dump(canonical(game.get_root()), sys.stdout, ensure_ascii=False, sort_keys=True)
