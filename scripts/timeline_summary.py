#!/usr/bin/env python3
"""Adds up a timeline of scripts/kokkos_timeline.cpp, segment by segment.

A segment runs from an event whose name contains --start (a region's push, or a kernel's begin) to the pop of
that region, or to the next segment's start. Every interval between two consecutive events is given to what was
open at its start: a kernel (its launch, or for a reduction or a scan its wait too), a fence, a deep copy; else
to the host: an allocation when the interval ends in one, a free when it starts at one, otherwise host work.

Usage: timeline_summary.py TIMELINE.tsv [--start NAME] [--top K] [--segment I]
"""
import argparse
import collections
import csv
import gzip


def read(path):
    with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [(float(r["us"]), r["event"], r["name"], int(r["bytes"])) for r in rows]


def segments(events, start):
    """Index ranges [b, e) of the segments: the regions named `start` where there are any, else from each
    kernel whose label contains it to the next."""
    regions = any(event == "push" and name == start for _, event, name, _ in events)
    out, depth, begin = [], 0, None
    for i, (_, event, name, _) in enumerate(events):
        if begin is not None and event == "push":
            depth += 1
        elif begin is not None and event == "pop":
            depth -= 1
            if depth < 0:
                out.append((begin, i + 1))
                begin, depth = None, 0
                continue
        starts = event == "push" and name == start if regions else \
            start in name and event in ("begin_for", "begin_reduce", "begin_scan")
        if starts:
            if begin is not None and event != "push":
                out.append((begin, i))
            begin, depth = i, 0
    if begin is not None:
        out.append((begin, len(events)))
    return out


def classify(events, b, e):
    """Time and count per category, and the intervals with their category and label."""
    totals = collections.defaultdict(float)
    counts = collections.Counter()
    intervals = []
    open_kind, open_name, last_name, last_kernel = None, "", "", ""
    for i in range(b, e - 1):
        t, event, name, _ = events[i]
        dt = events[i + 1][0] - t
        if event.startswith("begin_"):
            open_kind, open_name, last_name = event[len("begin_"):], name, name
            if open_kind in ("for", "reduce", "scan"):
                last_kernel = name
            counts[open_kind] += 1
        elif event.startswith("end_"):
            open_kind, open_name = None, ""
        elif event.startswith("alloc_") or event.startswith("free_"):
            counts[event] += 1
        if open_kind == "fence":  # a fence waits for what was launched before it
            kind, label = open_kind, f"{open_name} (after {last_kernel})"
        elif open_kind is not None:
            kind, label = open_kind, open_name
        elif events[i + 1][1] == "alloc_device":
            kind, label = "cudaMalloc", events[i + 1][2]
        elif event == "free_device":
            kind, label = "cudaFree", name
        else:
            kind, label = "host", f"after {event} {name or last_name}"
        totals[kind] += dt
        intervals.append((dt, kind, label))
    return totals, counts, intervals


def main():
    p = argparse.ArgumentParser()
    p.add_argument("timeline")
    p.add_argument("--start", default="rsh::inspect")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--segment", type=int, default=None, help="only this segment (0-based; -1 the last)")
    p.add_argument("--min-ms", type=float, default=0.0, help="only segments at least this long")
    a = p.parse_args()
    events = read(a.timeline)
    segs = segments(events, a.start)
    segs = [(b, e) for b, e in segs if events[e - 1][0] - events[b][0] >= 1e3 * a.min_ms]
    if a.segment is not None:
        segs = [segs[a.segment]]
    for b, e in segs:
        wall = events[e - 1][0] - events[b][0]
        totals, counts, intervals = classify(events, b, e)
        print(f"## segment at {events[b][0] / 1e3:.3f} ms: {wall / 1e3:.3f} ms, {e - b} events")
        print("| category | ms | share | count |\n|---|---|---|---|")
        for kind, us in sorted(totals.items(), key=lambda kv: -kv[1]):
            count = counts.get(kind, counts.get("alloc_device" if kind == "cudaMalloc" else "free_device"
                                                if kind == "cudaFree" else kind, ""))
            print(f"| {kind} | {us / 1e3:.3f} | {100 * us / wall:.1f}% | {count} |")
        by_label = collections.defaultdict(lambda: [0.0, 0])
        for dt, kind, label in intervals:
            by_label[(kind, label)][0] += dt
            by_label[(kind, label)][1] += 1
        print(f"\nlargest {a.top} (category, label) totals:\n| us | intervals | category | label |\n|---|---|---|---|")
        for (kind, label), (us, n) in sorted(by_label.items(), key=lambda kv: -kv[1][0])[: a.top]:
            print(f"| {us:.1f} | {n} | {kind} | {label} |")
        print(f"\nlongest {a.top} intervals:\n| us | category | label |\n|---|---|---|")
        for dt, kind, label in sorted(intervals, reverse=True)[: a.top]:
            print(f"| {dt:.1f} | {kind} | {label} |")
        print()


if __name__ == "__main__":
    main()
