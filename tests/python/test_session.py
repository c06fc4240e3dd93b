"""nft.Session from Python: tracking on real video against ground truth, the config and
calibration arguments, the target database, and the errors of bad input (issue 24)."""

import os
import threading
import time

import cv2
import numpy as np
import pytest

import nft
from conftest import alignment_error, require_data


# Each detection in the frame it searches: tracking.async_detection's default (auto) runs it on a
# worker thread with at least 2 cores and reports it a few frames later (test_the_default_searches_on_a_worker_thread).
SYNCHRONOUS = {"tracking": {"async_detection": "off"}}


def tracked_session(target, **kwargs):
    kwargs.setdefault("config", SYNCHRONOUS)
    session = nft.Session(**kwargs)
    session.add_target(str(target), "book", 0.2)
    return session


# --- Tracking ---------------------------------------------------------------------------------------


def test_tracks_tmt_bookI_within_5px_of_ground_truth(tmt):
    target, frames, gt = tmt
    session = tracked_session(target)
    errors = []
    for i, frame in enumerate(frames):
        r = session.process(frame, timestamp_ns=i * 33_333_333)
        assert r.frame == i
        assert r.timestamp_ns == i * 33_333_333
        assert r.frame_size == (800, 600)
        assert len(r.targets) == 1
        t = r.targets[0]
        assert t.found, f"frame {i}: not found ({t.rejection})"
        assert t.name == "book"
        assert t.state in ("detecting", "tracking")
        assert t.corners.shape == (4, 2) and t.corners.dtype == np.float64
        assert t.homography.shape == (3, 3) and t.homography.dtype == np.float64
        assert t.rvec.shape == (3,) and t.tvec.shape == (3,)
        errors.append(alignment_error(t.corners, gt[i]))
    assert max(errors) <= 5.0, f"alignment errors (px): max {max(errors):.2f} at frame {int(np.argmax(errors))}"
    assert r.targets[0].state == "tracking"


def test_the_default_searches_on_a_worker_thread(tmt):
    """tracking.async_detection's default, auto: with at least 2 cores the search runs on a worker,
    process() returns at once with search_in_flight, and the book is reported a few frames later,
    within 5 px, the frames given at 30 frames/s as a camera gives them."""
    target, frames, gt = tmt
    session = nft.Session()
    session.add_target(str(target), "book", 0.2)
    first = session.process(frames[0])
    if (os.cpu_count() or 1) < 2:
        assert not first.search_in_flight and first.targets[0].found  # auto is off with one core
        return
    assert first.search_in_flight and not first.targets[0].found
    assert first.targets[0].state == "detecting" and "in flight" in first.targets[0].rejection
    found_at = None
    for i in range(1, 60):
        time.sleep(1 / 30)
        t = session.process(frames[i]).targets[0]
        if t.found:
            found_at = found_at if found_at is not None else i
            assert alignment_error(t.corners, gt[i]) <= 5.0, f"frame {i}"
    assert found_at is not None, "the worker's search never reported the book"


def test_instant_target_from_the_first_frames_quad(tmt):
    """add_target_from_frame: tracked from gt's first quad, without a detection, within 5 px."""
    _, frames, gt = tmt
    session = nft.Session()
    quad = [tuple(p) for p in np.asarray(gt[0]).reshape(4, 2)]  # a list of (x, y) pairs works
    target_id = session.add_target_from_frame(frames[0], quad, "book", 0.2)
    assert session.target(target_id).source == "<frame>"
    for i in range(1, len(frames)):
        t = session.process(frames[i]).targets[0]
        assert t.found, f"frame {i}: not found ({t.rejection})"
        if i == 1:
            assert t.state == "tracking"
        assert alignment_error(t.corners, gt[i]) <= 5.0, f"frame {i}"
    # Its corners as a 4×2 array are a quad too; a bad quad raises naming it.
    second = session.add_target_from_frame(frames[-1], session.process(frames[-1]).targets[0].corners, "again")
    assert session.target(second).name == "again"
    with pytest.raises(nft.InputError, match="quad has 3 corners"):
        session.add_target_from_frame(frames[0], [(10, 10), (100, 10), (100, 100)], "three")
    with pytest.raises(nft.InputError, match="not convex and clockwise"):
        session.add_target_from_frame(frames[0], [(100, 100), (100, 300), (300, 300), (300, 100)], "mirrored")
    with pytest.raises(ValueError, match="quad: expected an N×2 array"):
        session.add_target_from_frame(frames[0], [1, 2, 3, 4], "flat")


