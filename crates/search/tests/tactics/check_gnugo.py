"""Usage: python3 check_gnugo.py DIR (after make_suite.py DIR). Asks GNU Go, for every position of the suite, which moves of the side to move work (the
target then cannot be defended / attacked / owl-defended / owl-attacked), and its reg_genmove."""
import subprocess, sys, os
COLS = "ABCDEFGHJKLMNOPQRST"
d = sys.argv[1]
g = subprocess.Popen(["nice", "-n", "10", "/usr/games/gnugo", "--mode", "gtp", "--chinese-rules"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def gtp(cmd):
    g.stdin.write(cmd + "\n"); g.stdin.flush()
    lines = []
    while True:
        l = g.stdout.readline()
        if l.strip() == "" and lines:
            break
        if l.strip():
            lines.append(l.strip())
    r = " ".join(lines)
    return r[0] == "=", r[1:].strip()
query = {"capture": "defend", "save": "attack", "kill": "owl_defend", "live": "owl_attack"}
out = open(os.path.join(d, "gnugo.txt"), "w")
for line in open(os.path.join(d, "authored.txt")):
    f, kind, tm, check, target, ans, avoid = line.split()
    ok, _ = gtp(f"loadsgf {os.path.join(d, f)}")
    assert ok, f
    color = "black" if tm == "B" else "white"
    N = int(open(os.path.join(d, f)).read().split("SZ[")[1].split("]")[0])
    ok, before = gtp(f"{query[check].replace('defend','attack') if check in ('capture','kill') else query[check]} {target}")
    works = []
    for y in range(N):
        for x in range(N):
            v = f"{COLS[x]}{N - y}"
            ok, leg = gtp(f"is_legal {color} {v}")
            if leg != "1":
                continue
            gtp(f"play {color} {v}")
            ok, col = gtp(f"color {target}")
            if col == "empty":
                good = True
            else:
                ok, r = gtp(f"{query[check]} {target}")
                good = ok and r.split()[0] == "0"
            gtp("undo")
            if good:
                works.append(v)
    ok, reg = gtp(f"reg_genmove {color}")
    out.write(f"{f} before={before.replace(' ', ':')} works={','.join(works) or '-'} reg_genmove={reg}\n")
    out.flush()
    print(f, before, works, reg, ans, avoid, flush=True)
gtp("quit")
out.close()

# Merge into index.txt: the answers of a position are every move GNU Go confirms, provided the
# authored ones are among them; where the authored answer is only "avoid", GNU Go must find no
# working move at all and none of the moves to avoid.
auth = {l.split()[0]: l.split() for l in open(os.path.join(d, "authored.txt"))}
lines = [
    "# The tactical suite: file, kind, colour to move, what is checked (capture/save: tactical",
    "# reading of the target; kill/live: its life), the target stone, the answers (any one solves it:",
    "# the authored answer and every other move GNU Go 3.8 confirms) or, where nothing works, the",
    "# moves to avoid, the authored answer, and GNU Go's verdict (see README.md).",
    "# file kind to-move check target answers avoid authored gnugo",
]
for l in open(os.path.join(d, "gnugo.txt")):
    f = l.split()[0]
    works = l.split("works=")[1].split()[0]
    reg = l.split("reg_genmove=")[1].strip()
    a = auth[f]
    ans, av = a[5][len("answers="):], a[6][len("avoid="):]
    w = [] if works == "-" else works.split(",")
    if ans != "-":
        verdict = "agrees" if all(x in w for x in ans.split(",")) else "disagrees"
    else:
        verdict = "agrees" if not w else "disagrees"
    answers = works if ans != "-" else "-"
    lines.append(f"{f} {a[1]} {a[2]} {a[3]} {a[4]} answers={answers} avoid={av} authored={ans} "
                 f"gnugo={verdict},reg_genmove:{reg}")
open(os.path.join(d, "index.txt"), "w").write("\n".join(lines) + "\n")
