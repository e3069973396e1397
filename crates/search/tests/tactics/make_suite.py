"""Usage: python3 make_suite.py DIR. Writes the tactical suite: base diagrams, each under board symmetries and colour swaps, as
SGF files plus index.txt. Markers: X/O stones, '.' empty, 'a' right answer (empty point), 'b' a
move to avoid (empty point), 'T' the target stone (of the colour not to move in capture/kill
problems, of the colour to move in save/live problems; drawn as White in the base)."""
import os, sys
COLS = "ABCDEFGHJKLMNOPQRST"
OUT = sys.argv[1]
BASE = []
def base(name, kind, to_move, check, rows, variants):
    assert all(len(r) == len(rows) for r in rows), name
    BASE.append((name, kind, to_move, check, rows, variants))

E = "........."
V6 = [(0, False), (1, True), (2, False), (3, True), (5, False), (6, True)]
V5 = [(0, False), (1, True), (4, False), (6, True), (7, False)]
V4 = [(0, False), (3, True), (5, False), (6, True)]
def board19(stones, marks):
    g = [["."] * 19 for _ in range(19)]
    for (x, y, c) in stones + marks:
        g[y][x] = c
    return ["".join(r) for r in g]

LAD = [(7, 10, "X"), (8, 10, "T"), (8, 11, "X"), (9, 11, "X")]
BRK = [(14, 4, "O")]
base("ladder-works", "ladder", "B", "capture",
     [E, E, E, E, E, "...a.....", ".XXTb....", "...XX....", E], V6)
base("ladder-futile", "ladder", "W", "save",
     [E, E, E, E, E, "...X.....", ".XXTb....", "...XX....", E], V6)
base("ladder-countercapture", "ladder", "W", "save",
     [E, E, E, E, E, "..aX.....", ".OXT.....", "..OXX....", E], V4)
base("edge-ladder", "ladder", "W", "save",
     [E, E, E, "b........", "TX.......", "X........", E, E, E], V4)
base("centre-ladder-works", "ladder", "B", "capture", board19(LAD, [(8, 9, "a"), (9, 10, "b")]), V4)
base("centre-ladder-breaker", "ladder", "B", "capture",
     board19(LAD + BRK, [(8, 9, "b"), (9, 10, "b")]), V4)
base("centre-ladder-futile", "ladder", "W", "save", board19(LAD + [(8, 9, "X")], [(9, 10, "b")]), V4)
base("centre-ladder-escape", "ladder", "W", "save",
     board19(LAD + [(8, 9, "X")] + BRK, [(9, 10, "a")]), V4)
base("centre-net", "net", "B", "capture",
     board19([(7, 10, "X"), (8, 10, "T"), (8, 11, "X"), (9, 11, "X"), (6, 9, "X")] + BRK, [(9, 9, "a")]), V4)
base("nakade-three-kill", "nakade", "B", "kill",
     [E, E, E, E, E, "XXXXX....", "TOOOX....", ".a.OX....", "OOOOX...."], V4)
base("nakade-three-live", "nakade", "W", "live",
     [E, E, E, E, E, "XXXXX....", "TOOOX....", ".a.OX....", "OOOOX...."], V4)
base("bulky-five-kill", "nakade", "B", "kill",
     [E, E, E, E, E, "XXXX.....", "TOOXX....", "..OOX....", ".a.OX...."], V4)
base("bulky-five-live", "nakade", "W", "live",
     [E, E, E, E, E, "XXXX.....", "TOOXX....", "..OOX....", ".a.OX...."], V4)
base("bent-three-kill", "nakade", "B", "kill",
     [E, E, E, E, E, "XXX......", "TOXX.....", ".OOX.....", "a.OX....."], V4)
base("bent-three-live", "nakade", "W", "live",
     [E, E, E, E, E, "XXX......", "TOXX.....", ".OOX.....", "a.OX....."], V4)
base("snapback", "snapback", "B", "capture",
     [E, E, E, E, E, E, "XXXX.....", "TOOXOO...", "ObaOO...."], V4)

def transform(rows, sym, swap):
    n = len(rows)
    out = [[None] * n for _ in range(n)]
    for y in range(n):
        for x in range(n):
            xx, yy = x, y
            if sym & 1: xx = n - 1 - xx
            if sym & 2: yy = n - 1 - yy
            if sym & 4: xx, yy = yy, xx
            c = rows[y][x]
            if swap:
                c = {"X": "O", "O": "X"}.get(c, c)
            out[yy][xx] = c
    return ["".join(r) for r in out]

def vertex(x, y):
    return f"{COLS[x]}{N - y}"

def sgfpt(x, y):
    return "abcdefghijklmnopqrs"[x] + "abcdefghijklmnopqrs"[y]

os.makedirs(OUT, exist_ok=True)
index = []
for name, kind, to_move, check, rows, variants in BASE:
    for k, (sym, swap) in enumerate(variants):
        r = transform(rows, sym, swap)
        N = len(r)
        tm = to_move if not swap else {"B": "W", "W": "B"}[to_move]
        tcol = "W" if not swap else "B"
        ab, aw, ans, avoid, target = [], [], [], [], None
        for y in range(N):
            for x in range(N):
                c = r[y][x]
                if c == "X": ab.append(sgfpt(x, y))
                elif c == "O": aw.append(sgfpt(x, y))
                elif c == "T":
                    (aw if tcol == "W" else ab).append(sgfpt(x, y)); target = vertex(x, y)
                elif c == "a": ans.append(vertex(x, y))
                elif c == "b": avoid.append(vertex(x, y))
        fname = f"{name}-{k + 1}.sgf"
        sgf = "(;GM[1]FF[4]SZ[%d]RU[Chinese]KM[7]PL[%s]\nAB%s\nAW%s\nC[%s: %s to play, %s %s]\n)\n" % (
            N, tm, "".join(f"[{p}]" for p in ab), "".join(f"[{p}]" for p in aw), kind, tm, check,
            target)
        open(os.path.join(OUT, fname), "w").write(sgf)
        index.append((fname, kind, tm, check, target, ans, avoid))
with open(os.path.join(OUT, "authored.txt"), "w") as f:
    for fname, kind, tm, check, target, ans, avoid in index:
        f.write(f"{fname} {kind} {tm} {check} {target} answers={','.join(ans) or '-'} avoid={','.join(avoid) or '-'}\n")
print(len(index), "positions")