def test_pose_homography_and_corners_agree(tmt):
    target, frames, _ = tmt
    session = tracked_session(target)
    t = session.process(frames[0]).targets[0]
    info = session.targets[0]
    w, h = info.image_size
    # The homography maps the target image's corners onto the reported corners.
    quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
    mapped = cv2.perspectiveTransform(quad, t.homography).reshape(4, 2)
    np.testing.assert_allclose(mapped, t.corners, atol=0.05)
    # The pose projects the target's corners (metres) near the same place.
    K = session.calibration.K
    scale = info.width_m / w
    object_points = quad.reshape(4, 2) * scale
    object_points = np.hstack([object_points, np.zeros((4, 1))])
    projected, _ = cv2.projectPoints(object_points, t.rvec, t.tvec, K, session.calibration.distortion)
    assert np.max(np.abs(projected.reshape(4, 2) - t.corners)) < 3.0
    R, _ = cv2.Rodrigues(t.rvec)
    np.testing.assert_allclose(R, t.R, atol=1e-6)
    assert 0.5 < t.tvec[2] < 2.0  # a 20 cm book seen from about a metre


def test_same_frames_give_identical_results_and_bgr_equals_grey(tmt):
    target, frames, _ = tmt
    a, b, c = tracked_session(target), tracked_session(target), tracked_session(target)
    for frame in frames[:5]:
        ra = a.process(frame).targets[0]
        rb = b.process(frame).targets[0]
        rc = c.process(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)).targets[0]
        np.testing.assert_array_equal(ra.corners, rb.corners)
        np.testing.assert_array_equal(ra.tvec, rb.tvec)
        assert ra.inliers == rb.inliers
        np.testing.assert_allclose(ra.corners, rc.corners, atol=1e-3)


def test_timings_and_inlier_points(tmt):
    target, frames, _ = tmt
    session = tracked_session(target)
    r0 = session.process(frames[0])
    r1 = session.process(frames[1])
    assert r0.timings["total"] > 0 and r0.timings["fast"] > 0  # frame 0 ran the detection lane
    assert r1.targets[0].state == "tracking" and r1.timings["fine"] > 0 and r1.timings["fast"] == 0
    t = r1.targets[0]
    assert t.inlier_frame_points.shape == t.inlier_target_points.shape == (t.inliers, 2)


def test_result_outlives_session_and_next_frame(tmt):
    target, frames, _ = tmt
    session = tracked_session(target)
    r = session.process(frames[0])
    corners = r.targets[0].corners.copy()
    t = r.targets[0]
    session.process(frames[1])
    del session
    np.testing.assert_array_equal(t.corners, corners)


def test_render_to_image_draws_over_the_frame(tmt):
    target, frames, _ = tmt
    session = tracked_session(target)
    r = session.process(frames[0])
    image = session.render_to_image(r)
    assert image.shape == (600, 800, 3) and image.dtype == np.uint8
    background = cv2.cvtColor(frames[0], cv2.COLOR_GRAY2BGR).astype(int)
    changed = np.any(np.abs(image.astype(int) - background) > 40, axis=2)
    assert 0.001 < changed.mean() < 0.5  # augmentations drawn, most of the frame still the frame


# --- Targets ------------------------------------------------------------------------------------------


