#!/usr/bin/env python3
"""Merges the RESULT lines of workloads.py under PyTorch and under Kiln into one Markdown table.

usage: table.py TORCH_OUT KILN_OUT [DEVICE_NAME]
"""
import sys


def read(path):
    res = {}
    order = []
    for line in open(path, errors='replace'):
        if not line.startswith('RESULT '):
            continue
        parts = line.split(None, 4)
        if len(parts) < 4:
            continue
        _, key, mode, value = parts[:4]
        rest = parts[4].strip() if len(parts) > 4 else ''
        if key not in order:
            order.append(key)
        if value == 'error':
            res[(key, mode)] = ('error', rest)
        else:
            res[(key, mode)] = (float(value), float(rest or 0))
    return res, order


def cell(r, mode, key, with_bw=False):
    v = r.get((key, mode))
    if v is None:
        return '-'
    if v[0] == 'error':
        return 'fails: ' + v[1].replace('|', '/')[:60]
    s = '%.3f' % v[0]
    if with_bw and v[1] > 0 and v[0] > 0:
        s += ' (%d GB/s)' % (v[1] / v[0] / 1e6)
    return s


def main():
    torch_r, order = read(sys.argv[1])
    kiln_r, korder = read(sys.argv[2])
    for k in korder:
        if k not in order:
            order.append(k)
    print('| workload | PyTorch eager ms | torch.compile ms | Kiln eager ms | Kiln compiled ms | torch.compile cold ms | Kiln cold ms '
          '| reduce-overhead: torch ms | Kiln ms |')
    print('|---|---|---|---|---|---|---|---|---|')
    for k in order:
        print('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            k.replace('_', ' '), cell(torch_r, 'eager', k, True), cell(torch_r, 'compiled', k, True), cell(kiln_r, 'eager', k, True),
            cell(kiln_r, 'compiled', k, True), cell(torch_r, 'cold_compile', k), cell(kiln_r, 'cold_compile', k),
            cell(torch_r, 'reduce_overhead', k), cell(kiln_r, 'reduce_overhead', k)))


main()
