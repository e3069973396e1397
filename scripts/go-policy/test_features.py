#!/usr/bin/env python3
"""Self-test of the replay and the input planes (goboard.py); runs in seconds with plain Python.

    python3 scripts/go-policy/test_features.py [--sgf DIR]

Checks: captures, ko and suicide on hand-made positions; the incremental board against a naive
flood-fill board over seeded random games (thousands of moves, many captures); the planes'
invariants and the symmetry maps; with --sgf, every 19x19 record under DIR replays the same on
both boards. Where torch can be imported, the batched planes of train.py are compared with
goboard.planes() value for value.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goboard  # noqa: E402
from goboard import N, NN, NONE, NEIGHBOURS  # noqa: E402

FAILS = []
PASSED = [0]


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILS.append(what)
        print("FAIL:", what)


def pt(s):
    return goboard.sgf_point(s)


class NaiveBoard:
    """Recomputes chains by flood fill after every move; slow and obviously right."""

    def __init__(self):
        self.c = [0] * NN

    def chain_of(self, p):
        col = self.c[p]
        stones, libs, todo = {p}, set(), [p]
        while todo:
            q = todo.pop()
            for r in NEIGHBOURS[q]:
                if self.c[r] == 0:
                    libs.add(r)
                elif self.c[r] == col and r not in stones:
                    stones.add(r)
                    todo.append(r)
        return stones, libs

    def legal(self, col, p):
        if self.c[p]:
            return False
        self.c[p] = col
        ok = bool(self.chain_of(p)[1])
        if not ok:
            for q in NEIGHBOURS[p]:
                if self.c[q] == 3 - col and not self.chain_of(q)[1]:
                    ok = True
        self.c[p] = 0
        return ok

    def play(self, col, p):
        self.c[p] = col
        ncap = 0
        for q in NEIGHBOURS[p]:
            if self.c[q] == 3 - col:
                stones, libs = self.chain_of(q)
                if not libs:
                    for s in stones:
                        self.c[s] = 0
                        ncap += 1
        assert self.chain_of(p)[1]
        return ncap

    def codes(self):
        out = bytearray(NN)
        for p in range(NN):
            if self.c[p]:
                out[p] = (self.c[p] - 1) * 3 + min(len(self.chain_of(p)[1]), 3)
        return out


def test_basics():
    b = goboard.Board()
    # Black captures a white stone in the corner: W aa, B ba, B ab
    b.play(2, pt("aa"))
    b.play(1, pt("ba"))
    check(b.compact_board()[pt("aa")] == 4, "corner stone in atari has code 4 (white, 1 lib)")
    b.play(1, pt("ab"))
    check(b.colour[pt("aa")] == 0, "corner stone captured")
    check(b.ko == NONE, "capture by a stone with 2 libs is no ko")
    # suicide refused: white plays into aa again
    try:
        b.play(2, pt("aa"))
        check(False, "suicide refused")
    except goboard.IllegalMove:
        check(True, "suicide refused")
    # a ko: white ee inside black ed, de, fe; black ef inside white df, ff, eg captures it
    b = goboard.Board()
    for col, s in ((1, "ed"), (1, "de"), (1, "fe"), (2, "ee"), (2, "df"), (2, "ff"), (2, "eg")):
        b.play(col, pt(s))
    b.play(1, pt("ef"))
    check(b.colour[pt("ee")] == 0, "white ee captured")
    check(b.ko == pt("ee"), "capturing one stone with a lone stone in atari makes a ko")
    # white may not retake; another move clears the ko
    b.play(2, pt("aa"))
    check(b.ko == NONE, "ko cleared by another move")
    # planes: codes and meta
    codes = b.compact_board()
    meta = (1, NONE, pt("aa"), pt("ef"), pt("eg"), pt("ff"), 15, 0)
    pl = goboard.planes(codes, meta)
    check(pl[10][pt("aa")] == 1.0 and sum(pl[10]) == 1.0, "last-move plane")
    check(pl[13][pt("ff")] == 1.0, "fourth-last move plane")
    check(all(v == 1.0 for v in pl[14]) and all(v == 1.0 for v in pl[15]), "ones and black planes")
    check(pl[16][0] == goboard.float_f32(-15 / 20.0), "komi plane, black to move: -0.75")
    check(sum(pl[0]) + sum(pl[1]) + sum(pl[2]) == NN, "own + opponent + empty = every point")
    check(sum(pl[3]) + sum(pl[4]) + sum(pl[5]) == sum(pl[0]), "own liberty planes partition own")
    check(pl[3][pt("ef")] == 1.0, "ef, its only liberty the ko point, is in the own 1-liberty plane")


def test_random_games(games=6, moves=400, seed=7):
    rng = random.Random(seed)
    total_caps = kos = 0
    for g in range(games):
        b, nb = goboard.Board(), NaiveBoard()
        col = 1
        for m in range(moves):
            cand = [p for p in range(NN) if nb.legal(col, p) and p != b.ko]
            if not cand:
                b.play(col, None)
                col = 3 - col
                continue
            p = rng.choice(cand)
            total_caps += nb.play(col, p)
            b.play(col, p)
            kos += b.ko != NONE
            if m % 7 == 0 or b.ko != NONE:
                if bytes(b.compact_board()) != bytes(nb.codes()):
                    check(False, "random game %d move %d: boards differ" % (g, m))
                    return
            col = 3 - col
    check(total_caps > 100, "random games capture (%d stones)" % total_caps)
    check(kos > 0, "random games have ko points (%d)" % kos)
    check(True, "incremental board = naive board over %d random games" % games)


def test_symmetries():
    perms, dests = goboard.symmetry_maps()
    check(perms[0] == list(range(NN)), "symmetry 0 is the identity")
    check(len({tuple(p) for p in perms}) == 8, "8 distinct symmetries")
    for s in range(8):
        check(sorted(perms[s]) == list(range(NN)), "symmetry %d is a permutation" % s)
        check(all(perms[s][dests[s][p]] == p for p in range(NN)), "dest inverts perm %d" % s)
    # transpose: point (r=0, c=3) goes to (r=3, c=0)
    check(dests[4][3] == 3 * N, "symmetry 4 transposes")


def test_sgf_parse():
    text = "(;GM[1]SZ[19]KM[750]HA[0]C[a \\] b];B[pd];W[dp](;B[pp];W[tt])(;B[dd]))"
    games = goboard.parse_sgf(text)
    check(len(games) == 1, "one game tree")
    g = goboard.read_game(games[0])
    check(g.komi2 == 15, "KM[750] read as 7.5")
    check([m[1] for m in g.moves] == [pt("pd"), pt("dp"), pt("pp"), None], "main line, tt = pass")
    check(goboard.parse_komi(["375"]) == 15 and goboard.parse_komi(["6.5"]) == 13, "komi forms")
    pos = list(goboard.replay_positions(g))
    check(len(pos) == 3, "a position before a pass is no sample")
    check(pos[2][1][2] == pt("dp"), "last move of the third position is dp")


def test_sgf_dir(root, limit):
    import prepare

    files = prepare.list_sgf(root)[:limit]
    n = moves = 0
    for rel in files:
        text = prepare.decode(open(os.path.join(root, rel), "rb").read())
        for nodes in goboard.parse_sgf(text):
            try:
                g = goboard.read_game(nodes)
            except goboard.SgfError:
                continue
            if g.size != 19 or g.setup:
                continue
            b, nb = goboard.Board(), NaiveBoard()
            try:
                for col, p in g.moves:
                    if p is not None:
                        nb.play(col, p)
                    b.play(col, p)
                    moves += 1
            except (goboard.IllegalMove, AssertionError):
                continue
            if bytes(b.compact_board()) != bytes(nb.codes()):
                check(False, "%s: final boards differ" % rel)
            n += 1
    check(n > 0, "replayed %d records (%d moves) from %s" % (n, moves, root))
    print("replayed %d records, %d moves" % (n, moves))


def test_torch_planes():
    try:
        import torch  # noqa: F401
        import train
    except Exception as e:  # torch missing or broken: the rest still counts
        print("torch planes: skipped (%s)" % type(e).__name__)
        return
    rng = random.Random(3)
    boards, metas = [], []
    for g in range(3):
        b = goboard.Board()
        col = 1
        for m in range(150):
            nb = NaiveBoard()
            nb.c = list(b.colour)
            cand = [p for p in range(NN) if nb.legal(col, p) and p != b.ko]
            p = rng.choice(cand)
            if m % 10 == 9:
                l1, l2, l3, l4 = b.last_moves()
                boards.append(bytes(b.compact_board()))
                metas.append((col, b.ko, l1, l2, l3, l4, rng.choice([15, 13, 0, -3]), p))
            b.play(col, p)
            col = 3 - col
    x = train.batch_planes(torch.tensor([list(x) for x in boards], dtype=torch.uint8),
                           torch.tensor(metas, dtype=torch.int16))
    ok = True
    for i in range(len(boards)):
        ref = goboard.planes(boards[i], metas[i])
        got = x[i].reshape(goboard.NUM_PLANES, NN).tolist()
        if got != ref:
            ok = False
    check(ok, "batched torch planes = goboard.planes() on %d positions" % len(boards))


def test_export_roundtrip():
    try:
        import torch
        import train
    except Exception as e:
        print("export round trip: skipped (%s)" % type(e).__name__)
        return
    import tempfile

    model = train.random_model(5, 2, 8)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.bin")
        train.export(model, path, {"note": "test"})
        info, tensors = train.read_export(path)
        check(info.get("note") == "test", "export header read back")
        positions = train.fixture_positions()
        check(len(positions) >= 6 and any(len(m) > 100 for m, _ in positions),
              "fixture has %d positions" % len(positions))
        b = goboard.Board()
        for c, p in positions[-1][0]:
            b.play(c, p)
        codes = b.compact_board()
        meta = (1, b.ko, *b.last_moves(), 15, 0)
        x = torch.tensor(goboard.planes(codes, meta)).reshape(1, goboard.NUM_PLANES, N, N)
        with torch.no_grad():
            diff = (model(x) - train.folded_forward(tensors, x)).abs().max().item()
        check(diff < 1e-4, "folded export computes the model's logits (max diff %.2g)" % diff)
        fx = os.path.join(d, "f.txt")
        train.write_fixture(path, fx)
        lines = open(fx).read().split("\n")
        check(lines[0] == "baduk-go-policy-fixture 1", "fixture header")
        logits = [ln for ln in lines if ln.startswith("logits: ")]
        check(len(logits) == len(positions) and len(logits[0].split()) == NN + 1,
              "fixture has 361 logits per position")
        with open(path, "ab") as f:
            f.write(b"xxxx")
        try:
            train.read_export(path)
            check(False, "a file longer than its header says is refused")
        except ValueError:
            check(True, "a file longer than its header says is refused")


def main():
    sgf = None
    if "--sgf" in sys.argv:
        sgf = sys.argv[sys.argv.index("--sgf") + 1]
    test_basics()
    test_sgf_parse()
    test_symmetries()
    test_random_games()
    test_torch_planes()
    test_export_roundtrip()
    if sgf:
        test_sgf_dir(sgf, 100000)
    print("%d passed, %d failed" % (PASSED[0], len(FAILS)))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