def test_target_database_add_from_array_and_remove(tmt):
    target, frames, _ = tmt
    session = nft.Session()
    image = cv2.imread(str(target))
    a = session.add_target(image, "from_array", 0.2)
    b = session.add_target(target, "from_path")  # os.PathLike, width from the config
    assert (a, b) == (1, 2)
    infos = session.targets
    assert [i.name for i in infos] == ["from_array", "from_path"]
    assert infos[0].source == "<image>" and infos[1].source == str(target)
    assert infos[0].width_m == 0.2 and infos[1].width_m == 0.2  # config target.width_m default
    assert infos[0].original_size == (image.shape[1], image.shape[0])
    q = session.target(a).quality
    assert q.keypoints > 100 and q.stars >= 4 and 0 < q.coverage <= 1 and isinstance(q.warnings, list)
    session.remove_target(a)
    assert [i.id for i in session.targets] == [b]
    with pytest.raises(nft.InputError, match="1"):
        session.remove_target(a)
    with pytest.raises(nft.InputError):
        session.target(99)
    with pytest.raises(nft.InputError, match="from_path"):
        session.add_target(target, "from_path")  # name taken


def test_trained_model_file_tracks_like_the_image(tmt, tmp_path):
    target, frames, gt = tmt
    trained = nft.train_target(target, width_m=0.2)
    assert trained.quality.stars >= 4
    assert trained.keypoints.shape[0] == trained.descriptors.shape[0] == trained.quality.keypoints
    assert trained.descriptors.shape[1] == 64 and trained.descriptors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(trained.descriptors, axis=1), 1.0, atol=1e-4)
    model = tmp_path / "book.nftm"
    trained.save(model)
    session = nft.Session(SYNCHRONOUS)
    tid = session.add_target(model, "book")
    assert session.target(tid).trained is False
    assert session.target(tid).width_m == pytest.approx(0.2)
    t = session.process(frames[0]).targets[0]
    assert t.found and alignment_error(t.corners, gt[0]) <= 5.0
    # The same file's bytes (what the recognition service's GET /targets/ID answers), no file.
    from_bytes = nft.Session(SYNCHRONOUS)
    bid = from_bytes.add_target_model(model.read_bytes())
    assert from_bytes.target(bid).name == "model-1" and from_bytes.target(bid).trained is False
    assert from_bytes.target(bid).quality.keypoints == session.target(tid).quality.keypoints
    b = from_bytes.process(frames[0]).targets[0]
    assert b.found and np.abs(np.asarray(b.corners) - np.asarray(t.corners)).max() < 1e-3
    with pytest.raises(nft.InputError, match="'shop'.*truncated"):
        from_bytes.add_target_model(model.read_bytes()[:5000], "shop")
    with pytest.raises(nft.InputError, match="empty"):
        from_bytes.add_target_model(b"")
    with pytest.raises(TypeError):
        from_bytes.add_target_model(str(model))
    assert len(from_bytes.targets) == 1


