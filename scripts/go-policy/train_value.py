#!/usr/bin/env python3
"""Train a value head (who wins from here) on the trunk of a trained Go policy network, on a CPU.

    train_value.py --data PREPARED --policy models/go-policy.bin --ckpt DIR --export DIR
                   [--minutes 40] [--threads 1] [--log FILE]
    train_value.py --data PREPARED --policy P --ckpt DIR --export DIR --final   (measure on every
                   held-out position and export, without training)
    train_value.py --test-model DIR   (an untrained head on the 2x8 test network, with a fixture)

The trunk (stem and residual blocks of the policy export, batch norm already folded) is frozen:
the policy, its accuracy and every test of it stay as they are, and only the head learns. The
head, on the trunk's C x 19 x 19 output:
  conv 1x1 C -> 2 with bias, ReLU, flatten (2 x 361, channel-major), fc 722 -> 64 with bias, ReLU,
  fc 64 -> 1 with bias: the logit of "the side to move wins" (sigmoid for the probability).
Target: the game's result from prepare.py's <split>.result (1 won, -1 lost); positions of games
whose result is unknown are skipped. Loss: binary cross-entropy. Adam (lr 1e-3), batch 256,
positions drawn uniformly from the training games (seeded), each in one of the 8 symmetries.
A checkpoint every --ckpt-minutes (10) resumes the run; training stops after --minutes of it.

Export format "baduk-go-value 1" (EXPORT/go-value.bin): header lines as the policy's
("baduk-go-value 1", key: value lines including policy-sha256, the sha256 of the policy file
whose trunk it reads, then "tensor NAME D0 ..." lines and "end"), then float32 little-endian:
value.conv.weight (2, C, 1, 1), value.conv.bias (2), value.fc1.weight (64, 722),
value.fc1.bias (64), value.fc2.weight (1, 64), value.fc2.bias (1). With it
EXPORT/go-value-fixture.txt: the policy fixture's positions (train.fixture_positions) and the
head's logit on each, for the Rust forward pass to compare with.
"""

import argparse
import hashlib
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goboard  # noqa: E402
import train as tp  # noqa: E402

FORMAT = "baduk-go-value 1"
HIDDEN = 64


def trunk(tensors, x):
    """The policy export's trunk: its output before the move head (B, C, 19, 19)."""
    return tp.folded_trunk(tensors, x)


class ValueHead(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, 2, 1, bias=True)
        self.fc1 = nn.Linear(2 * goboard.NN, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, 1)

    def forward(self, feats):
        v = F.relu(self.conv(feats)).flatten(1)
        return self.fc2(F.relu(self.fc1(v))).flatten()

    def tensors(self):
        return [("value.conv.weight", self.conv.weight), ("value.conv.bias", self.conv.bias),
                ("value.fc1.weight", self.fc1.weight), ("value.fc1.bias", self.fc1.bias),
                ("value.fc2.weight", self.fc2.weight), ("value.fc2.bias", self.fc2.bias)]


class Data(tp.Data):
    def __init__(self, folder, split):
        super().__init__(folder, split)
        r = np.fromfile(os.path.join(folder, split + ".result"), dtype=np.int8)
        if r.size != self.n:
            sys.exit("train_value.py: %s/%s.result does not match (run prepare.py again)" % (
                folder, split))
        self.result = torch.from_numpy(r.astype(np.float32))
        self.known = torch.nonzero(self.result != 0).flatten()
        # the move number of each position: 0 at a game's start (its board has no stone and
        # no last move), counted up from there
        m = self.meta
        start = (self.boards.sum(dim=1) == 0) & (m[:, 2] == goboard.NONE)
        num = torch.zeros(self.n, dtype=torch.long)
        k = 0
        for i, s in enumerate(start.tolist()):
            k = 0 if s else k + 1
            num[i] = k
        self.move_no = num


def features(tensors, boards, meta, sym=None):
    x = tp.batch_planes(boards, meta)
    if sym is not None:
        x, _ = tp.apply_symmetry(x, meta[:, 7].long(), sym)
    with torch.no_grad():
        return trunk(tensors, x)


