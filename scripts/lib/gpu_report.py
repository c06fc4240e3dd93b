#!/usr/bin/env python3
"""GPU report (scripts/gpu-report.sh): nft_bench's JSON -> the report's JSON and Markdown table.

Usage: gpu_report.py BENCH_JSON OUT_JSON OUT_MD --command CMD --filter REGEX

The JSON is nft_bench's (system, settings, results) with a "gpu_report" object added (UTC date,
the command, the filter). The Markdown starts with the renderer, driver (GL version), EGL
platform and CPU, then one row per case and baseline: ours, the baseline measured in the same
run, and the ratio (how many times faster ours is; for fps cases, higher is better), then the
skipped cases with their reason. Exit status 1 with a message naming the file when the input is
not nft_bench's JSON.
"""
import argparse
import datetime
import json
import sys


def fmt(value, unit):
    if value is None:
        return "-"
    if unit == "fps":
        return f"{value:.1f} fps"
    return f"{value:.3f} ms" if value < 10 else f"{value:.1f} ms"


def markdown(report):
    system = report["system"]
    lines = [
        "# GPU report",
        "",
        f"- Renderer: {system['gl_renderer']}",
        f"- Driver (GL_VERSION): {system['gl_version']}",
        f"- EGL platform: {system['egl_platform']}",
        f"- CPU: {system['cpu_model']} ({system['cpu_cores']} cores), OpenCV {system['opencv_version']}",
        f"- Date (UTC): {report['gpu_report']['date']}",
        f"- Command: `{report['gpu_report']['command']}`",
        "",
        "Medians over repetitions; ratio = how many times faster ours is than the baseline measured in the same run.",
        "",
        "| case | ours | baseline (same run) | baseline | ratio |",
        "|---|---|---|---|---|",
    ]
    skipped = []
    for r in report["results"]:
        if r.get("skipped"):
            skipped.append(r)
            continue
        unit = r.get("unit", "ms")
        baselines = r.get("baselines") or [{"name": "-", "median": None, "ratio": None}]
        for i, b in enumerate(baselines):
            ratio = "-" if b.get("ratio") is None else f"{b['ratio']:.2f}x"
            case = f"`{r['name']}`" if i == 0 else ""
            ours = fmt(r["median"], unit) if i == 0 else ""
            b_unit = "fps" if unit == "fps" else "ms"
            lines.append(f"| {case} | {ours} | {b['name']} | {fmt(b.get('median'), b_unit)} | {ratio} |")
    if skipped:
        lines += ["", "Skipped:", ""]
        lines += [f"- `{r['name']}`: {r['skipped']}" for r in skipped]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_json")
    parser.add_argument("out_json")
    parser.add_argument("out_md")
    parser.add_argument("--command", required=True)
    parser.add_argument("--filter", required=True)
    args = parser.parse_args()
    try:
        with open(args.bench_json, encoding="utf-8") as f:
            report = json.load(f)
        for key in ("system", "results"):
            if key not in report:
                raise ValueError(f"no '{key}' key (expected nft_bench --json output)")
    except (OSError, ValueError) as e:
        print(f"gpu_report.py: cannot read '{args.bench_json}': {e}", file=sys.stderr)
        return 1
    report["gpu_report"] = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "command": args.command,
        "filter": args.filter,
    }
    with open(args.out_json, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(args.out_md, "w", encoding="utf-8") as f:
        f.write(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
