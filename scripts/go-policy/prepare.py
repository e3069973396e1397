#!/usr/bin/env python3
"""Turn a folder of SGF game records into compact training positions for the Go policy network.

    python3 scripts/go-policy/prepare.py --sgf DIR --out OUT [--collection TEXT] [--seed 1]
                                         [--held-out-permille 50] [--min-moves 20]

Plain Python 3 (no numpy, no torch). It downloads nothing: it reads every *.sgf / *.SGF file under
DIR (sorted by path) and writes into OUT:
  manifest.tsv  the collection (--collection, as the user names it, and DIR), then one line per
                file: path under DIR, sha256, bytes, games read, and what became of each
  games.tsv     one line per game kept: move-sequence hash, file, split (train/val), positions
  train.boards, val.boards   uint8, 361 per position (board codes, goboard.py)
  train.meta,   val.meta     int16 little-endian, 8 per position (goboard.py)
  train.result, val.result   int8, 1 per position: the game's result from the side to move's view
                (1 won, -1 lost, 0 unknown: no RE, a draw, a void or an unreadable RE), the value
                head's target
  summary.json  the counts

Which games are kept: 19x19 only; no handicap (HA > 0) and no setup stones (AB/AW); at least
--min-moves moves; a record the replay refuses (a move on an occupied point, a suicide, a bad
coordinate) is dropped whole. De-duplication: games with the same size, setup and move sequence
(goboard.Game.key) are one game; the first by file path is kept. The held-out set is chosen by game:
a game is held out when int(sha1("SEED:KEY")) % 1000 < --held-out-permille, so the split does not
depend on the order of the files or on which other files are present. Samples: every position of
a kept game whose next move is on the board (a position before a pass is not a sample), with the
move played as the target.
"""

import argparse
import hashlib
import json
import os
import sys
import time
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goboard  # noqa: E402