def evaluate(tensors, head, data, idx, batch=512):
    """Loss, accuracy (the sign of the logit names the winner) and both by the move number."""
    head.eval()
    buckets = ((0, 50), (50, 100), (100, 150), (150, 200), (200, 1000))
    tot = {"n": 0, "loss": 0.0, "right": 0, "brier": 0.0}
    by = {b: {"n": 0, "right": 0, "loss": 0.0} for b in buckets}
    at = {m: {"n": 0, "brier": 0.0} for m in (50, 100, 150)}
    with torch.no_grad():
        for s in range(0, len(idx), batch):
            bi = idx[s:s + batch]
            boards, meta = data.batch(bi)
            y = (data.result[bi] > 0).float()
            logit = head(features(tensors, boards, meta))
            loss = F.binary_cross_entropy_with_logits(logit, y, reduction="none")
            right = ((logit > 0).float() == y)
            brier = (torch.sigmoid(logit) - y) ** 2
            tot["n"] += len(bi)
            tot["loss"] += loss.sum().item()
            tot["right"] += right.sum().item()
            tot["brier"] += brier.sum().item()
            mv = data.move_no[bi]
            for m, v in at.items():
                sel = mv == m
                v["n"] += sel.sum().item()
                v["brier"] += brier[sel].sum().item()
            for b in buckets:
                sel = (mv >= b[0]) & (mv < b[1])
                by[b]["n"] += sel.sum().item()
                by[b]["right"] += right[sel].sum().item()
                by[b]["loss"] += loss[sel].sum().item()
    head.train()
    out = {"positions": tot["n"], "loss": tot["loss"] / tot["n"],
           "accuracy": tot["right"] / tot["n"], "brier": tot["brier"] / tot["n"]}
    # the Brier score after exactly 50, 100 and 150 moves (what docs/bot.md's playout table
    # measures for the playouts)
    out["brier_at"] = {m: (v["n"], v["brier"] / max(1, v["n"])) for m, v in at.items()}
    out["by_move"] = {"%d-%d" % b: {"n": v["n"], "accuracy": v["right"] / max(1, v["n"]),
                                     "loss": v["loss"] / max(1, v["n"])} for b, v in by.items()}
    return out


def export(head, path, info):
    tp.write_export(path, FORMAT, info,
                    [(n, t.detach().float().contiguous()) for n, t in head.tensors()])


def write_fixture(policy_path, head, path, which=None):
    """The head's logit on the policy fixture's positions, 9 significant digits each."""
    _, tensors = tp.read_export(policy_path)
    sha = hashlib.sha256(open(policy_path, "rb").read()).hexdigest()
    positions = tp.fixture_positions()
    if which is not None:
        positions = [positions[i] for i in which]
    lines = ["baduk-go-value-fixture 1", "policy: %s sha256 %s" % (
        os.path.basename(policy_path), sha), "positions: %d" % len(positions)]
    head.eval()
    for k, (moves, komi2) in enumerate(positions):
        _, _, _, x, sgf = tp.fixture_position(moves, komi2)
        with torch.no_grad():
            logit = head(trunk(tensors, x))[0].item()
        lines += ["position %d" % k, "moves: %s" % sgf, "komi2: %d" % komi2,
                  "value-logit: %.9g" % logit]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def write_test_model(folder):
    """An untrained head (torch.manual_seed(45)) on the 2x8 test network of train.py
    --test-model, exported with a fixture for the Rust tests (crates/search/tests/data/)."""
    policy = os.path.join(folder, "go-policy-test.bin")
    if not os.path.exists(policy):
        tp.write_test_model(folder)
    torch.manual_seed(45)
    head = ValueHead(8)
    with torch.no_grad():
        head.conv.bias.add_(0.3)
    sha = hashlib.sha256(open(policy, "rb").read()).hexdigest()
    path = os.path.join(folder, "go-value-test.bin")
    export(head, path, {"channels": 8, "policy-sha256": sha,
                        "recipe": "untrained: scripts/go-policy/train_value.py --test-model "
                                  "(torch.manual_seed(45)), for the forward pass's tests only",
                        "held-out": "none"})
    write_fixture(policy, head, os.path.join(folder, "go-value-test-fixture.txt"),
                  which=[0, 3, -1])


