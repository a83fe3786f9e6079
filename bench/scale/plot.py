#!/usr/bin/env python3
"""Draws bench/scale.sh's CSV as an SVG (stdlib only): server CPU per request of every request figure against the
number of users (log x), one panel per backend, one line per request.

Usage: bench/scale/plot.py RESULTS.csv OUT.svg [TITLE]
"""
import csv
import math
import sys
from collections import OrderedDict
from xml.sax.saxutils import escape

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
PANEL_W, PANEL_H, LEFT, TOP, BOTTOM = 420, 310, 60, 60, 50


def series(path):
    """{backend: OrderedDict(request -> [(users, cpu µs)])} from the "<request> CPU" rows."""
    data = OrderedDict()
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if not row["measure"].endswith(" CPU") or row["measure"].endswith(" PostgreSQL CPU"):
                continue
            try:
                value = float(row["value"])
            except ValueError:
                continue
            name = row["measure"][: -len(" CPU")]
            data.setdefault(row["backend"], OrderedDict()).setdefault(name, []).append((int(row["users"]), value))
    return data


def log_ticks(low, high):
    start, stop = math.floor(math.log10(low)), math.ceil(math.log10(high))
    return [10 ** e for e in range(start, stop + 1)] if stop > start else [10 ** start, 10 ** (start + 1)]


def value_ticks(top):
    """About five round ticks from 0 to at least top on a log scale of the value (CPU spans 20 µs to 20 ms)."""
    return log_ticks(max(top / 1000, 1), top)


def panel(out, x0, backend, requests):
    points = [p for values in requests.values() for p in values]
    xs = log_ticks(min(u for u, _ in points), max(u for u, _ in points))
    ys = value_ticks(max(v for _, v in points))
    xlo, xhi, ylo, yhi = math.log10(xs[0]), math.log10(xs[-1]), math.log10(ys[0]), math.log10(ys[-1])

    def px(users):
        return x0 + LEFT + (math.log10(users) - xlo) / (xhi - xlo) * (PANEL_W - LEFT - 20)

    def py(value):
        return TOP + (yhi - math.log10(max(value, ys[0]))) / (yhi - ylo) * (PANEL_H - TOP - BOTTOM)

    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{TOP - 22}" text-anchor="middle" font-weight="bold">{escape(backend)}</text>')
    for tick in xs:
        out.append(f'<line x1="{px(tick):.1f}" y1="{TOP}" x2="{px(tick):.1f}" y2="{PANEL_H - BOTTOM}" stroke="#ddd"/>')
        out.append(f'<text x="{px(tick):.1f}" y="{PANEL_H - BOTTOM + 16}" text-anchor="middle">{tick:,}</text>')
    for tick in ys:
        out.append(f'<line x1="{x0 + LEFT}" y1="{py(tick):.1f}" x2="{x0 + PANEL_W - 20}" y2="{py(tick):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + LEFT - 6}" y="{py(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{PANEL_H - 12}" text-anchor="middle">users (log scale)</text>')
    out.append(f'<text transform="translate({x0 + 14},{PANEL_H / 2}) rotate(-90)" text-anchor="middle">server CPU µs per request (log)</text>')
    for index, (name, values) in enumerate(requests.items()):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(f"{px(u):.1f},{py(v):.1f}" for u, v in sorted(values))
        out.append(f'<polyline class="series" data-request="{escape(name)}" fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for u, v in values:
            out.append(f'<circle cx="{px(u):.1f}" cy="{py(v):.1f}" r="3" fill="{colour}"><title>{escape(name)}: {v:g} µs at {u:,} users</title></circle>')


def main() -> None:
    data = series(sys.argv[1])
    if not data:
        sys.exit("no CPU rows in " + sys.argv[1])
    title = sys.argv[3] if len(sys.argv) > 3 else "Gatehouse: server CPU per request as the data grows (bench/scale.sh)"
    names = list(OrderedDict((n, None) for requests in data.values() for n in requests))
    legend_rows = math.ceil(len(names) / 3)
    width, height = PANEL_W * len(data), PANEL_H + 20 + legend_rows * 18
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13">{escape(title)}</text>']
    for index, (backend, requests) in enumerate(data.items()):
        panel(out, index * PANEL_W, backend, requests)
    for index, name in enumerate(names):
        x, y = 20 + (index % 3) * (width / 3), PANEL_H + 14 + (index // 3) * 18
        out.append(f'<line x1="{x}" y1="{y - 4}" x2="{x + 18}" y2="{y - 4}" stroke="{COLOURS[index % len(COLOURS)]}" stroke-width="3"/>')
        out.append(f'<text x="{x + 24}" y="{y}">{escape(name)}</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as handle:
        handle.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
