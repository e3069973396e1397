"""Go replay and the policy network's input planes, in plain Python (no numpy, no torch).

This module is the reference for the network's inputs: a Rust forward pass must reproduce
`planes()` bit for bit. It is used by prepare.py (replay of the records into compact positions),
by train.py (whose batched torch version is checked against `planes()` in test_features.py) and
by the fixture writer.

Board: 19x19, point index p = row * 19 + col, row 0 is the top line of the SGF (SGF "aa" = row 0,
col 0; the SGF's first letter is the column, the second the row). Colours: 1 = Black, 2 = White.
Rules used for replay: a move on an empty point, captures of the opponent's chains left without
liberties, then the mover's own chain must have a liberty (no suicide: a record that needs one is
refused), simple ko (the replay does not check ko, records are legal games; the ko point is only
computed as an input). A pass is an SGF move "" or "tt".

Compact position (what prepare.py stores, 361 + 8 values per position):
  board[p] (uint8):  0 empty; 1, 2, 3 = Black stone whose chain has 1, 2, >=3 liberties;
                     4, 5, 6 = White stone whose chain has 1, 2, >=3 liberties.
  meta (int16 x 8):  [to_move (1 B, 2 W), ko (point or 361 = none), last1, last2, last3, last4
                      (points of the last four moves, newest first, 361 = none or a pass),
                      komi2 (komi x 2, komi as recorded, positive = White receives),
                      target (the move played next, 0..360)]

Input planes, version 1 (17 planes of 19x19 float32, values exactly 0.0 or 1.0 except plane 16;
"own" is the colour to move):
   0 own stone                    1 opponent stone             2 empty point
   3 own stone, chain 1 liberty   4 own, 2 liberties            5 own, >= 3 liberties
   6 opponent stone, 1 liberty    7 opponent, 2 liberties       8 opponent, >= 3 liberties
   9 the ko point: the empty point the side to move may not play now (simple ko), else none
  10 the last move's point (the one just played), 11 the move before it, 12 the third last,
  13 the fourth last (a pass or a move before the game's start marks nothing)
  14 ones on every point (the board mask; the convolutions pad with zeros outside)
  15 ones when Black is to move, zeros when White is
  16 komi from the side to move's view, on every point: float32(k) / 20.0f32 where k = komi2
     if White is to move and -komi2 if Black is (so +7.5 komi, White to move: 15/20 = 0.75)
No ladder plane in version 1: verdicts from crates/search/src/go/ladder.rs are a later addition
and would come as a version 2 with more planes (the format's header names its plane version).
"""

import hashlib

N = 19
NN = N * N
NONE = NN  # "no point" in the compact meta
NUM_PLANES = 17
PLANES_VERSION = 1

_NEIGH = []
for _p in range(NN):
    _r, _c = divmod(_p, N)
    _l = []
    if _r > 0:
        _l.append(_p - N)
    if _r < N - 1:
        _l.append(_p + N)
    if _c > 0:
        _l.append(_p - 1)
    if _c < N - 1:
        _l.append(_p + 1)
    _NEIGH.append(tuple(_l))
NEIGHBOURS = tuple(_NEIGH)


class IllegalMove(Exception):
    pass


# ---------------------------------------------------------------- SGF


class SgfError(Exception):
    pass


def parse_sgf(text):
    """All game trees of an SGF collection, each as its main line: a list of nodes, each node a
    dict property -> list of values. Variations other than the first are dropped."""
    games = []
    i = 0
    n = len(text)
    while True:
        i = text.find("(", i)
        if i < 0:
            break
        nodes, i = _parse_tree(text, i)
        if nodes:
            games.append(nodes)
    return games


def _parse_tree(text, i):
    # text[i] == "("; returns (main line nodes, index after the matching ")")
    assert text[i] == "("
    i += 1
    n = len(text)
    nodes = []
    took_child = False
    while i < n:
        ch = text[i]
        if ch == ";":
            if took_child:
                # a node after a variation is malformed SGF; skip it
                i += 1
                continue
            node, i = _parse_node(text, i + 1)
            nodes.append(node)
        elif ch == "(":
            sub, i = _parse_tree(text, i)
            if not took_child:
                nodes.extend(sub)
                took_child = True
        elif ch == ")":
            return nodes, i + 1
        else:
            i += 1
    return nodes, i