def test_a_curved_label_is_trained_with_its_geometry(tmp_path):
    # Issue 47: nft.TargetGeometry through train_target (saved in the model) and add_target
    # (checked against the label); curved and flat targets share a Session.
    graf = "/usr/share/doc/opencv-doc/examples/data/graf1.png"  # 800 × 640
    can = nft.TargetGeometry.cylinder(0.033)
    assert (can.kind, can.radius_m, can.curved) == ("cylinder", 0.033, True)
    cup = nft.TargetGeometry.cone(0.045, 0.03, 0.1, label="rectangle")
    assert (cup.kind, cup.top_radius_m, cup.bottom_radius_m, cup.side_length_m, cup.cone_label) == \
        ("cone", 0.045, 0.03, 0.1, "rectangle")
    assert not nft.TargetGeometry().curved and nft.TargetGeometry.planar().kind == "planar"
    with pytest.raises(ValueError, match="kind 'barrel'"):
        nft.TargetGeometry(kind="barrel")
    with pytest.raises(ValueError, match="cone_label 'fan'"):
        nft.TargetGeometry.cone(0.04, 0.03, 0.1, label="fan")

    trained = nft.train_target(graf, width_m=0.1, geometry=can)
    assert trained.geometry.kind == "cylinder" and trained.geometry.radius_m == 0.033
    assert nft.train_target(graf, width_m=0.1).geometry.kind == "planar"
    with pytest.raises(nft.InputError, match="circumference"):
        nft.train_target(graf, width_m=0.3, geometry=can)  # 2π · 0.033 = 0.207 m
    with pytest.raises(TypeError, match="geometry"):
        nft.train_target(graf, width_m=0.1, geometry="cylinder")
    model = tmp_path / "can.nftm"
    trained.save(model)

    session = nft.Session(SYNCHRONOUS)
    with pytest.raises(nft.InputError, match="radius_m -1"):
        session.add_target(graf, "can", 0.1, geometry=nft.TargetGeometry.cylinder(-1))
    assert session.targets == []
    tid = session.add_target(model, "can model")  # the model keeps its geometry
    assert session.target(tid).geometry.kind == "cylinder" and session.target(tid).geometry.radius_m == 0.033
    poster = session.add_target(graf, "poster", 0.3, geometry=nft.TargetGeometry.planar())
    assert session.target(poster).geometry.kind == "planar"  # beside the can
    label = session.add_target(graf, "can", 0.1, geometry=can)
    assert [t.geometry.kind for t in session.targets] == ["cylinder", "planar", "cylinder"]
    session.remove_target(label)
    assert len(session.targets) == 2


def test_the_outline_of_a_flat_target_is_its_closed_quad():
    # TargetResult.outline (issue 47): polylines in frame pixels; a flat target's is its corners
    # closed (a curved label's: its visible edges and the can's silhouette, tested in C++).
    graf = cv2.imread("/usr/share/doc/opencv-doc/examples/data/graf1.png", cv2.IMREAD_GRAYSCALE)
    H = np.array([[0.45, 0.05, 120.0], [-0.03, 0.45, 90.0], [0.0, 0.0002, 1.0]])
    frame = cv2.warpPerspective(graf, H, (640, 480), borderValue=110)
    session = nft.Session(SYNCHRONOUS)
    session.add_target(graf, "graf", 0.2)
    t = session.process(frame).targets[0]
    assert t.found
    assert isinstance(t.outline, list) and len(t.outline) == 1
    quad = t.outline[0]
    assert quad.shape == (5, 2) and quad.dtype == np.float64
    np.testing.assert_allclose(quad[:4], t.corners)
    np.testing.assert_allclose(quad[4], t.corners[0])
    lost = session.process(np.full((480, 640), 110, np.uint8)).targets[0]
    assert not lost.found and lost.outline == []


# --- Config and calibration ---------------------------------------------------------------------------


def test_config_dict_file_and_errors(tmp_path):
    s = nft.Session({"descriptor": {"type": "surf36"}, "tracking": {"min_ncc": 0.75, "enabled": True},
                     "render": {"cube_color": [10, 20, 30]}, "detector": {"max_keypoints": np.int64(500)}})
    yaml = s.config_yaml
    assert "type: surf36" in yaml and "min_ncc: 0.75" in yaml and "max_keypoints: 500" in yaml
    path = tmp_path / "c.yaml"
    path.write_text("tracking:\n  redetect_every: 7\n")
    assert "redetect_every: 7" in nft.Session(str(path)).config_yaml
    with pytest.raises(nft.ConfigError) as e:
        nft.Session({"tracking": {"min_ncc": 1.5}})
    assert e.value.key_path == "tracking.min_ncc" and "min_ncc" in str(e.value)
    assert isinstance(e.value, nft.Error) and isinstance(e.value, ValueError)
    with pytest.raises(nft.ConfigError, match="min_nc"):
        nft.Session({"tracking": {"min_nc": 0.5}})  # unknown key, named
    with pytest.raises(nft.ConfigError, match="detector.max_keypoints"):
        nft.Session({"detector": {"max_keypoints": "many"}})
    with pytest.raises(FileNotFoundError, match="config.*no-such.yaml"):
        nft.Session(str(tmp_path / "no-such.yaml"))
    with pytest.raises(TypeError, match="config"):
        nft.Session(42)
    with pytest.raises(TypeError, match=r"config\['tracking'\]\['min_ncc'\]"):
        nft.Session({"tracking": {"min_ncc": object()}})