def list_sgf(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in filenames:
            if f.lower().endswith(".sgf"):
                out.append(os.path.relpath(os.path.join(dirpath, f), root))
    out.sort()
    return out


def decode(data):
    for enc in ("utf-8", "gb18030"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            pass
    return data.decode("latin-1")


def held_out(seed, key, permille):
    h = hashlib.sha1(("%d:%s" % (seed, key)).encode()).hexdigest()
    return int(h, 16) % 1000 < permille


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sgf", required=True, help="folder of SGF files (read recursively)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--collection", default="", help="where the records came from (free text)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--held-out-permille", type=int, default=50)
    ap.add_argument("--min-moves", type=int, default=20)
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    files = list_sgf(args.sgf)
    if not files:
        sys.exit("prepare.py: no .sgf file under %s" % args.sgf)
    t0 = time.time()
    seen = {}
    counts = {
        "files": len(files),
        "games_read": 0,
        "kept": 0,
        "duplicate": 0,
        "not_19x19": 0,
        "handicap_or_setup": 0,
        "too_short": 0,
        "broken": 0,
        "unreadable_files": 0,
        "komi_missing": 0,
    }
    split_games = {"train": 0, "val": 0}
    split_pos = {"train": 0, "val": 0}
    out_b = {s: open(os.path.join(args.out, s + ".boards.tmp"), "wb") for s in split_pos}
    out_m = {s: open(os.path.join(args.out, s + ".meta.tmp"), "wb") for s in split_pos}
    out_r = {s: open(os.path.join(args.out, s + ".result.tmp"), "wb") for s in split_pos}
    results = {"B": 0, "W": 0, "unknown": 0}
    man = []
    games_tsv = []
    for fi, rel in enumerate(files):
        data = open(os.path.join(args.sgf, rel), "rb").read()
        sha = hashlib.sha256(data).hexdigest()
        fates = []
        try:
            trees = goboard.parse_sgf(decode(data))
        except Exception as e:  # a file we cannot parse at all
            counts["unreadable_files"] += 1
            man.append((rel, sha, len(data), 0, "unreadable:%s" % type(e).__name__))
            continue
        for nodes in trees:
            counts["games_read"] += 1
            try:
                g = goboard.read_game(nodes)
            except goboard.SgfError:
                counts["broken"] += 1
                fates.append("broken")
                continue
            if g.size != 19:
                counts["not_19x19"] += 1
                fates.append("size%d" % g.size)
                continue
            if g.handicap > 0 or g.setup:
                counts["handicap_or_setup"] += 1
                fates.append("handicap")
                continue
            if len(g.moves) < args.min_moves:
                counts["too_short"] += 1
                fates.append("short")
                continue
            key = g.key()
            if key in seen:
                counts["duplicate"] += 1
                fates.append("dup-of:" + seen[key])
                continue
            try:
                pos = list(goboard.replay_positions(g))
            except (goboard.IllegalMove, goboard.SgfError) as e:
                counts["broken"] += 1
                fates.append("broken:%s" % e)
                continue
            seen[key] = rel
            if g.komi2 is None:
                counts["komi_missing"] += 1
            split = "val" if held_out(args.seed, key, args.held_out_permille) else "train"
            winner = winner_of(g.props)
            results["B" if winner == 1 else "W" if winner == 2 else "unknown"] += 1
            for board, meta in pos:
                out_b[split].write(board)
                out_m[split].write(array("h", meta).tobytes() if sys.byteorder == "little"
                                   else _swapped(meta))
                out_r[split].write(bytes([0 if winner == 0 else 1 if meta[0] == winner else 255]))
            split_games[split] += 1
            split_pos[split] += len(pos)
            counts["kept"] += 1
            games_tsv.append((key, rel, split, len(pos)))
            fates.append(split)
        man.append((rel, sha, len(data), len(trees), ",".join(fates) or "no-game"))
        if (fi + 1) % 500 == 0:
            print("%d/%d files, %d games kept, %d positions, %.0f s" % (
                fi + 1, len(files), counts["kept"], sum(split_pos.values()), time.time() - t0),
                flush=True)
    for s in split_pos:
        out_b[s].close()
        out_m[s].close()
        out_r[s].close()
        os.replace(os.path.join(args.out, s + ".result.tmp"), os.path.join(args.out, s + ".result"))
        os.replace(os.path.join(args.out, s + ".boards.tmp"), os.path.join(args.out, s + ".boards"))
        os.replace(os.path.join(args.out, s + ".meta.tmp"), os.path.join(args.out, s + ".meta"))
    with open(os.path.join(args.out, "manifest.tsv"), "w") as f:
        f.write("# baduk go-policy data manifest 1\n")
        f.write("# collection: %s\n" % args.collection)
        f.write("# folder: %s\n" % os.path.abspath(args.sgf))
        f.write("# seed: %d, held-out permille: %d, min moves: %d\n" % (
            args.seed, args.held_out_permille, args.min_moves))
        f.write("# path\tsha256\tbytes\tgames\tfate of each game\n")
        for row in man:
            f.write("\t".join(str(x) for x in row) + "\n")
    with open(os.path.join(args.out, "games.tsv"), "w") as f:
        f.write("# key\tfile\tsplit\tpositions\n")
        for row in games_tsv:
            f.write("\t".join(str(x) for x in row) + "\n")
    manifest_sha = hashlib.sha256(open(os.path.join(args.out, "manifest.tsv"), "rb").read())
    summary = dict(counts, collection=args.collection, folder=os.path.abspath(args.sgf),
                   seed=args.seed, held_out_permille=args.held_out_permille,
                   min_moves=args.min_moves, train_games=split_games["train"],
                   val_games=split_games["val"], train_positions=split_pos["train"],
                   val_positions=split_pos["val"], winners=results, manifest_sha256=manifest_sha.hexdigest(),
                   planes_version=goboard.PLANES_VERSION, seconds=round(time.time() - t0, 1))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print(json.dumps(summary, indent=1))


def winner_of(root):
    """The winner's colour from the record's RE (1 Black, 2 White), or 0: none, a draw, a void."""
    re_ = (root.get("RE") or [""])[0].strip().upper()
    if re_.startswith("B+"):
        return 1
    if re_.startswith("W+"):
        return 2
    return 0


def _swapped(meta):
    a = array("h", meta)
    a.byteswap()
    return a.tobytes()


if __name__ == "__main__":
    main()
