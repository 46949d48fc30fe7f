#!/usr/bin/env python3
"""Medians of an A/B directory of scripts/ab-rounds.sh (rROUND_NAME.json): one row per benchmark,
one column per run name, Gkeys/s, with the change against BASE where given.
    scripts/ab-medians.py DIR [BASE]"""
import collections
import glob
import json
import os
import re
import statistics
import sys

directory = sys.argv[1]
base = sys.argv[2] if len(sys.argv) > 2 else None
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for path in glob.glob(os.path.join(directory, 'r*_*.json')):
    name = re.match(r'r\d+_(.*)\.json', os.path.basename(path)).group(1)
    try:
        data = json.load(open(path))
    except ValueError as error:
        print('unreadable', path, error)
        continue
    for b in data['benchmarks']:
        runs[b['name'].replace('/iterations:1/manual_time', '')][name].append(b['Gkeys/s'])
names = sorted({n for row in runs.values() for n in row}, key=lambda n: (n != base, n))
print('benchmark', *names, sep='\t')
for bench in sorted(runs):
    row = runs[bench]
    reference = statistics.median(row[base]) if base in row else None
    cells = [bench]
    for n in names:
        if n not in row:
            cells.append('-')
            continue
        m = statistics.median(row[n])
        change = f' ({(m / reference - 1) * 100:+.1f}%)' if reference and n != base else ''
        cells.append(f'{m:.2f}{change} n{len(row[n])}')
    print(*cells, sep='\t')