log = tp.log


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--policy")
    ap.add_argument("--ckpt")
    ap.add_argument("--export")
    ap.add_argument("--log")
    ap.add_argument("--minutes", type=float, default=40)
    ap.add_argument("--ckpt-minutes", type=float, default=10)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--eval-positions", type=int, default=8192)
    ap.add_argument("--final", action="store_true")
    ap.add_argument("--test-model")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.test_model:
        write_test_model(args.test_model)
        return
    info_p, tensors = tp.read_export(args.policy)
    channels = int(info_p["channels"])
    policy_sha = hashlib.sha256(open(args.policy, "rb").read()).hexdigest()
    train, val = Data(args.data, "train"), Data(args.data, "val")
    os.makedirs(args.ckpt, exist_ok=True)
    os.makedirs(args.export, exist_ok=True)
    lf = open(args.log, "a") if args.log else None
    torch.manual_seed(args.seed)
    head = ValueHead(channels)
    opt = torch.optim.Adam(head.parameters(), lr=args.lr)
    state = {"samples": 0, "seconds": 0.0, "step": 0}
    ck = os.path.join(args.ckpt, "value.pt")
    if os.path.exists(ck):
        c = torch.load(ck)
        if c["policy_sha"] != policy_sha:
            sys.exit("train_value.py: %s was trained on another policy file" % ck)
        head.load_state_dict(c["head"])
        opt.load_state_dict(c["opt"])
        state = c["state"]
        log(lf, "resumed at %d samples" % state["samples"])
    elif args.final:
        sys.exit("train_value.py: --final needs a checkpoint, and %s is missing" % ck)
    g = torch.Generator().manual_seed(args.seed)
    vk = val.known[torch.randperm(len(val.known), generator=g)]
    eval_idx = vk if args.final else vk[:args.eval_positions]

    def info_of(ev):
        return {"channels": channels, "policy-sha256": policy_sha,
                "recipe": "scripts/go-policy/train_value.py: the policy's trunk frozen, head conv "
                          "1x1 %d->2, fc 722->%d->1, BCE on the game's result, Adam lr %g, batch "
                          "%d, 8 symmetries, seed %d, torch %s, %d thread(s)" % (
                              channels, HIDDEN, args.lr, args.batch, args.seed,
                              torch.__version__, args.threads),
                "data": "as the policy's (its data line; manifest-sha256 %s); positions of "
                        "games without a result skipped" % info_p.get("manifest-sha256", "?"),
                "held-out": "accuracy %.4f loss %.4f on %d positions of the held-out games" % (
                    ev["accuracy"], ev["loss"], ev["positions"]),
                "trained": "%d samples, %d s" % (state["samples"], state["seconds"])}

    def checkpoint():
        ev = evaluate(tensors, head, val, eval_idx)
        log(lf, "samples %d seconds %d held-out accuracy %.4f loss %.4f brier %.4f on %d; by move "
            "(accuracy/loss) %s; brier after 50/100/150 moves %s" % (
                state["samples"], state["seconds"], ev["accuracy"], ev["loss"], ev["brier"],
                ev["positions"], " ".join("%s:%.3f/%.3f" % (k, v["accuracy"], v["loss"])
                                          for k, v in ev["by_move"].items()),
                " ".join("%.3f (%d)" % (v[1], v[0]) for v in ev["brier_at"].values())))
        if not args.final:
            tmp = ck + ".tmp"
            torch.save({"head": head.state_dict(), "opt": opt.state_dict(), "state": state,
                        "policy_sha": policy_sha}, tmp)
            os.replace(tmp, ck)
        path = os.path.join(args.export, "go-value.bin")
        export(head, path, info_of(ev))
        write_fixture(args.policy, head, os.path.join(args.export, "go-value-fixture.txt"))

    if args.final:
        checkpoint()
        return
    t_ck = time.time()
    t_last = time.time()
    while state["seconds"] < args.minutes * 60:
        gs = torch.Generator().manual_seed(args.seed * 1000003 + state["step"])
        pick = train.known[torch.randint(0, len(train.known), (args.batch,), generator=gs)]
        sym = torch.randint(0, 8, (args.batch,), generator=gs)
        boards, meta = train.batch(pick)
        feats = features(tensors, boards, meta, sym)
        y = (train.result[pick] > 0).float()
        loss = F.binary_cross_entropy_with_logits(head(feats), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        state["step"] += 1
        state["samples"] += args.batch
        now = time.time()
        state["seconds"] += now - t_last
        t_last = now
        if state["step"] % 50 == 0:
            log(lf, "step %d samples %d loss %.4f" % (state["step"], state["samples"],
                                                        loss.item()))
        if now - t_ck >= args.ckpt_minutes * 60:
            checkpoint()
            t_ck = time.time()
            t_last = time.time()
    checkpoint()


if __name__ == "__main__":
    main()
