#!/usr/bin/env python3
"""Train the Go policy network (next-move prediction) on positions from prepare.py, on a CPU.

    train.py --data PREPARED --ckpt DIR --export DIR [--blocks 6 --channels 48] [--log FILE]
    train.py --data PREPARED --bench 4x32,6x64,10x96         (samples/s of each size, one thread)
    train.py --fixture-only --ckpt DIR --export DIR           (re-export weights and fixture)
    train.py --test-model DIR          (an untrained 2x8 network and fixture for the Rust tests)

Framework: PyTorch 2.15.0 from PyPI, chosen over a numpy-only trainer or a Rust framework for
its fast CPU convolutions (oneDNN) and autograd: 115 samples/s for 6x48 on one loaded core. It is
the only torch on the registries this project reaches, and PyPI's Linux wheel is the CUDA build:
with --no-deps it does not import (libcudart.so.13 missing), so `scripts/train-go-policy`
installs it whole in a venv outside the repo (5.4 GB, docs/bot.md has the 4.1 GB minimum) and
only the CPU is used. numpy reads the data files. One thread (torch.set_num_threads(1)): the
recipe is sized for a shared 2-core machine.

Inputs: the 17 planes of goboard.py (version 1), built here in batches by batch_planes(), which
test_features.py checks against goboard.planes() value for value.

Network: a residual tower.
  stem:   conv 3x3, 17 -> C, batch norm, ReLU
  blocks: B times: conv 3x3 C -> C, BN, ReLU, conv 3x3 C -> C, BN, add the block's input, ReLU
  head:   conv 1x1, C -> 1, with bias; its 361 outputs (row-major, p = row * 19 + col) are the
          move logits (softmax over the 361 points; no pass output)
Every convolution pads with zeros (outside the board is 0 in every plane, the ones plane 14 marks
the board). Loss: cross-entropy on the move played. Optimiser: AdamW (lr 1e-3, weight decay 1e-4),
batch 128. Augmentation: each sample in one of the 8 symmetries (goboard.symmetry_maps), drawn
from a generator seeded by (seed, epoch, offset), so a resumed run draws the same as an unbroken one.
Data order: a permutation of the training positions per epoch, seeded by (seed, epoch).

Checkpoints: every --ckpt-minutes (10) of training, DIR/ckpt.pt (model, optimiser, epoch, offset
in the epoch, samples seen, evaluations so far) is replaced atomically; re-running the same
command resumes from it. At each checkpoint: held-out top-1/top-5 (and loss) on --eval-positions
positions drawn once (seed) from the held-out games, identity symmetry, batch norm in eval mode;
the log line says them; the weights are exported (format below) with a fixture.

Export format "baduk-go-policy 1" (EXPORT/go-policy.bin): UTF-8 header lines ending in "\\n":
  baduk-go-policy 1
  key: value lines (planes, blocks, channels, recipe, data, manifest-sha256, held-out, trained)
  tensor NAME D0 D1 ...   one line per tensor, in the order their data follows
  end
then each tensor's float32 values, little-endian, row-major (PyTorch's (out, in, kh, kw) for
convolutions). Batch norm is folded into the convolution before it (w * g / sqrt(v + eps),
b = beta - m * g / sqrt(v + eps)), so the tensors are: stem.weight, stem.bias, then for each
block i: block{i}.conv1.weight/.bias, block{i}.conv2.weight/.bias, then head.weight, head.bias.
Forward: x = relu(conv(planes, stem)); per block y = relu(conv(x, conv1)); x = relu(x +
conv(y, conv2)); logits = conv1x1(x, head). conv is PyTorch's cross-correlation:
out[o][r][c] = bias[o] + sum_i sum_dy sum_dx w[o][i][dy][dx] * in[i][r + dy - 1][c + dx - 1].

Fixture (EXPORT/go-policy-fixture.txt, see write_fixture): fixed positions (moves from the empty
board), their planes and the exported network's logits, for a Rust forward pass to compare with.
"""

import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goboard  # noqa: E402

NN = goboard.NN
NP = goboard.NUM_PLANES
FORMAT = "baduk-go-policy 1"

_PERM, _DEST = goboard.symmetry_maps()
PERM = torch.tensor(_PERM, dtype=torch.long)  # (8, 361): out[d] = in[PERM[s][d]]
DEST = torch.tensor(_DEST, dtype=torch.long)  # (8, 361): point p goes to DEST[s][p]


