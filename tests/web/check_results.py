#!/usr/bin/env python3
"""Judges the web tests' results (scripts/test-web.sh) and prints the numbers the README quotes.

Fails (exit status 1) when
  - a shader program did not compile or link in WebGL 1, or none was checked;
  - on a compared frame the browser and the native nft_replay disagree on whether the target was
    found, or a corner lies more than --tolerance px (default 0.5) from the native one;
  - a case that checked addTarget's geometry (track.js) got another answer than the expected error.
Prints, without judging them: the module's download size gzipped (issue 25's goal: <= 2 MB), and
per case the median tracker time per frame in the browser against native (goal: <= 3x). A
--measure case is printed the same way and never judged.

  check_results.py --shaders shaders.json --module FILE... --case NAME web.json native.csv ...
                   [--measure NAME web.json native.csv ...]
"""
import argparse
import csv
import gzip
import json
import statistics
import sys


def load_native(path):
    """Rows of nft_replay's --poses CSV: (found, corners as 4 (x, y), tracker ms)."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            keys = ["ulx", "uly", "urx", "ury", "lrx", "lry", "llx", "lly"]
            found = all(row[k] != "" for k in keys)
            corners = [(float(row[keys[2 * i]]), float(row[keys[2 * i + 1]])) for i in range(4)] if found else []
            rows.append((found, corners, float(row["ms"])))
    return rows


def check_geometry(name, answers):
    """addTarget's geometry option in the browser (tests/web/track.js, geometryErrors): each bad
    geometry refused with an NftError naming what is wrong, nothing added; a can's label beside the
    case's target accepted as a cylinder (curved and flat targets share a Session), then removed."""
    expected = {"kind": "geometry.kind 'barrel'", "radius": "radius_m -1"}
    ok = True
    for key, needle in expected.items():
        answer = answers.get(key, "")
        if not answer.startswith("NftError") or needle not in answer:
            print(f"FAIL {name}: addTarget with the {key} geometry answered {answer!r}; expected an NftError with {needle!r}")
            ok = False
    if answers.get("cylinder") != 'accepted: "cylinder"':
        print(f"FAIL {name}: a can's label beside the target answered {answers.get('cylinder')!r}; "
              "expected it accepted as a cylinder target")
        ok = False
    if len(answers.get("targets", [])) != 1:
        print(f"FAIL {name}: {len(answers.get('targets', []))} targets after the refused and removed ones; "
              "expected the one")
        ok = False
    if ok:
        print(f"{name}: addTarget's geometry checked in the browser: {', '.join(expected)} refused with their "
              "messages, a can's label beside the target accepted")
    return ok


def check_case(name, web_path, native_path, tolerance, judge=True):
    with open(web_path) as f:
        web = json.load(f)
    if web.get("error"):
        print(f"FAIL {name}: the page failed: {web['error']}")
        return False
    native = load_native(native_path)
    frames = web["frames"]
    if len(frames) != len(native):
        print(f"FAIL {name}: {len(frames)} frames in the browser, {len(native)} natively")
        return False
    ok = True
    worst = 0.0
    found = 0
    for w, (n_found, n_corners, _) in zip(frames, native):
        if bool(w["found"]) != n_found:
            if judge:
                print(f"FAIL {name} frame {w['frame']}: found {w['found']} in the browser, {n_found} natively")
            ok = False
            continue
        if not n_found:
            continue
        found += 1
        error = max(max(abs(a - b) for a, b in zip(wc, nc)) for wc, nc in zip(w["corners"], n_corners))
        worst = max(worst, error)
        if error > tolerance and judge:
            print(f"FAIL {name} frame {w['frame']}: a corner {error:.3f} px from the native one (tolerance {tolerance} px)")
            ok = False
    if "geometry" in web and not check_geometry(name, web["geometry"]):
        ok = False
    web_ms = statistics.median(w["trackerMs"] for w in frames)
    native_ms = statistics.median(r[2] for r in native)
    print(f"{name}: {len(frames)} frames, found on {found} in both; largest corner difference {worst:.4f} px; "
          f"tracker median {web_ms:.2f} ms per frame in the browser, {native_ms:.2f} ms natively "
          f"({web_ms / native_ms:.2f}x); target added in {web['addTargetMs']:.0f} ms on {web['info']['gpuRenderer']}")
    return ok or not judge


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shaders", required=True, help="shaders.html's result (JSON)")
    parser.add_argument("--module", nargs="+", required=True, help="the files a page downloads")
    parser.add_argument("--case", nargs=3, action="append", default=[], metavar=("NAME", "WEB_JSON", "NATIVE_CSV"))
    parser.add_argument("--measure", nargs=3, action="append", default=[], metavar=("NAME", "WEB_JSON", "NATIVE_CSV"),
                        help="a case whose numbers are printed but not judged")
    parser.add_argument("--tolerance", type=float, default=0.5, help="largest corner difference, px")
    args = parser.parse_args()

    ok = True
    with open(args.shaders) as f:
        shaders = json.load(f)
    if shaders.get("error") or shaders["programs"] == 0 or shaders["failures"]:
        print(f"FAIL shaders: {shaders.get('error') or ''} {len(shaders['failures'])} of {shaders['builds']} failed")
        for failure in shaders["failures"]:
            print(f"  {failure['program']}: {failure['error']}")
        ok = False
    else:
        print(f"shaders: all {shaders['programs']} programs ({shaders['builds']} builds with the no-highp "
              f"variants) compile and link in WebGL 1 on {shaders['renderer']}")

    data = b"".join(open(path, "rb").read() for path in args.module)
    print(f"download: {len(data)} bytes, {len(gzip.compress(data, 9))} gzipped (module, glue and API)")

    for name, web_path, native_path in args.case:
        ok = check_case(name, web_path, native_path, args.tolerance) and ok
    for name, web_path, native_path in args.measure:
        check_case(name + " (measured)", web_path, native_path, args.tolerance, judge=False)
    print("test-web: " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
