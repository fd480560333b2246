#!/usr/bin/env python3
"""Writes ~1 GB inputs for the bounded-memory measurement of `gclab mmu` and `gclab export-perfetto` (issue 21),
built from the real logs in ../shared/data/ by repetition with shifted time stamps:

  big-g1.log       jdk17-g1-xmx128m.log repeated; uptime decorators and GC(n) ids shifted per copy
  big-logcat.txt   the threadtime and ART lines of android-logs/real-lines.tsv, re-stamped 400 ms apart
                   (threadtime `MM-DD HH:MM:SS.mmm PID TID LEVEL TAG: message`), three processes
  big-pauses.csv   the Go traces' pauses.csv rows repeated, shifted by the trace's span per copy, with a
                   mutator column (four mutators): every copy the same, so every band of Go's worst-window
                   search holds a tie of each worst window (the search's worst case)
  big-pauses-jitter.csv  the same rows with each pause's length drawn again per copy, ±20 % (random.Random(21);
                   starts kept): no two copies tie

Usage: scripts/big-inputs.py OUT_DIR [SIZE_BYTES]   (default 1 GiB each; delete the files afterwards)
"""
import datetime
import os
import random
import re
import sys

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
if not os.path.isdir(DATA):
    DATA = "/work/shared/data"


def g1(out, size):
    src = open(os.path.join(DATA, "jvm-logs", "jdk17-g1-xmx128m.log")).read().splitlines()
    stamp = re.compile(r"^\[(\d+\.\d+)s\]")
    gcid = re.compile(r"GC\((\d+)\)")
    last = max(float(stamp.match(l).group(1)) for l in src if stamp.match(l))
    ids = max(int(m) for l in src for m in gcid.findall(l)) + 1
    written, copy = 0, 0
    with open(out, "w") as f:
        while written < size:
            shift, idshift = copy * (last + 1.0), copy * ids
            lines = []
            for l in src:
                m = stamp.match(l)
                if m:
                    l = "[%.3fs]" % (float(m.group(1)) + shift) + l[m.end():]
                l = gcid.sub(lambda g: "GC(%d)" % (int(g.group(1)) + idshift), l)
                lines.append(l)
            text = "\n".join(lines) + "\n"
            f.write(text)
            written += len(text)
            copy += 1


def logcat(out, size):
    msgs = []
    for row in open(os.path.join(DATA, "android-logs", "real-lines.tsv")).read().splitlines()[1:]:
        fmt, _, line = row.split("\t", 2)
        if fmt.startswith("dalvik-4.1"):
            m = re.search(r"(D|I)[/ ](dalvikvm(?:-heap)?)(?:\(\d+\))?[:﹕] (.*)$", line)
            if m:
                msgs.append((m.group(1), m.group(2), m.group(3)))
        elif fmt.startswith("art"):
            m = re.search(r"I/[\w.]+(?:\( *\d+\))?: (.*)$", line) or re.match(r"()(.*)$", line)
            msg = m.group(m.lastindex)
            if "GC" in msg or "Clamp" in msg:
                msgs.append(("I", "art", msg))
    t = datetime.datetime(2026, 1, 1)
    pids = [1721, 3060, 16471]
    written, i = 0, 0
    with open(out, "w") as f:
        while written < size:
            buf = []
            for _ in range(10000):
                level, tag, msg = msgs[i % len(msgs)]
                pid = pids[(i // len(msgs)) % len(pids)]
                stamp = t.strftime("%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)
                buf.append("%s %5d %5d %s %s: %s\n" % (stamp, pid, pid + 1, level, tag, msg))
                t += datetime.timedelta(milliseconds=400)
                i += 1
            text = "".join(buf)
            f.write(text)
            written += len(text.encode())


def pauses(out, size, jitter=None):
    """`jitter`: a random.Random that stretches or shrinks each copy's pauses by up to ±20 % (starts kept)."""
    rows, span = [], 0
    for trace in ("trace1-p2-gogc100-trees", "trace2-p1-gogc25-churn"):
        lines = open(os.path.join(DATA, "go-mmu", trace, "pauses.csv")).read().splitlines()[1:]
        for l in lines:
            a, b, kind = l.split(",")
            rows.append((int(a) + span, int(b) + span, kind))
        span = max(r[1] for r in rows) + 1_000_000
    written, copy = 0, 0
    with open(out, "w") as f:
        f.write("start_ns,end_ns,mutator,kind\n")
        while written < size:
            shift = copy * span
            if jitter is None:
                text = "".join("%d,%d,m%d,%s\n" % (a + shift, b + shift, copy % 4, k) for a, b, k in rows)
            else:
                text = "".join("%d,%d,m%d,%s\n" % (a + shift, a + shift + max(1, int((b - a) * jitter.uniform(0.8, 1.2))),
                                                     copy % 4, k) for a, b, k in rows)
            f.write(text)
            written += len(text)
            copy += 1


if __name__ == "__main__":
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30
    os.makedirs(out, exist_ok=True)
    g1(os.path.join(out, "big-g1.log"), size)
    logcat(os.path.join(out, "big-logcat.txt"), size)
    pauses(os.path.join(out, "big-pauses.csv"), size)
    pauses(os.path.join(out, "big-pauses-jitter.csv"), size, random.Random(21))
