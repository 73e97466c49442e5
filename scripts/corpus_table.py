#!/usr/bin/env python3
"""The corpus table of a scripts/corpus.sh (or scripts/gpu_corpus.sh) run.

    scripts/corpus_table.py OUT [--backends B1,B2,...]

Reads OUT/MODEL/{inspect,probe,bisect-BACKEND,lint,sweep}.json (and their .rc exit statuses) and
writes OUT/corpus.md, one row per model and backend, and OUT/corpus.json with the same rows. A
step that did not run or could not be read shows as "-" or "not run (exit N)"; nothing is guessed.

Columns: the probe's status on the model's outputs; the margin of a clean bisect (the
intermediate closest to its bound: 1 / bound_used, docs/bisect.md "Margins"); the culprit bisect
named where the target diverges; the lint rules that fire for that backend; the fp16 variant's
status in the sweep.
"""
import argparse
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def exit_status(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def number(v):
    """parity's JSON numbers: a float, or "inf"/"nan" strings (JSON has no non-finite numbers)."""
    if isinstance(v, (int, float)):
        return float(v)
    if v in ("inf", "nan", "-inf"):
        return float(v)
    return None


def json_value(v):
    """parity's JSON spelling of a non-finite number."""
    return str(v) if isinstance(v, float) and v != v or v in (float("inf"), float("-inf")) else v


def probe_cell(probe, backend):
    if not probe:
        return "-", None
    for b in probe.get("backends", []):
        if b.get("name") != backend:
            continue
        status = b.get("status", "?")
        worst = None
        for o in b.get("outputs", []):
            m = o.get("metrics") or {}
            used = number(m.get("bound_used"))
            if used is not None and (worst is None or used > worst[0]):
                worst = (used, o.get("name"), number(m.get("max_abs")))
        if status == "error" and b.get("error"):
            return "error: " + (b["error"].get("kind") or "?"), worst
        return status, worst
    return "-", None


def bisect_cells(bisect, rc):
    """(margin text, headroom or None, culprit text)."""
    if bisect is None:
        return ("not run" if rc is None else f"no result (exit {rc})"), None, "-"
    if bisect.get("error"):
        return "-", None, "could not run: " + (bisect["error"].get("kind") or "?")
    margin, headroom = "-", None
    m = bisect.get("margin")
    if m and not bisect.get("first_divergent"):  # a margin is a clean run's
        headroom = number(m.get("headroom"))
        if headroom is not None and headroom != float("inf"):
            margin = f"{headroom:.3g}x ({m.get('op_type')} `{m.get('node')}`)"
        else:
            margin = "exact"
    culprit = "-"
    f = bisect.get("first_divergent")
    if f:
        iso = bisect.get("isolation") or {}
        how = "born here" if f.get("born_here") else "inherited"
        if f.get("near_tie"):
            how = "near-tie flip, no miscompute"
        reproduces = ", reproduces alone" if iso.get("reproduces") else ""
        culprit = f"{f.get('op_type')} `{f.get('node')}` ({how}{reproduces})"
    return margin, headroom, culprit


def lint_cell(lint, backend):
    if not lint:
        return "-"
    rules = []
    for h in lint.get("hits", []):
        for a in h.get("backends", []):
            if a.get("backend") == backend and a.get("severity") in ("error", "warning"):
                rule = h.get("rule")
                if h.get("finding"):
                    rule += f" ({h['finding']})"
                rules.append(f"{rule} [{a['severity']}]")
    return ", ".join(rules) if rules else "no rule"


def sweep_cell(sweep, backend):
    if not sweep:
        return "-"
    statuses = [c.get("status") for c in sweep.get("cells", [])
                if c.get("backend") == backend and str(c.get("variant", "")).startswith("fp16")]
    return ", ".join(s for s in statuses if s) or "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--backends", default="webgpu,web-wasm,web-webgpu,web-jsep")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    models = sorted(d for d in os.listdir(args.out) if os.path.isfile(os.path.join(args.out, d, "inspect.json")))
    rows, worst_by_model = [], {}
    for name in models:
        d = os.path.join(args.out, name)
        probe = load(os.path.join(d, "probe.json"))
        lint = load(os.path.join(d, "lint.json"))
        sweep = load(os.path.join(d, "sweep.json"))
        for b in backends:
            status, worst_out = probe_cell(probe, b)
            margin, headroom, culprit = bisect_cells(load(os.path.join(d, f"bisect-{b}.json")),
                                                     exit_status(os.path.join(d, f"bisect-{b}.rc")))
            if isinstance(headroom, float) and status == "ok":
                prev = worst_by_model.get(name)
                if prev is None or headroom < prev[0]:
                    worst_by_model[name] = (headroom, b)
            rows.append({"model": name, "backend": b, "probe": status, "margin": margin,
                         "headroom": json_value(headroom),
                         "culprit": culprit, "lint": lint_cell(lint, b), "fp16": sweep_cell(sweep, b),
                         "worst_output_bound_used": json_value(worst_out[0]) if worst_out else None})

    machine = ""
    try:
        with open(os.path.join(args.out, "machine.txt")) as f:
            machine = f.read().strip()
    except OSError:
        pass
    lines = ["| model | backend | probe | margin (clean bisect) | culprit | lint | fp16 |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['backend']} | {r['probe']} | {r['margin']} | {r['culprit']} | "
                     f"{r['lint']} | {r['fp16']} |")
    not_ok = [r for r in rows if r["probe"] not in ("ok", "-")]
    summary = [f"{len(models)} models x {len(backends)} backends = {len(rows)} rows; "
               f"{len(rows) - len(not_ok)} ok, {len(not_ok)} not ok."]
    for r in not_ok:
        summary.append(f"- {r['model']} on {r['backend']}: {r['probe']}; culprit {r['culprit']}; lint: {r['lint']}")
    worst = ["| model | worst headroom | on |", "|---|---|---|"]
    for name in models:
        if name in worst_by_model:
            h, b = worst_by_model[name]
            worst.append(f"| {name} | {'exact' if h == float('inf') else f'{h:.3g}x'} | {b} |")
    text = "\n".join(["```", machine, "```", "", *summary, "", *lines, "",
                      "Worst headroom per model (clean bisects of backends whose probe is ok):", "",
                      *worst, ""])
    with open(os.path.join(args.out, "corpus.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "corpus.json"), "w") as f:
        json.dump({"schema": "parity.corpus/1", "models": models, "backends": backends, "rows": rows},
                  f, indent=1, allow_nan=False)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