def batch_planes(boards, meta):
    """boards (B, 361) uint8 codes, meta (B, 8) int16 -> planes (B, 17, 19, 19) float32, exactly
    goboard.planes() for each position."""
    b = boards.long()
    m = meta.long()
    B = b.shape[0]
    to_move = m[:, 0:1]
    col = torch.where(b == 0, 0, torch.where(b <= 3, 1, 2))
    libs = b - (col - 1) * 3
    own = (col == to_move) & (col != 0)
    opp = (col != 0) & ~own
    x = torch.zeros(B, NP, NN + 1)
    x[:, 0, :NN] = own.float()
    x[:, 1, :NN] = opp.float()
    x[:, 2, :NN] = (b == 0).float()
    for lib in (1, 2, 3):
        x[:, 2 + lib, :NN] = (own & (libs == lib)).float()
        x[:, 5 + lib, :NN] = (opp & (libs == lib)).float()
    # point planes: scatter into a 362-wide row, column 361 ("none") is dropped
    for plane, k in ((9, 1), (10, 2), (11, 3), (12, 4), (13, 5)):
        x[:, plane].scatter_(1, m[:, k:k + 1], 1.0)
    x[:, 14] = 1.0
    x[:, 15] = (to_move == 1).float()
    k = torch.where(to_move == 2, m[:, 6:7], -m[:, 6:7]).float()
    x[:, 16] = k / 20.0
    return x[:, :, :NN].reshape(B, NP, 19, 19).contiguous()


def apply_symmetry(x, target, sym):
    """Each sample i in symmetry sym[i]: planes (B, 17, 19, 19) and target points (B,)."""
    B = x.shape[0]
    perm = PERM[sym]  # (B, 361)
    flat = x.reshape(B, NP, NN)
    out = torch.gather(flat, 2, perm[:, None, :].expand(B, NP, NN))
    tgt = DEST[sym, target]
    return out.reshape(B, NP, 19, 19), tgt


