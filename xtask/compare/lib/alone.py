#!/usr/bin/env python3
"""Where a build runs on one thread while the others wait ("alone"), from CPU samples.

Record a run on every CPU, without call graphs (their cost hides the answer), then read it:

    perf record -a -e cpu-clock -F 999 -o alone.data -- env RAYON_NUM_THREADS=2 \\
        chessfmt kvetka build book.pgn -o book.kob --force
    perf script -i alone.data -F comm,pid,tid,cpu,time,period,event,ip,sym > alone.txt
    python3 xtask/compare/lib/alone.py alone.txt [FROM TO [TOP [timeline]]]

A sample of the build on one CPU is alone when no other CPU's nearest sample (within 0.8 ms)
is the build's. Prints the share of alone samples (between FROM and TO seconds after the
build's first sample), the TOP functions of the alone samples, and with a fifth argument
the alone samples of each quarter second.
"""
import bisect
import collections
import re
import sys

SAMPLE = re.compile(
    r'^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+\d+\s+cpu-clock:\s+\S+\s+(.*)$')
NEAR = 0.0008


def main(argv):
    per_cpu = collections.defaultdict(list)
    builds = collections.Counter()
    for line in open(argv[1]):
        m = SAMPLE.match(line)
        if not m:
            continue
        comm, pid, _tid, cpu, t, sym = m.groups()
        if comm.strip().startswith('chessfmt'):
            builds[int(pid)] += 1
        per_cpu[int(cpu)].append((float(t), int(pid), sym.strip()))
    if not builds:
        sys.exit('no sample of a chessfmt process')
    target = builds.most_common(1)[0][0]
    for samples in per_cpu.values():
        samples.sort()
    times = {c: [s[0] for s in v] for c, v in per_cpu.items()}
    ours = [s[0] for v in per_cpu.values() for s in v if s[1] == target]
    t0, t1 = min(ours), max(ours)
    lo = float(argv[2]) if len(argv) > 2 else 0.0
    hi = float(argv[3]) if len(argv) > 3 else float('inf')
    top = int(argv[4]) if len(argv) > 4 else 20

    def others_busy(cpu, t):
        for other, samples in per_cpu.items():
            if other == cpu:
                continue
            j = bisect.bisect_left(times[other], t)
            for k in (j - 1, j):
                if 0 <= k < len(samples) and abs(samples[k][0] - t) < NEAR \
                        and samples[k][1] == target:
                    return True
        return False

    alone = collections.Counter()
    bins = collections.defaultdict(lambda: [0, 0])
    n = n_alone = 0
    for cpu, samples in per_cpu.items():
        for t, pid, sym in samples:
            if pid != target or not lo <= t - t0 < hi:
                continue
            n += 1
            b = bins[int((t - t0) / 0.25)]
            b[0] += 1
            if not others_busy(cpu, t):
                n_alone += 1
                alone[sym] += 1
                b[1] += 1
    print(f"span {t1 - t0:.2f} s, samples {n}, alone {n_alone} ({100 * n_alone / max(n, 1):.1f} %)")
    for sym, count in alone.most_common(top):
        print(f"{count:6d} {sym[:150]}")
    if len(argv) > 5:
        for k in sorted(bins):
            print(f"{k * 0.25:6.2f} {bins[k][0]:5d} alone {bins[k][1]:4d}")


if __name__ == '__main__':
    main(sys.argv)