def test_calibration_given_and_default(tmt):
    target, frames, _ = tmt
    K = np.array([[700.0, 0, 399.5], [0, 700.0, 299.5], [0, 0, 1]])
    cal = nft.Calibration(K, (800, 600))
    session = nft.Session(SYNCHRONOUS, calibration=cal)
    np.testing.assert_array_equal(session.calibration.K, K)
    assert session.calibration.image_size == (800, 600)
    session.add_target(target, "book", 0.2)
    t_given = session.process(frames[0]).targets[0]
    default = tracked_session(target)
    assert default.calibration is None  # sized on the first frame
    t_default = default.process(frames[0]).targets[0]
    assert default.calibration.image_size == (800, 600)
    fx_default = default.calibration.K[0, 0]
    assert fx_default == pytest.approx(400 / np.tan(np.radians(30)), rel=1e-6)  # hfov 60°
    # Same corners, depth scales with the focal length.
    np.testing.assert_allclose(t_given.corners, t_default.corners, atol=0.5)
    assert t_given.tvec[2] / t_default.tvec[2] == pytest.approx(700.0 / fx_default, rel=0.02)
    with pytest.raises(nft.InputError, match="size"):
        session.process(np.zeros((480, 640), np.uint8))
    with pytest.raises(ValueError, match="K"):
        nft.Calibration(np.eye(2), (800, 600))
    with pytest.raises(ValueError, match="image_size"):
        nft.Calibration(K, (0, 600))
    with pytest.raises(FileNotFoundError, match="calibration"):
        nft.Session(calibration="/no/such/calibration.yaml")


# --- Bad input -----------------------------------------------------------------------------------------


def test_bad_frames_raise_naming_frame(tmt):
    target, frames, _ = tmt
    session = tracked_session(target)
    frame = frames[0]
    with pytest.raises(ValueError, match=r"frame.*uint8.*float32"):
        session.process(frame.astype(np.float32))
    with pytest.raises(ValueError, match=r"frame.*shape \(600, 800, 2\)"):
        session.process(np.zeros((600, 800, 2), np.uint8))
    with pytest.raises(ValueError, match=r"frame.*shape \(800,\)"):
        session.process(np.zeros(800, np.uint8))
    with pytest.raises(ValueError, match=r"frame.*C-contiguous"):
        session.process(np.asfortranarray(frame))
    with pytest.raises(ValueError, match=r"frame.*C-contiguous"):
        session.process(np.zeros((600, 1600), np.uint8)[:, ::2])
    with pytest.raises(ValueError, match=r"frame.*non-empty"):
        session.process(np.zeros((0, 800), np.uint8))
    with pytest.raises(TypeError, match="frame"):
        session.process(frame.tolist())
    r = session.process(frame)  # the first good frame fixes the size
    assert r.frame == 0 and r.targets[0].found
    with pytest.raises(nft.InputError, match="800"):
        session.process(frame[:300].copy())
    assert session.process(frames[1]).frame == 1  # still usable


