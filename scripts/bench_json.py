"""Reads rsh_spmm_benchmark JSON (plain or gzipped) for the summary scripts.
Runs that report the median_us counter (the median time per call over the
iterations) get it as real_time, so the scripts compare medians; older runs
keep the mean that Google Benchmark reports."""
import gzip
import json


def read(path):
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        data = json.load(f)
    for b in data.get('benchmarks', []):
        if 'median_us' in b:
            b['real_time'] = b['median_us']
    return data