class Block(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PolicyNet(nn.Module):
    def __init__(self, blocks, channels):
        super().__init__()
        self.blocks_n = blocks
        self.channels = channels
        self.stem = nn.Conv2d(NP, channels, 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(channels)
        self.blocks = nn.ModuleList(Block(channels) for _ in range(blocks))
        self.head = nn.Conv2d(channels, 1, 1, bias=True)

    def forward(self, x):
        x = F.relu(self.stem_bn(self.stem(x)))
        for blk in self.blocks:
            x = blk(x)
        return self.head(x).flatten(1)


def folded(model):
    """(name, float32 tensor) in export order, batch norm folded into the convolutions."""

    def fold(conv, bn):
        s = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        w = conv.weight * s[:, None, None, None]
        b = bn.bias - bn.running_mean * s
        return w.detach().float().contiguous(), b.detach().float().contiguous()

    out = []
    w, b = fold(model.stem, model.stem_bn)
    out += [("stem.weight", w), ("stem.bias", b)]
    for i, blk in enumerate(model.blocks):
        w, b = fold(blk.conv1, blk.bn1)
        out += [("block%d.conv1.weight" % i, w), ("block%d.conv1.bias" % i, b)]
        w, b = fold(blk.conv2, blk.bn2)
        out += [("block%d.conv2.weight" % i, w), ("block%d.conv2.bias" % i, b)]
    out += [("head.weight", model.head.weight.detach().float().contiguous()),
            ("head.bias", model.head.bias.detach().float().contiguous())]
    return out


def folded_trunk(tensors, x):
    """The trunk (stem and blocks) from the folded tensors: its output before the head."""
    t = dict(tensors)
    x = F.relu(F.conv2d(x, t["stem.weight"], t["stem.bias"], padding=1))
    i = 0
    while "block%d.conv1.weight" % i in t:
        y = F.relu(F.conv2d(x, t["block%d.conv1.weight" % i], t["block%d.conv1.bias" % i],
                            padding=1))
        x = F.relu(x + F.conv2d(y, t["block%d.conv2.weight" % i], t["block%d.conv2.bias" % i],
                                padding=1))
        i += 1
    return x


def folded_forward(tensors, x):
    """The forward pass a reader of the export computes, from the folded tensors."""
    t = dict(tensors)
    return F.conv2d(folded_trunk(tensors, x), t["head.weight"], t["head.bias"]).flatten(1)


# ---------------------------------------------------------------- data


class Data:
    def __init__(self, folder, split):
        self.boards = np.fromfile(os.path.join(folder, split + ".boards"), dtype=np.uint8)
        self.meta = np.fromfile(os.path.join(folder, split + ".meta"), dtype="<i2")
        n = self.boards.size // NN
        if self.boards.size != n * NN or self.meta.size != n * 8:
            sys.exit("train.py: %s/%s.* sizes do not match" % (folder, split))
        self.boards = torch.from_numpy(self.boards.reshape(n, NN))
        self.meta = torch.from_numpy(self.meta.reshape(n, 8).astype(np.int16))
        self.n = n

    def batch(self, idx):
        return self.boards[idx], self.meta[idx]


def evaluate(model, val, idx, batch=256):
    model.eval()
    top1 = top5 = 0
    loss = 0.0
    with torch.no_grad():
        for s in range(0, len(idx), batch):
            bi = idx[s:s + batch]
            boards, meta = val.batch(bi)
            x = batch_planes(boards, meta)
            tgt = meta[:, 7].long()
            logits = model(x)
            loss += F.cross_entropy(logits, tgt, reduction="sum").item()
            top = logits.topk(5, dim=1).indices
            top1 += (top[:, 0] == tgt).sum().item()
            top5 += (top == tgt[:, None]).any(dim=1).sum().item()
    model.train()
    n = len(idx)
    return {"top1": top1 / n, "top5": top5 / n, "loss": loss / n, "positions": n}


# ---------------------------------------------------------------- export and fixture


def export(model, path, info):
    tensors = folded(model)
    write_export(path, FORMAT, info, tensors)
    return tensors


def write_export(path, fmt, info, tensors):
    """Writes an export: the format line, info's key: value lines, the tensor lines, "end",
    then the float32 values (atomically: a temporary file, then renamed)."""
    lines = [fmt]
    for k, v in info.items():
        lines.append("%s: %s" % (k, str(v).replace("\n", " ")))
    for name, t in tensors:
        lines.append("tensor %s %s" % (name, " ".join(str(d) for d in t.shape)))
    lines.append("end")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(("\n".join(lines) + "\n").encode())
        for _, t in tensors:
            f.write(t.numpy().astype("<f4").tobytes())
    os.replace(tmp, path)


def read_export(path):
    """Reads a "baduk-go-policy 1" file back: (header dict, [(name, tensor)])."""
    data = open(path, "rb").read()
    end = data.index(b"\nend\n") + 5
    head = data[:end].decode().split("\n")
    if head[0] != FORMAT:
        raise ValueError("%s: not a %s file" % (path, FORMAT))
    info, shapes = {}, []
    for line in head[1:]:
        if line.startswith("tensor "):
            parts = line.split()
            shapes.append((parts[1], [int(d) for d in parts[2:]]))
        elif ": " in line:
            k, v = line.split(": ", 1)
            info[k] = v
    off = end
    tensors = []
    for name, shape in shapes:
        n = math.prod(shape)
        arr = np.frombuffer(data, dtype="<f4", count=n, offset=off)
        tensors.append((name, torch.from_numpy(arr.copy()).reshape(shape)))
        off += 4 * n
    if off != len(data):
        raise ValueError("%s: %d bytes of data where the header says %d" % (
            path, len(data) - end, off - end))
    return info, tensors


def fixture_positions():
    """Fixed positions: the empty board and positions of a seeded random legal game (captures, a
    ko). Returns [(moves [(colour, point or None)], komi2)]."""
    rng = random.Random(2026)
    b = goboard.Board()
    moves = []
    col = 1
    out = [([], 15)]
    stops = {1, 2, 5, 60, 150, 230}
    ko_taken = False
    for m in range(1, 400):
        cand = [p for p in range(NN) if legal(b, col, p)]
        p = rng.choice(cand) if cand else None
        b.play(col, p)
        moves.append((col, p))
        col = 3 - col
        if m in stops or (b.ko != goboard.NONE and not ko_taken):
            ko_taken = ko_taken or b.ko != goboard.NONE
            out.append((list(moves), 15 if m % 2 else 13))
        if m >= max(stops) and ko_taken:
            break
    return out


def legal(b, col, p):
    """Go legality on goboard.Board: empty, not the ko point, and not a suicide."""
    if b.colour[p] or p == b.ko:
        return False
    for q in goboard.NEIGHBOURS[p]:
        ch = b.chain[q]
        if ch is None:
            return True
        if ch.colour == col and len(ch.libs) > 1:
            return True
        if ch.colour != col and len(ch.libs) == 1:
            return True
    return False


def fixture_position(moves, komi2):
    """A fixture position from its moves: (board codes, meta, planes, planes as a (1, 17, 19, 19)
    tensor, the moves as SGF)."""
    b = goboard.Board()
    for c, p in moves:
        b.play(c, p)
    to_move = 1 if not moves else 3 - moves[-1][0]
    l1, l2, l3, l4 = b.last_moves()
    meta = (to_move, b.ko, l1, l2, l3, l4, komi2, 0)
    codes = bytes(b.compact_board())
    pl = goboard.planes(codes, meta)
    x = torch.tensor(pl, dtype=torch.float32).reshape(1, NP, 19, 19)
    sgf = " ".join("%s[%s]" % ("BW"[c - 1], "" if p is None else
                               chr(97 + p % 19) + chr(97 + p // 19)) for c, p in moves)
    return codes, meta, pl, x, sgf


def write_fixture(model_path, path, which=None):
    """Writes the fixture for the exported network at model_path (see the module's docstring):
    for each position its moves, board codes, meta, planes 0-15 as 361 digits each, plane 16's
    value, and the 361 logits of the exported (folded) network, each printed with 9 significant
    digits (a float32 reads back exactly)."""
    info, tensors = read_export(model_path)
    sha = hashlib.sha256(open(model_path, "rb").read()).hexdigest()
    lines = ["baduk-go-policy-fixture 1",
             "model: %s sha256 %s" % (os.path.basename(model_path), sha)]
    positions = fixture_positions()
    if which is not None:
        positions = [positions[i] for i in which]
    lines.append("positions: %d" % len(positions))
    for k, (moves, komi2) in enumerate(positions):
        codes, meta, pl, x, sgf = fixture_position(moves, komi2)
        with torch.no_grad():
            logits = folded_forward(tensors, x)[0].tolist()
        lines.append("position %d" % k)
        lines.append("moves: %s" % sgf)
        lines.append("komi2: %d" % komi2)
        lines.append("board: %s" % "".join(str(c) for c in codes))
        lines.append("meta: %s" % " ".join(str(v) for v in meta[:7]))
        for i in range(16):
            lines.append("plane%d: %s" % (i, "".join("1" if v else "0" for v in pl[i])))
        lines.append("plane16: %.9g" % pl[16][0])
        lines.append("logits: %s" % " ".join("%.9g" % v for v in logits))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------- training


def random_model(seed, blocks, channels):
    """An untrained network in eval mode whose batch norms have random statistics and affine
    weights (as after training, so folding them is exercised)."""
    torch.manual_seed(seed)
    model = PolicyNet(blocks, channels)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    return model.eval()


def write_test_model(folder):
    """A small untrained network (2 blocks x 8 channels, seeded random weights and batch norm
    statistics) exported with a three-position fixture: what the Rust forward pass's unit tests
    compare with (crates/search/tests/data/). Not a model to play with."""
    os.makedirs(folder, exist_ok=True)
    model = random_model(44, 2, 8)
    mp = os.path.join(folder, "go-policy-test.bin")
    export(model, mp, {
        "planes": "%d (%d input planes, scripts/go-policy/goboard.py)" % (
            goboard.PLANES_VERSION, NP),
        "blocks": 2, "channels": 8,
        "recipe": "untrained: scripts/go-policy/train.py --test-model (torch.manual_seed(44)), "
                  "for the forward pass's tests only",
        "held-out": "none"})
    write_fixture(mp, os.path.join(folder, "go-policy-test-fixture.txt"), which=[0, 3, -1])


def log(f, msg):
    line = "%s %s" % (time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), msg)
    print(line, flush=True)
    if f:
        f.write(line + "\n")
        f.flush()


def bench(args):
    train = Data(args.data, "train")
    res = {}
    for size in args.bench.split(","):
        blocks, ch = (int(v) for v in size.split("x"))
        torch.manual_seed(0)
        model = PolicyNet(blocks, ch)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
        g = torch.Generator().manual_seed(0)
        n = 0
        t0 = None
        step = 0
        while True:
            idx = torch.randint(0, train.n, (args.batch,), generator=g)
            boards, meta = train.batch(idx)
            x = batch_planes(boards, meta)
            sym = torch.randint(0, 8, (args.batch,), generator=g)
            x, tgt = apply_symmetry(x, meta[:, 7].long(), sym)
            loss = F.cross_entropy(model(x), tgt)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step == 2:
                t0 = time.time()
            elif step > 2:
                n += args.batch
                if time.time() - t0 > args.bench_seconds:
                    break
        train_sps = n / (time.time() - t0)
        model.eval()
        with torch.no_grad():
            x = batch_planes(*train.batch(torch.arange(256)))
            model(x)
            t1 = time.time()
            for _ in range(3):
                model(x)
            fwd = 3 * 256 / (time.time() - t1)
        params = sum(p.numel() for p in model.parameters())
        res[size] = {"train_samples_per_s": round(train_sps, 1),
                     "forward_positions_per_s": round(fwd, 1), "params": params}
        print(size, json.dumps(res[size]), flush=True)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="folder written by prepare.py")
    ap.add_argument("--ckpt", help="checkpoint folder (resumed from when it has ckpt.pt)")
    ap.add_argument("--export", help="folder for go-policy.bin and its fixture")
    ap.add_argument("--log", help="append the log lines to this file too")
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--channels", type=int, default=48)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ckpt-minutes", type=float, default=10.0)
    ap.add_argument("--eval-positions", type=int, default=4096)
    ap.add_argument("--max-samples", type=int, default=0, help="stop after this many (0: never)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bench", help="sizes BxC,BxC,...: measure samples/s and exit")
    ap.add_argument("--bench-seconds", type=float, default=30.0)
    ap.add_argument("--test-model", metavar="DIR",
                    help="write the untrained test network and its fixture to DIR, then exit")
    ap.add_argument("--eval-all", action="store_true",
                    help="with --fixture-only: measure on every held-out position for the header")
    ap.add_argument("--fixture-only", action="store_true",
                    help="export the checkpoint's weights and fixture, then exit")
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    if args.bench:
        bench(args)
        return
    if args.test_model:
        write_test_model(args.test_model)
        return
    if not (args.ckpt and args.export):
        sys.exit("train.py: --ckpt and --export are needed")
    os.makedirs(args.ckpt, exist_ok=True)
    os.makedirs(args.export, exist_ok=True)
    logf = open(args.log, "a") if args.log else None
    ckpt_path = os.path.join(args.ckpt, "ckpt.pt")

    state = None
    if os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        a = state["args"]
        if (a["blocks"], a["channels"]) != (args.blocks, args.channels):
            sys.exit("train.py: %s is a %dx%d network, not %dx%d" % (
                ckpt_path, a["blocks"], a["channels"], args.blocks, args.channels))
        if args.data is None:
            args.data = a["data"]
    if args.data is None:
        sys.exit("train.py: --data is needed")
    summary = json.load(open(os.path.join(args.data, "summary.json")))

    torch.manual_seed(args.seed)
    model = PolicyNet(args.blocks, args.channels)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    epoch, offset, seen, train_s, evals = 0, 0, 0, 0.0, []
    # The learning rates as [samples seen when it was set, rate]: a resumed run with another
    # LR= adds one. (Checkpoints from before the list was kept started at the default, 1e-3.)
    lrs = [[0, args.lr]]
    if state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        for gr in opt.param_groups:
            gr["lr"] = args.lr
        epoch, offset, seen = state["epoch"], state["offset"], state["seen"]
        train_s, evals = state["train_seconds"], state["evals"]
        lrs = state.get("lrs", [[0, 1e-3]])
        if lrs[-1][1] != args.lr and not args.fixture_only:
            lrs.append([seen, args.lr])

    def info_of(ev):
        return {
            "planes": "%d (%d input planes, scripts/go-policy/goboard.py)" % (
                goboard.PLANES_VERSION, NP),
            "blocks": args.blocks,
            "channels": args.channels,
            "recipe": "scripts/train-go-policy: scripts/go-policy/train.py --blocks %d "
                      "--channels %d --batch %d --lr %s --weight-decay %g --seed %d, "
                      "AdamW, 8 symmetries, torch %s, %d thread(s)" % (
                          args.blocks, args.channels, args.batch,
                          " then ".join("%g from sample %d" % (lr, at) for at, lr in lrs),
                          args.weight_decay, args.seed, torch.__version__, args.threads),
            "data": "%s; %d files, %d unique games (%d train, %d held out by game, seed %d), "
                    "%d train positions" % (
                        summary["collection"], summary["files"], summary["kept"],
                        summary["train_games"], summary["val_games"], summary["seed"],
                        summary["train_positions"]),
            "manifest-sha256": summary["manifest_sha256"],
            "held-out": "top1 %.4f top5 %.4f loss %.4f on %d positions of the held-out games" % (
                ev["top1"], ev["top5"], ev["loss"], ev["positions"]) if ev else "none",
            "trained": "%d samples (%.2f epochs), %.0f s" % (
                seen, seen / max(1, summary["train_positions"]), train_s),
        }

    if args.fixture_only:
        if not state:
            sys.exit("train.py: no checkpoint in %s" % args.ckpt)
        ev = evals[-1] if evals else None
        if args.eval_all:
            val = Data(args.data, "val")
            ev = evaluate(model, val, torch.arange(val.n))
            log(logf, "every held-out position: top1 %.4f top5 %.4f loss %.4f (%d positions)" % (
                ev["top1"], ev["top5"], ev["loss"], ev["positions"]))
        mp = os.path.join(args.export, "go-policy.bin")
        export(model, mp, info_of(ev))
        write_fixture(mp, os.path.join(args.export, "go-policy-fixture.txt"))
        return

    train = Data(args.data, "train")
    val = Data(args.data, "val")
    eval_idx = torch.randperm(val.n, generator=torch.Generator().manual_seed(args.seed))
    eval_idx = eval_idx[:args.eval_positions]
    params = sum(p.numel() for p in model.parameters())
    log(logf, "%s %dx%d (%d parameters), %d train / %d held-out positions, %s: epoch %d offset %d "
        "seen %d" % ("resume" if state else "start", args.blocks, args.channels, params, train.n,
                     val.n, args.data, epoch, offset, seen))

    def save():
        tmp = ckpt_path + ".tmp"
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                    "offset": offset, "seen": seen, "train_seconds": train_s, "evals": evals,
                    "lrs": lrs,
                    "args": vars(args)}, tmp)
        os.replace(tmp, ckpt_path)

    def checkpoint():
        ev = evaluate(model, val, eval_idx)
        ev.update(seen=seen, train_seconds=round(train_s), epoch=epoch, offset=offset,
                  time=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()))
        evals.append(ev)
        save()
        mp = os.path.join(args.export, "go-policy.bin")
        export(model, mp, info_of(ev))
        write_fixture(mp, os.path.join(args.export, "go-policy-fixture.txt"))
        log(logf, "checkpoint: seen %d (epoch %d + %d), %.0f s training, held-out top1 %.4f "
            "top5 %.4f loss %.4f (%d positions); saved %s, exported %s" % (
                seen, epoch, offset, train_s, ev["top1"], ev["top5"], ev["loss"],
                ev["positions"], ckpt_path, mp))

    perm = torch.randperm(train.n, generator=torch.Generator().manual_seed(
        args.seed * 100003 + epoch))
    last_ckpt = time.time()
    window_t, window_n, window_loss, window_ok = time.time(), 0, 0.0, 0
    model.train()
    while True:
        if offset >= train.n:
            epoch += 1
            offset = 0
            perm = torch.randperm(train.n, generator=torch.Generator().manual_seed(
                args.seed * 100003 + epoch))
        t_step = time.time()
        idx = perm[offset:offset + args.batch]
        g = torch.Generator().manual_seed((args.seed * 1000003 + epoch) * 10000019 + offset)
        boards, meta = train.batch(idx)
        x = batch_planes(boards, meta)
        sym = torch.randint(0, 8, (len(idx),), generator=g)
        x, tgt = apply_symmetry(x, meta[:, 7].long(), sym)
        logits = model(x)
        loss = F.cross_entropy(logits, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        offset += len(idx)
        seen += len(idx)
        train_s += time.time() - t_step
        window_n += len(idx)
        window_loss += loss.item() * len(idx)
        window_ok += (logits.argmax(1) == tgt).sum().item()
        if time.time() - window_t > 120:
            log(logf, "seen %d, epoch %d, train loss %.4f top1 %.4f, %.1f samples/s" % (
                seen, epoch, window_loss / window_n, window_ok / window_n,
                window_n / (time.time() - window_t)))
            window_t, window_n, window_loss, window_ok = time.time(), 0, 0.0, 0
        done = args.max_samples and seen >= args.max_samples
        if done or time.time() - last_ckpt > args.ckpt_minutes * 60:
            checkpoint()
            last_ckpt = time.time()
            if done:
                return


if __name__ == "__main__":
    main()