def test_missing_and_bad_target_files(tmp_path):
    session = nft.Session()
    with pytest.raises(FileNotFoundError, match=r"image_or_path.*no-such\.png"):
        session.add_target(str(tmp_path / "no-such.png"), "x")
    with pytest.raises(FileNotFoundError, match=r"path.*no-such\.nftdb"):
        session.load_database(tmp_path / "no-such.nftdb")
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    with pytest.raises(nft.InputError, match="junk.png"):
        session.add_target(str(junk), "x")
    with pytest.raises(nft.InputError, match="plain|keypoints"):
        session.add_target(np.full((200, 200), 128, np.uint8), "flat")
    with pytest.raises(nft.InputError, match="width"):
        session.add_target(np.full((200, 200), 128, np.uint8), "flat", -1.0)
    with pytest.raises(ValueError, match="image_or_path"):
        session.add_target(np.zeros((200, 200), np.float64), "x")
    assert session.targets == []


def test_closed_session_raises():
    with nft.Session() as session:
        assert not session.closed
    assert session.closed
    with pytest.raises(nft.Error, match="closed"):
        session.process(np.zeros((10, 10), np.uint8))


# --- Threads and the GIL -------------------------------------------------------------------------------


def test_calls_from_another_thread_raise_gpu_error(tmt):
    target, frames, _ = tmt
    session = tracked_session(target)
    errors = []

    def other():
        try:
            session.process(frames[0])
        except Exception as e:  # noqa: BLE001 - the test inspects it
            errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], nft.GpuError), errors
    assert "thread" in str(errors[0])
    assert session.process(frames[0]).targets[0].found  # the owner thread still works


def test_gil_is_released_while_cpp_works():
    """A Python thread keeps running while another thread's Session trains a target in C++."""
    image = require_data("oxford/graf/img1.png")
    state = {"running": False, "seconds": 0.0}

    def worker():
        # Made on this thread: its GL objects are used here. A large working size and many
        # keypoints make one add_target() call long (about a second on llvmpipe).
        session = nft.Session({"detector": {"max_keypoints": 4000}, "target": {"working_size": 1600}})
        state["running"] = True
        start = time.perf_counter()
        session.add_target(str(image), "graf", 0.2)
        state["seconds"] = time.perf_counter() - start
        state["running"] = False

    thread = threading.Thread(target=worker)
    thread.start()
    while not state["running"] and thread.is_alive():
        time.sleep(0.0005)
    stamps = []
    while state["running"]:
        stamps.append(time.perf_counter())
    thread.join()
    assert state["seconds"] > 0.1, "the call was too short to tell"
    gaps = np.diff(stamps)
    # With the GIL held through the C++ call this loop would stall for the whole call; released,
    # it waits a few switch intervals (5 ms) at a time, longer only on a loaded machine.
    assert len(stamps) > 1000 and gaps.max() < 0.5 * state["seconds"], (len(stamps), gaps.max(), state)


def test_help_reads_like_the_cpp_docs():
    doc = nft.Session.__doc__
    assert "nft::Session" in doc and "Wagner" in doc
    assert "H×W×3 BGR" in nft.Session.process.__doc__ and "ValueError" in nft.Session.process.__doc__
    assert "metres" in nft.Session.add_target.__doc__
    assert "4×2 float64" in nft.TargetResult.corners.__doc__
    assert "section" in nft.SurfEs.__doc__ and "N×D float32" in nft.SurfEs.describe.__doc__


def test_frames_are_passed_without_a_copy():
    """The Session reads the caller's array in place: render_to_image() draws the last frame from
    that memory, so a change to the array after process() shows, and the module keeps the array
    alive until the next process() even when the caller drops it."""
    session = nft.Session({"render": {"overlay": False}})
    for shape in ((480, 640), (480, 640, 3)):
        frame = np.full(shape, 10, np.uint8)
        r = session.process(frame)
        frame[:] = 250
        assert session.render_to_image(r).mean() == pytest.approx(250, abs=0.5)
        session2 = nft.Session({"render": {"overlay": False}})
        r2 = session2.process(np.full(shape, 77, np.uint8))  # the only reference is the module's
        for _ in range(3):
            np.full((480, 640, 3), 1, np.uint8)  # reuse freed memory, were it freed
        assert session2.render_to_image(r2).mean() == pytest.approx(77, abs=0.5)
