#!/usr/bin/env python3
"""Judges tests/web/recognition_page.js's result (scripts/test-web.sh): the recognition service's
JavaScript client in the browser against the real service.

  check_recognition.py --result recognition.json --native synthetic-native.csv --target NAME

Passes when: the first frame asks the service and the target it answers is added and found from
the next frame on (every later frame found, one request made), its corners within 2 px of the
native nft_replay's on the same frames (a model from the catalogue against one trained from the
image: measured 0.04 px); a wrong token's 401 and an unreachable service's failure are kept
as RecognitionErrors (status 401 on each of two frames, and 0) and nothing is added; the rate limit leaves one request
for five blank frames; a corrupt model is refused naming it and what is wrong."""

import argparse
import json
import sys

from check_results import load_native


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--result", required=True, help="recognition_page.js's result (JSON)")
    parser.add_argument("--native", required=True, help="nft_replay --poses CSV of the same frames")
    parser.add_argument("--target", required=True, help="the catalogue name of the target the frames show")
    parser.add_argument("--tolerance", type=float, default=2.0, help="largest corner difference, px")
    args = parser.parse_args()
    with open(args.result) as f:
        r = json.load(f)
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    if r.get("error"):
        print(f"FAIL recognition: the page threw: {r['error']}")
        return 1
    wrong = r["wrongToken"]
    expect(wrong["requests"] == 2 and len(wrong["errors"]) == 2
           and all(e["name"] == "RecognitionError" and e["status"] == 401 for e in wrong["errors"])
           and wrong["added"] == 0 and wrong["targets"] == 0,
           f"a wrong token: expected two 401 RecognitionErrors kept (two frames, no rate limit) and nothing added, "
           f"got {wrong}")
    away = r["unreachable"]
    expect(away["requests"] == 1 and len(away["errors"]) == 1 and away["errors"][0]["status"] == 0
           and "127.0.0.1:9" in away["errors"][0]["message"],
           f"an unreachable service: expected one RecognitionError of status 0 naming it, got {away}")
    expect(r["badModel"].startswith("NftError: addTargetModel") and "'garbage'" in r["badModel"]
           and "not a target model" in r["badModel"],
           f"a corrupt model: expected an NftError naming it and what is wrong, got {r['badModel']!r}")

    frames = r["frames"]
    tracked = r["tracked"]
    expect(tracked["requests"] == 1 and not tracked["errors"] and len(tracked["added"]) == 1
           and tracked["targets"] == [args.target],
           f"the catalogue target: expected one request, no error, {args.target!r} added once, got {tracked}")
    expect(not frames[0]["found"] and frames[0]["pending"], f"frame 0: expected nothing found and a request made, got {frames[0]}")
    later = frames[1:]
    found = [f for f in later if f["found"] and f["name"] == args.target]
    expect(len(found) == len(later), f"frames 1-{len(later)}: {len(found)} found as {args.target!r}, expected all")
    native = load_native(args.native)
    worst = 0.0
    for f in found:
        ok, corners, _ = native[f["frame"]]
        if not ok:
            failures.append(f"frame {f['frame']}: the native run did not find the target")
            continue
        for (x, y), (nx, ny) in zip(f["corners"], corners):
            worst = max(worst, ((x - nx) ** 2 + (y - ny) ** 2) ** 0.5)
    expect(worst <= args.tolerance, f"corners up to {worst:.2f} px from the native run's, expected <= {args.tolerance}")
    limited = r["rateLimit"]
    expect(limited["requests"] == 1 and not limited["errors"] and limited["added"] == 0,
           f"the rate limit: expected one request for five blank frames and nothing added, got {limited}")

    print(f"recognition client: {args.target} recognised from frame 0, added and found on {len(found)} of "
          f"{len(later)} later frames with {tracked['requests']} request, corners within {worst:.2f} px of native; "
          f"401, unreachable, rate limit and a corrupt model handled")
    for failure in failures:
        print(f"FAIL recognition: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
