"""The Python examples (examples/python/) and the overhead benchmark run and say what they should
(scripts/test-package.sh runs the examples again from an installed prefix)."""

import json
import os
import pathlib
import re
import subprocess
import sys

from conftest import SOURCE_DIR, data_dir, require_data

EXAMPLES = SOURCE_DIR / "examples" / "python"


def run(script: pathlib.Path, *args: str, cwd: pathlib.Path) -> str:
    env = dict(os.environ, NFT_DATA_DIR=str(data_dir()), MPLCONFIGDIR=str(cwd))
    p = subprocess.run([sys.executable, str(script), *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, f"{script.name} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def is_png(path: pathlib.Path) -> bool:
    return path.stat().st_size > 10_000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_track_video_plots_the_trajectory(tmp_path):
    require_data("video/cmu_book")
    out = run(EXAMPLES / "track_video.py", "--frames", "60", "--output", "t.png", cwd=tmp_path)
    m = re.search(r"found in (\d+) of (\d+) frames", out)
    assert m and m.group(2) == "60" and int(m.group(1)) >= 55, out
    t = re.search(r"p50 ([\d.]+), p90 ([\d.]+), p99 ([\d.]+), max ([\d.]+) ", out)
    assert t, out
    p50, p90, p99, worst = (float(t.group(i)) for i in range(1, 5))
    assert 0 < p50 <= p90 <= p99 <= worst, out
    assert is_png(tmp_path / "t.png")


def test_track_video_reports_a_missing_target(tmp_path):
    video = require_data("video/cmu_book") / "book.mp4"  # it opens the video before it trains the target
    env = dict(os.environ, MPLCONFIGDIR=str(tmp_path))
    p = subprocess.run([sys.executable, str(EXAMPLES / "track_video.py"), "--target", "/no/such.jpg", "--video",
                        str(video)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "/no/such.jpg" in p.stderr, (p.stdout, p.stderr)


def test_compare_descriptors_recall_and_precision(tmp_path):
    require_data("oxford/graf")
    out = run(EXAMPLES / "compare_descriptors.py", "--keypoints", "500", "--output", "c.png", cwd=tmp_path)
    rows = {m.group(1).strip(): [float(v) for v in m.groups()[1:]]
            for m in re.finditer(r"^\s+(SURF-ES \(GPU\)|CPU SURF|ORB|SIFT)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)$",
                                 out, re.M)}
    assert set(rows) == {"SURF-ES (GPU)", "CPU SURF", "ORB", "SIFT"}, out
    for name, (corr, matches, correct, recall, omp) in rows.items():
        assert 0 < correct <= matches, (name, correct, matches)
        assert abs(recall - correct / corr) < 1e-3, (name, recall, correct, corr)
        assert 0 <= omp < 0.6, (name, omp)
    # graf 1→2 is a mild viewpoint change: SURF-ES matches a good part of it, as the CPU lane does.
    assert rows["SURF-ES (GPU)"][3] > 0.25 and abs(rows["SURF-ES (GPU)"][3] - rows["CPU SURF"][3]) < 0.1, out
    assert is_png(tmp_path / "c.png")


def test_overhead_benchmark_runs(tmp_path):
    require_data("video/tmt_bookI")
    out = run(SOURCE_DIR / "tests" / "python" / "bench_process.py", "--frames", "40", "--repetitions", "1",
              cwd=tmp_path)
    result = json.loads(out.strip().splitlines()[-1])
    assert result["frames"] == 40 and result["cpp_ms"] > 0 and result["python_ms"] > 0
    # The ratio is reported, not bounded: a timing of 40 frames under ctest -j (0.49 once, with a
    # sanitizer build beside it) says nothing; the 5 % goal is measured with all frames.
    assert abs(result["ratio"] - result["python_ms"] / result["cpp_ms"]) < 1e-9, result
    assert abs(result["overhead_pct"] - 100 * (result["ratio"] - 1)) < 1e-6, result
