"""Shared fixtures of the Python module's tests (tests/python/, run by ctest as python.*).

The module is imported from PYTHONPATH (ctest sets it to the build tree's python/ folder). Real
data comes from $NFT_DATA_DIR or ../shared/data beside the source tree ($NFT_SOURCE_DIR, else
this file's repository): a test that needs a missing folder skips with a message naming it — or
fails where the data must be there (CI=true or NFT_REQUIRE_DATA=1), as the C++ tests do
(tests/support/test_data.h).
"""

import os
import pathlib

import numpy as np
import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("NFT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def data_dir() -> pathlib.Path:
    env = os.environ.get("NFT_DATA_DIR", "")
    return pathlib.Path(env) if env else SOURCE_DIR / ".." / "shared" / "data"


def require_data(relative: str) -> pathlib.Path:
    """The path of `relative` in the data folder; skips (or fails in CI) when it is missing."""
    path = data_dir() / relative
    if not path.exists():
        message = (f"real data folder missing: {path} (check out shared/ beside the repository "
                   f"or set NFT_DATA_DIR)")
        if os.environ.get("CI") == "true" or os.environ.get("NFT_REQUIRE_DATA") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def read_gt(path: pathlib.Path) -> np.ndarray:
    """tmt_bookI's gt.tsv → F×4×2 float64 corners (upper left, upper right, lower right, lower left)."""
    rows = []
    with open(path) as f:
        next(f)  # header
        for line in f:
            cols = line.split()
            if cols:
                rows.append([float(c) for c in cols[1:9]])
    return np.array(rows).reshape(-1, 4, 2)


def alignment_error(corners: np.ndarray, gt: np.ndarray) -> float:
    """sqrt(mean over the 4 corners of the squared distance), pixels (../shared/data/README.md)."""
    return float(np.sqrt(np.mean(np.sum((corners - gt) ** 2, axis=1))))


@pytest.fixture(scope="session")
def tmt():
    """tmt_bookI: (target.png path, the first 60 frames as grey arrays, their ground truth)."""
    import cv2  # python3-opencv, a dependency (scripts/install-deps.sh)
    folder = require_data("video/tmt_bookI")
    video = cv2.VideoCapture(str(folder / "video.mp4"))
    frames = []
    while len(frames) < 60:
        ok, frame = video.read()
        if not ok:
            break
        frames.append(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert len(frames) == 60, "tmt_bookI/video.mp4 has fewer than 60 frames"
    return folder / "target.png", frames, read_gt(folder / "gt.tsv")[:60]