def _parse_node(text, i):
    node = {}
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n or text[i] in ";()":
            break
        j = i
        while j < n and (text[j].isalpha()):
            j += 1
        ident = "".join(c for c in text[i:j] if c.isupper())
        if j == i:
            i += 1  # stray character
            continue
        i = j
        vals = []
        while True:
            while i < n and text[i] in " \t\r\n":
                i += 1
            if i >= n or text[i] != "[":
                break
            i += 1
            buf = []
            while i < n and text[i] != "]":
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                buf.append(text[i])
                i += 1
            i += 1
            vals.append("".join(buf))
        if ident:
            node.setdefault(ident, []).extend(vals)
    return node, i


def sgf_point(v, size=N):
    """SGF coordinate -> point index, or None for a pass."""
    v = v.strip()
    if v == "" or (v == "tt" and size <= 19):
        return None
    if len(v) != 2:
        raise SgfError("bad point %r" % v)
    c = ord(v[0]) - 97
    r = ord(v[1]) - 97
    if not (0 <= c < size and 0 <= r < size):
        raise SgfError("point off the board %r" % v)
    return r * size + c


def parse_komi(vals):
    """Komi as recorded, normalised: some servers write komi x 100 (KM[750], KM[650]) or, in
    Chinese counting, in stones x 100 (KM[375] = 3.75 stones = 7.5 points). Returns komi x 2 as an
    int, or None when unreadable. KM[0] is taken as 0: the records say so, even where the game was
    probably played at 7.5 (docs/bot.md)."""
    if not vals:
        return None
    try:
        k = float(vals[0].strip())
    except ValueError:
        return None
    if k == 375:
        k = 7.5
    elif abs(k) >= 100:
        k = k / 100.0
    k2 = round(k * 2)
    if abs(k2 - k * 2) > 1e-6 or abs(k2) > 120:
        return None
    return int(k2)


class Game:
    """One game tree's main line, read for replay."""

    def __init__(self, size, handicap, setup, moves, komi2, props):
        self.size = size
        self.handicap = handicap
        self.setup = setup  # list of (colour, point) from AB/AW in the root
        self.moves = moves  # list of (colour, point or None for pass)
        self.komi2 = komi2
        self.props = props

    def key(self):
        """De-duplication key: the hash of the size, setup and move sequence."""
        s = ["SZ%d" % self.size]
        for col, p in sorted(self.setup):
            s.append("A%d:%d" % (col, p))
        for col, p in self.moves:
            s.append("%s%s" % ("BW"[col - 1], "-" if p is None else p))
        return hashlib.sha1(";".join(s).encode()).hexdigest()


def read_game(nodes):
    root = nodes[0] if nodes else {}
    size = 19
    if "SZ" in root:
        try:
            size = int(root["SZ"][0].split(":")[0])
        except ValueError:
            raise SgfError("bad SZ")
    ha = 0
    if "HA" in root:
        try:
            ha = int(float(root["HA"][0] or 0))
        except ValueError:
            ha = 0
    setup = []
    moves = []
    for k, node in enumerate(nodes):
        for prop, col in (("AB", 1), ("AW", 2)):
            for v in node.get(prop, ()):
                p = sgf_point(v, size)
                if p is not None:
                    if k != 0 and moves:
                        raise SgfError("setup stones in mid-game")
                    setup.append((col, p))
        for prop, col in (("B", 1), ("W", 2)):
            for v in node.get(prop, ()):
                moves.append((col, sgf_point(v, size)))
    return Game(size, ha, setup, moves, parse_komi(root.get("KM")), root)


# ---------------------------------------------------------------- board


class Chain:
    __slots__ = ("colour", "stones", "libs")

    def __init__(self, colour, stones, libs):
        self.colour = colour
        self.stones = stones
        self.libs = libs


