"""The detection lane's pieces from Python: scale-aware FAST, SURF-ES (GPU) against the CPU SURF
lane, GPU matching with the ratio test against OpenCV's brute force, and the thread rule
(issue 24)."""

import threading

import cv2
import numpy as np
import pytest

import nft
from conftest import require_data


@pytest.fixture(scope="module")
def graf():
    folder = require_data("oxford/graf")
    img1 = cv2.imread(str(folder / "img1.png"), cv2.IMREAD_GRAYSCALE)
    img2 = cv2.imread(str(folder / "img2.png"), cv2.IMREAD_GRAYSCALE)
    H = np.loadtxt(folder / "H1to2p")
    return img1, img2, H


def test_fast_detector_keypoints(graf):
    img1, _, _ = graf
    k = nft.FastDetector(max_keypoints=500).detect(img1)
    assert k.shape == (500, 5) and k.dtype == np.float32
    assert np.all(np.diff(k[:, 4]) <= 0)  # strongest first
    assert np.all(k[:, 3] == -1)  # no angle yet
    scales = np.unique(k[:, 2])
    expected = 3.0 * np.sqrt(2) ** np.arange(4)  # base_scale · scale_factor^level
    assert np.all(np.min(np.abs(scales[:, None] - expected[None, :]), axis=1) < 1e-4), scales
    assert k[:, 0].min() >= 0 and k[:, 0].max() < img1.shape[1] and k[:, 1].max() < img1.shape[0]
    # BGR gives the same keypoints as grey.
    np.testing.assert_array_equal(nft.FastDetector(max_keypoints=500).detect(cv2.cvtColor(img1, cv2.COLOR_GRAY2BGR)), k)
    with pytest.raises(ValueError, match="max_keypoints|maxKeypoints"):
        nft.FastDetector(max_keypoints=0)


def test_surf_es_matches_the_cpu_lane(graf):
    img1, _, _ = graf
    k = nft.FastDetector(max_keypoints=400).detect(img1)
    gpu, k_gpu = nft.SurfEs(box_taps=2).describe(img1, k, return_keypoints=True)
    cpu, k_cpu = nft.CpuSurf().describe(img1, k, return_keypoints=True)
    assert gpu.shape == cpu.shape == (400, 64) and gpu.dtype == cpu.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(gpu, axis=1), 1.0, atol=1e-3)
    np.testing.assert_allclose(np.linalg.norm(cpu, axis=1), 1.0, atol=1e-5)
    # Same descriptor definition: nearly parallel rows, and the same orientations.
    cosine = np.sum(gpu * cpu, axis=1)
    assert np.median(cosine) > 0.99 and np.mean(cosine > 0.95) > 0.95
    dangle = np.abs((k_gpu[:, 3] - k_cpu[:, 3] + 180) % 360 - 180)
    assert np.all((k_gpu[:, 3] >= 0) & (k_gpu[:, 3] < 360)) and np.median(dangle) < 1.0
    np.testing.assert_array_equal(k_gpu[:, :3], k[:, :3])  # positions and scales unchanged
    # Upright and SURF-36 variants.
    up = nft.CpuSurf(type=36, orientation="upright").describe(img1, k[:, :3])
    assert up.shape == (400, 36)
    es36 = nft.SurfEs(type="surf36", orientation="upright", box_taps=2).describe(img1, k[:, :3])
    assert np.median(np.sum(es36 * up, axis=1)) > 0.99


def test_surf_es_grows_and_handles_empty_and_bgr(graf):
    img1, _, _ = graf
    es = nft.SurfEs(max_width=64, max_height=64, max_keypoints=4)
    k = nft.FastDetector(max_keypoints=50).detect(img1)
    d = es.describe(img1, k)  # larger than the initial capacity: rebuilt
    assert d.shape == (50, 64)
    np.testing.assert_allclose(es.describe(cv2.cvtColor(img1, cv2.COLOR_GRAY2BGR), k), d, atol=2e-3)
    assert es.describe(img1, np.zeros((0, 4), np.float32)).shape == (0, 64)
    assert es.storage in ("float", "rgba8") and es.precision_bits >= 8


