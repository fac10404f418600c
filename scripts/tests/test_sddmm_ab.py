#!/usr/bin/env python3
"""sddmm_ab.py on two hand-written benchmark files: the ratios per kernel and against the first file, runs
missing from a file or failed left out. Plain Python (CI runs it through ctest)."""
import contextlib
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import sddmm_ab  # noqa: E402


def run(matrix, k, impl, us, label=""):
    return {"name": f"sddmm/{matrix}/float/k={k}/{impl}/manual_time", "run_type": "iteration", "real_time": us,
            "median_us": us, "label": label}


SPANS, TILES = "CUDA: SDDMM over the CSR, spans of 8 nonzeros", "CUDA: SDDMM over the CSR, dense tiles of 64 x 64"
FIRST = [run("a", 32, "cusparse", 4.0), run("a", 32, "rsh", 2.0, SPANS),
         run("b", 64, "cusparse", 9.0), run("b", 64, "rsh", 12.0, TILES),
         run("only_first", 32, "cusparse", 1.0), run("only_first", 32, "rsh", 1.0, SPANS)]
SECOND = [run("a", 32, "cusparse", 4.4), run("a", 32, "rsh", 1.0, SPANS),
          run("b", 64, "cusparse", 9.9), run("b", 64, "rsh", 6.0, SPANS),  # its kernel: the first file's counts
          dict(run("only_first", 32, "rsh", 1.0, SPANS), error_occurred=True)]


def table(paths):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sddmm_ab.main(paths)
    rows = {}
    for line in out.getvalue().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[(cells[0], cells[1])] = (int(cells[2]), *map(float, cells[3:]))
    return rows


def main():
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, runs in (("first.json", FIRST), ("second.json", SECOND)):
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                json.dump({"benchmarks": runs}, f)
        rows = table(paths)
    close = lambda got, want: abs(got - want) < 1e-3  # noqa: E731
    assert rows[("first.json", "spans")] == (1, 2.0, 1.0, 1.0), rows
    assert rows[("first.json", "tiles")] == (1, 0.75, 1.0, 1.0), rows
    count, ratio, rsh_time, cusparse_time = rows[("second.json", "all")]
    assert count == 2 and close(ratio, (4.4 * 9.9 / 6.0) ** 0.5) and close(rsh_time, 0.5), rows
    assert close(cusparse_time, 1.1), rows
    assert close(rows[("second.json", "tiles")][1], 9.9 / 6.0), rows
    print("sddmm_ab: ok")


if __name__ == "__main__":
    main()