class Board:
    """19x19 board with chains and their liberties, kept incrementally."""

    def __init__(self):
        self.colour = [0] * NN
        self.chain = [None] * NN
        self.ko = NONE  # point the side to move may not play (simple ko)
        self.history = []  # every move played: point or NONE for a pass, oldest first

    def place(self, col, p):
        """Put a stone without the history (setup stones). Captures as a move would."""
        self._play(col, p)
        self.ko = NONE

    def play(self, col, p):
        """Play colour col at p (None = pass). Raises IllegalMove on an occupied point or a
        suicide."""
        if p is None:
            self.ko = NONE
            self.history.append(NONE)
            return
        self.ko = self._play(col, p)
        self.history.append(p)

    def _play(self, col, p):
        if self.colour[p]:
            raise IllegalMove("occupied %d" % p)
        opp = 3 - col
        colour = self.colour
        chain = self.chain
        colour[p] = col
        new = Chain(col, {p}, set())
        chain[p] = new
        for q in NEIGHBOURS[p]:
            if colour[q] == 0:
                new.libs.add(q)
        captured = []
        for q in NEIGHBOURS[p]:
            cq = chain[q]
            if cq is None:
                continue
            cq.libs.discard(p)
            if cq.colour == col:
                if cq is not chain[p]:
                    self._merge(chain[p], cq)
            elif not cq.libs:
                captured.append(cq)
        ncap = 0
        capt_point = NONE
        for cq in captured:
            if chain[next(iter(cq.stones))] is not cq:
                continue  # already removed (the same chain next to p twice)
            for s in cq.stones:
                colour[s] = 0
                chain[s] = None
                ncap += 1
                capt_point = s
            for s in cq.stones:
                for t in NEIGHBOURS[s]:
                    ct = chain[t]
                    if ct is not None:
                        ct.libs.add(s)
        mine = chain[p]
        if not mine.libs:
            raise IllegalMove("suicide %d" % p)
        if ncap == 1 and len(mine.stones) == 1 and len(mine.libs) == 1:
            return capt_point
        return NONE

    def _merge(self, a, b):
        if len(a.stones) < len(b.stones):
            a, b = b, a
        for s in b.stones:
            self.chain[s] = a
        a.stones |= b.stones
        a.libs |= b.libs
        return a

    def compact_board(self):
        """The 361 board codes of the compact position (see the module's docstring)."""
        out = bytearray(NN)
        seen = set()
        for p in range(NN):
            ch = self.chain[p]
            if ch is None or id(ch) in seen:
                continue
            seen.add(id(ch))
            code = (ch.colour - 1) * 3 + min(len(ch.libs), 3)
            for s in ch.stones:
                out[s] = code
        return out

    def last_moves(self):
        h = self.history
        return [h[-k] if len(h) >= k else NONE for k in (1, 2, 3, 4)]


def planes(board_codes, meta):
    """The 17 input planes (module docstring) of one compact position: a list of 17 lists of 361
    floats. This is the reference the batched torch version and a Rust forward pass must match."""
    to_move, ko, l1, l2, l3, l4, komi2 = meta[:7]
    out = [[0.0] * NN for _ in range(NUM_PLANES)]
    for p in range(NN):
        code = board_codes[p]
        if code == 0:
            out[2][p] = 1.0
            continue
        col = 1 if code <= 3 else 2
        libs = code - (col - 1) * 3  # 1, 2, 3
        if col == to_move:
            out[0][p] = 1.0
            out[2 + libs][p] = 1.0
        else:
            out[1][p] = 1.0
            out[5 + libs][p] = 1.0
    if ko != NONE:
        out[9][ko] = 1.0
    for k, q in enumerate((l1, l2, l3, l4)):
        if q != NONE:
            out[10 + k][q] = 1.0
    k = komi2 if to_move == 2 else -komi2
    kv = float_f32(float_f32(k) / 20.0)
    for p in range(NN):
        out[14][p] = 1.0
        out[15][p] = 1.0 if to_move == 1 else 0.0
        out[16][p] = kv
    return out


def float_f32(x):
    """Round a Python float to the nearest float32 value (as torch and Rust f32 would)."""
    import struct

    return struct.unpack("<f", struct.pack("<f", x))[0]


def replay_positions(game, komi2_default=0):
    """Replay a 19x19 game without setup stones; yields (board_codes, meta) for every position
    whose next move is on the board (positions before a pass are not training samples). Raises
    IllegalMove or SgfError on a broken record."""
    if game.size != N:
        raise SgfError("size %d" % game.size)
    b = Board()
    for col, p in game.setup:
        b.place(col, p)
    komi2 = game.komi2 if game.komi2 is not None else komi2_default
    for col, p in game.moves:
        if p is not None:
            l1, l2, l3, l4 = b.last_moves()
            meta = (col, b.ko, l1, l2, l3, l4, komi2, p)
            yield bytes(b.compact_board()), meta
        b.play(col, p)


# ---------------------------------------------------------------- symmetries


def symmetry_maps():
    """For each of the 8 symmetries s: perm[s][d] = the source point whose value lands on point d
    (out[d] = in[perm[d]]), and dest[s][p] = where point p goes. Symmetry s transposes when s & 4,
    then flips the rows when s & 1 and the columns when s & 2."""
    perms, dests = [], []
    for s in range(8):
        dest = [0] * NN
        for p in range(NN):
            r, c = divmod(p, N)
            if s & 4:
                r, c = c, r
            if s & 1:
                r = N - 1 - r
            if s & 2:
                c = N - 1 - c
            dest[p] = r * N + c
        perm = [0] * NN
        for p in range(NN):
            perm[dest[p]] = p
        perms.append(perm)
        dests.append(dest)
    return perms, dests