def test_gpu_matcher_equals_brute_force_and_finds_the_homography(graf):
    img1, img2, H = graf
    detector = nft.FastDetector(max_keypoints=800)
    surf = nft.SurfEs()
    k1, k2 = detector.detect(img1), detector.detect(img2)
    d1, k1 = surf.describe(img1, k1, return_keypoints=True)
    d2 = surf.describe(img2, k2)
    matcher = nft.GpuMatcher()
    matcher.set_target(d1)
    assert matcher.target_count == 800
    target, dist, second = matcher.nearest(d2)
    assert target.shape == dist.shape == second.shape == (800,)
    assert target.dtype == np.int32 and dist.dtype == np.float32
    # OpenCV's brute force on the CPU: the same nearest neighbours and distances.
    knn = cv2.BFMatcher(cv2.NORM_L2).knnMatch(d2, d1, k=2)
    bf_target = np.array([m[0].trainIdx for m in knn])
    bf_dist = np.array([m[0].distance for m in knn])
    bf_second = np.array([m[1].distance for m in knn])
    unambiguous = bf_second - bf_dist > 1e-3
    assert np.all(target[unambiguous] == bf_target[unambiguous])
    np.testing.assert_allclose(dist, bf_dist, atol=1e-3)
    np.testing.assert_allclose(second, bf_second, atol=1e-3)
    # The ratio test keeps d1 < 0.8 · d2, in query order; most survivors agree with H1to2.
    m = matcher.match(d2, ratio=0.8)
    keep = bf_dist < 0.8 * bf_second
    assert abs(len(m) - int(keep.sum())) <= 3
    assert np.all(np.diff(m.query) > 0) and np.all(m.distance < 0.8 * m.second_distance + 1e-6)
    p1 = cv2.perspectiveTransform(k1[m.target, :2].reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    correct = np.linalg.norm(p1 - k2[m.query, :2], axis=1) < 2.5
    assert len(m) > 50 and correct.mean() > 0.6, (len(m), correct.mean())
    # Cross-check keeps a subset.
    mc = matcher.match(d2, ratio=0.8, cross_check=True)
    assert 0 < len(mc) <= len(m) and set(mc.query) <= set(m.query)
    # Itself: every descriptor is its own nearest neighbour.
    self_match = matcher.match(d1, ratio=1.0)
    assert np.mean(self_match.query == self_match.target) > 0.99 and self_match.distance.max() < 0.01


def test_cpu_matcher_gives_the_gpu_matchers_matches(graf):
    # nft.CpuMatcher (the recognition service's matcher where the GPU is llvmpipe): the same
    # nearest neighbours as OpenCV's brute force, the same ratio-test matches as GpuMatcher.
    img1, img2, H = graf
    detector, surf = nft.FastDetector(max_keypoints=800), nft.CpuSurf()
    d1, k1 = surf.describe(img1, detector.detect(img1), return_keypoints=True)
    d2, k2 = surf.describe(img2, detector.detect(img2), return_keypoints=True)
    cpu, gpu = nft.CpuMatcher(), nft.GpuMatcher()
    cpu.set_target(d1)
    gpu.set_target(d1)
    assert cpu.target_count == len(d1)
    target, dist, second = cpu.nearest(d2)
    knn = cv2.BFMatcher(cv2.NORM_L2).knnMatch(d2, d1, k=2)
    bf_dist, bf_second = np.array([m[0].distance for m in knn]), np.array([m[1].distance for m in knn])
    unambiguous = bf_second - bf_dist > 1e-4
    assert np.all(target[unambiguous] == np.array([m[0].trainIdx for m in knn])[unambiguous])
    np.testing.assert_allclose(dist, bf_dist, atol=1e-4)
    np.testing.assert_allclose(second, bf_second, atol=1e-4)
    m, g = cpu.match(d2, ratio=0.8), gpu.match(d2, ratio=0.8)
    assert len(m) > 50 and abs(len(m) - len(g)) <= 3
    same = np.intersect1d(m.query, g.query)
    assert len(same) >= len(m) - 3
    assert np.all(m.target[np.isin(m.query, same)] == g.target[np.isin(g.query, same)])
    p1 = cv2.perspectiveTransform(k1[m.target, :2].reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    assert (np.linalg.norm(p1 - k2[m.query, :2], axis=1) < 2.5).mean() > 0.6
    mc = cpu.match(d2, ratio=0.8, cross_check=True)
    assert 0 < len(mc) <= len(m) and set(mc.query) <= set(m.query)
    with pytest.raises(ValueError, match="ratio"):
        cpu.match(d2, ratio=0.0)
    with pytest.raises(ValueError, match="length 36"):
        cpu.match(d2[:, :36])
    with pytest.raises(ValueError, match="descriptors"):
        cpu.set_target(np.zeros((4, 10), np.float32))


def test_bad_arguments_raise_naming_them(graf):
    img1, _, _ = graf
    es, cpu = nft.SurfEs(), nft.CpuSurf()
    good = np.array([[100, 100, 3.0]], np.float32)
    for describer in (es, cpu):
        with pytest.raises(ValueError, match=r"keypoints.*shape \(1, 2\)"):
            describer.describe(img1, np.zeros((1, 2)))
        with pytest.raises(ValueError, match=r"keypoints.*row 0.*scale"):
            describer.describe(img1, np.array([[100, 100, 0.0]]))
        with pytest.raises(ValueError, match=r"keypoints.*not finite"):
            describer.describe(img1, np.array([[np.nan, 100, 3.0]]))
        with pytest.raises(ValueError, match=r"image.*dtype float64"):
            describer.describe(img1.astype(np.float64), good)
        with pytest.raises(ValueError, match=r"image.*C-contiguous"):
            describer.describe(img1[:, ::2], good)
        with pytest.raises(ValueError, match=r"image.*shape"):
            describer.describe(np.zeros((64, 64, 4), np.uint8), good)  # no BGRA here
    with pytest.raises(ValueError, match="type"):
        nft.SurfEs(type="surf128")
    with pytest.raises(ValueError, match="orientation"):
        nft.CpuSurf(orientation="sideways")
    with pytest.raises(ValueError, match="box_taps"):
        nft.SurfEs(box_taps=3)
    matcher = nft.GpuMatcher()
    with pytest.raises(ValueError, match=r"descriptors.*N×64"):
        matcher.set_target(np.zeros((10, 32), np.float32))
    matcher.set_target(np.eye(64, dtype=np.float32))
    with pytest.raises(ValueError, match="36 bins"):
        matcher.match(np.zeros((3, 36), np.float32))
    with pytest.raises(ValueError, match="ratio"):
        matcher.match(np.eye(64, dtype=np.float32), ratio=1.5)
    with pytest.raises(FileNotFoundError, match="image_or_path"):
        nft.train_target("/no/such/target.png")


def test_gl_objects_stay_on_their_thread(graf):
    img1, _, _ = graf
    context = nft.GpuContext()
    assert context.renderer and context.platform
    es = nft.SurfEs(context)
    assert es.context is not None
    k = np.array([[200, 200, 3.0]], np.float32)
    reference = es.describe(img1, k)
    errors = []

    def other():
        try:
            es.describe(img1, k)
        except Exception as e:  # noqa: BLE001 - the test inspects it
            errors.append(e)
        # A thread's own objects work there.
        errors.append(nft.SurfEs().describe(img1, k))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert isinstance(errors[0], nft.GpuError) and "thread" in str(errors[0])
    np.testing.assert_allclose(errors[1], reference, atol=1e-5)
    # A Session between two calls takes the thread's current context; SurfEs takes it back, and
    # the Session's end (its GL objects deleted on its own context) leaves SurfEs's intact.
    matcher = nft.GpuMatcher(context)
    matcher.set_target(reference)
    session = nft.Session()
    session.process(img1)
    np.testing.assert_array_equal(es.describe(img1, k), reference)
    session.close()
    np.testing.assert_array_equal(es.describe(img1, k), reference)
    assert list(matcher.match(reference, ratio=1.0).target) == [0]
