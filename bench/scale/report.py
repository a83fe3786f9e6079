#!/usr/bin/env python3
"""Prints bench/scale.sh's CSV as markdown: one table per backend, a column per size, and for every request
figure the ratio of the largest size to the smallest (the target: CPU per request within 1.2x).

Usage: bench/scale/report.py RESULTS.csv
"""
import csv
import sys
from collections import OrderedDict

REQUEST_SUFFIXES = (" req/s", " p99", " CPU")


def load(path):
    """{backend: OrderedDict(measure -> {users: (value, unit)})}, sizes per backend in order."""
    tables, sizes = OrderedDict(), OrderedDict()
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            backend, users = row["backend"], int(row["users"])
            tables.setdefault(backend, OrderedDict()).setdefault(row["measure"], {})[users] = (row["value"], row["unit"])
            sizes.setdefault(backend, [])
            if users not in sizes[backend]:
                sizes[backend].append(users)
    return tables, sizes


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main() -> None:
    tables, sizes = load(sys.argv[1])
    for backend, measures in tables.items():
        columns = sizes[backend]
        print(f"\n### {backend}\n")
        header = ["measure", "unit"] + [f"{users:,} users" for users in columns]
        if len(columns) > 1:
            header.append(f"{columns[-1]:,} / {columns[0]:,}")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for measure, values in measures.items():
            if measure.endswith(" non-2xx"):
                continue
            unit = next(iter(values.values()))[1]
            cells = [values.get(users, ("", ""))[0] for users in columns]
            line = [measure, unit] + cells
            if len(columns) > 1:
                first, last = number(cells[0]), number(cells[-1])
                is_request = measure.endswith(REQUEST_SUFFIXES)
                line.append(f"{last / first:.2f}" if is_request and first and last is not None else "")
            print("| " + " | ".join(line) + " |")
        failures = [f"{measure} at {users:,}: {value}" for measure, values in measures.items()
                    if measure.endswith(" non-2xx") for users, (value, _) in values.items() if number(value) and number(value) > 1]
        if failures:
            print("\nnon-2xx answers (the refresh rows' last request per wrk thread is a reuse): " + "; ".join(failures))


if __name__ == "__main__":
    main()
