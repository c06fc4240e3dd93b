"""The Python code of the guide (docs/python.md includes the block between the two session
markers below with Doxygen's \\snippet), run on tmt_bookI: it must track the book within 5 px of the
ground truth, with the shapes and types the page states."""

import numpy as np

from conftest import alignment_error, require_data


def test_the_guide_example_tracks_the_book():
    folder = require_data("video/tmt_bookI")
    cover, book = str(folder / "target.png"), str(folder / "video.mp4")
    ## [session]
    import cv2, nft
    session = nft.Session({"tracking": {"min_ncc": 0.75,      # or None (defaults), or a YAML path
                                        "async_detection": "off"}})  # one still frame: detect in process()
    session.add_target(cover, "book", 0.185)                  # or an image array; width in metres
    print(session.targets[0].quality)                          # stars, keypoints, coverage, ...
    ok, frame = cv2.VideoCapture(book).read()                  # H×W×3 uint8 BGR (or H×W grey)
    t = session.process(frame).targets[0]                      # frame passed without a copy
    if t.found:
        print(t.corners, t.homography, t.rvec, t.tvec)         # 4×2, 3×3, (3,), (3,) float64
    ## [session]
    assert ok and t.found
    assert session.targets[0].quality.stars >= 3
    assert t.corners.shape == (4, 2) and t.homography.shape == (3, 3)
    assert t.rvec.shape == (3,) and t.tvec.shape == (3,) and t.corners.dtype == np.float64
    from conftest import read_gt
    assert alignment_error(t.corners, read_gt(folder / "gt.tsv")[0]) < 5.0
    assert 0.1 < t.tvec[2] < 2.0, "metres: the book is within arm's length"
