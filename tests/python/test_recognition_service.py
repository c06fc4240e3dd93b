"""The catalogue recognition service end to end (service/, issue 48 items 1-2 and 5): a catalogue of
ten of OpenCV's sample images built in two shards by two shard tasks, served by the one command
`nft-recognition serve` on a Dask cluster of two worker processes (standing for two nodes), and
asked over HTTP: frames (JPEG) and keypoints + descriptors, targets of both shards found with the
homography of the known warp; the model downloaded and tracked by a Session as an app would;
targets added to and removed from the live catalogue; tokens, size limits and malformed
(fuzzed) payloads refused while the service keeps serving; CORS for a browser app of one origin
(--cors-origin), and none for another or without the option."""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time

import cv2
import numpy as np
import pytest

from conftest import SOURCE_DIR

sys.path.insert(0, str(SOURCE_DIR / "service"))

# The service's packages are installed by scripts/install-deps.sh (group service), as the README's
# test command runs it: a missing one is a failure, never a skip.
import distributed  # noqa: E402,F401
import faiss  # noqa: E402,F401
import fastapi  # noqa: E402,F401
import httpx  # noqa: E402
import uvicorn  # noqa: E402,F401

import nft  # noqa: E402
from nft_recognition.client import RecognitionClient, RecognitionError  # noqa: E402
from nft_recognition.features import describe  # noqa: E402
from nft_recognition.payload import pack  # noqa: E402

SAMPLES = "/usr/share/doc/opencv-doc/examples/data"
CATALOGUE = ["graf1.png", "box.png", "building.jpg", "baboon.jpg", "fruits.jpg", "butterfly.jpg", "home.jpg",
             "HappyFish.jpg", "messi5.jpg", "aero1.jpg"]
LAUNCHER = str(SOURCE_DIR / "service" / "nft-recognition")
TOKEN = "test-token-0123456789abcdef"
APP_ORIGIN = "http://app.example:8000"  # the origin of a web page the service lets call it (--cors-origin)
SCALE = float(os.environ.get("NFT_TEST_TIMEOUT_SCALE", "1"))
QUAD = np.float32([[150, 90], [470, 70], [500, 400], [120, 380]])  # where a target is warped to in a view


def sample(name):
    path = os.path.join(SAMPLES, name)
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: install Debian's opencv-doc (scripts/install-deps.sh)")
    return path


def view_of(name, size=(640, 480)):
    """The sample image `name` warped onto QUAD over leuvenA.jpg (a scene of none of them), grey."""
    target = cv2.imread(sample(name), cv2.IMREAD_GRAYSCALE)
    h, w = target.shape
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), QUAD)
    bg = cv2.resize(cv2.imread(sample("leuvenA.jpg"), cv2.IMREAD_GRAYSCALE), size)
    fg = cv2.warpPerspective(target, H, size)
    mask = cv2.warpPerspective(np.full(target.shape, 255, np.uint8), H, size, flags=cv2.INTER_NEAREST)
    return np.where(mask > 0, fg, bg)


def jpeg(image):
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


def features_body(image):
    keypoints, descriptors = describe(image)
    return json.dumps({"keypoints": pack(keypoints), "descriptors": pack(descriptors)}).encode()


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # the nft module of this build
    return e


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalogue")
    with open(folder / "targets.txt", "w") as f:
        f.write("# name image width_m\n")
        for name in CATALOGUE:
            f.write(f"{os.path.splitext(name)[0]} {sample(name)} 0.2\n")
    out = folder / "cat"
    run = subprocess.run([sys.executable, LAUNCHER, "build", str(folder / "targets.txt"), "--out", str(out),
                          "--shards", "2", "--jobs", "2"], env=env(), capture_output=True, text=True,
                         timeout=300 * SCALE)
    assert run.returncode == 0, run.stderr
    assert "10 targets trained, 0 skipped, 2/2 shards, complete" in run.stdout
    return out


@pytest.fixture(scope="module")
def service(catalogue, tmp_path_factory):
    """`nft-recognition serve` with two local Dask worker processes; stopped by its process id."""
    token_file = tmp_path_factory.mktemp("token") / "token"
    token_file.write_text(TOKEN + "\n")
    port = free_port()
    log = open(tmp_path_factory.mktemp("log") / "serve.log", "w+")
    proc = subprocess.Popen([sys.executable, LAUNCHER, "serve", str(catalogue), "--port", str(port), "--workers", "2",
                             "--token-file", str(token_file), "--max-upload-mb", "1", "--cors-origin", APP_ORIGIN],
                            env=env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            RecognitionClient(url).wait_ready(120 * SCALE, proc)
        except RecognitionError as e:
            log.seek(0)
            pytest.fail(f"the service did not start: {e}\n{log.read()[-3000:]}")
        yield httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60 * SCALE), proc
    finally:
        proc.send_signal(signal.SIGTERM)  # the server stops its Dask workers itself
        try:
            proc.wait(timeout=30 * SCALE)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.seek(0)
        output = log.read()
        log.close()
        # Stopped cleanly, workers and all: nothing of the service's process group is left.
        assert proc.returncode == 0 and "Traceback" not in output, output[-3000:]
        deadline = time.monotonic() + 10 * SCALE  # multiprocessing's resource tracker exits last
        while True:
            left = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True, text=True).stdout
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert not left, f"processes of the service left running:\n{left}"


def corner_errors(answer):
    return np.linalg.norm(np.array(answer["quad"]) - QUAD, axis=1)


def test_the_shards_are_served_by_two_worker_processes(service):
    client, proc = service
    shards = client.get("/shards").json()
    assert len(shards) == 2 and [s["targets"] for s in shards] == [5, 5]
    where = {s["where"] for s in shards}
    assert len(where) == 2, f"both shards in one worker: {shards}"
    assert all(not w.endswith(f":{proc.pid}") for w in where), "a shard is in the front's process, not a worker's"
    # Each worker runs with glibc's allocator set for the service (cli.WORKER_MALLOC), not with
    # Dask's MALLOC_TRIM_THRESHOLD_=65536, which halves the speed of a verification.
    from nft_recognition.cli import WORKER_MALLOC

    for w in where:
        environ = dict(v.split("=", 1) for v in open(f"/proc/{w.rsplit(':', 1)[1]}/environ").read().split("\0") if "=" in v)
        assert {k: environ.get(k) for k in WORKER_MALLOC} == {k: str(v) for k, v in WORKER_MALLOC.items()}, w
        assert environ.get("OMP_NUM_THREADS") == "1", w  # Dask's own variables are kept


@pytest.mark.parametrize("name, target_id, shard", [("home.jpg", 7, 0), ("graf1.png", 1, 0), ("box.png", 2, 1),
                                                     ("fruits.jpg", 5, 0), ("butterfly.jpg", 6, 1)])
def test_a_frame_is_recognised_on_the_shard_that_holds_its_target(service, name, target_id, shard):
    client, _ = service
    r = client.post("/recognize", content=jpeg(view_of(name)), headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["found"] and a["target"]["id"] == target_id and a["target"]["name"] == os.path.splitext(name)[0], a
    assert a["shard"]["shard"] == shard
    assert a["shortlist"][0][0] == target_id
    errors = corner_errors(a)
    assert errors.max() < 5.0, f"{name}: corners {errors} px off the warp"
    assert a["inliers"] >= 30 and 0 < a["score"] <= 1
    assert set(a["time_ms"]) == {"describe", "shortlist", "verify", "total"}


def test_keypoints_and_descriptors_are_recognised_as_the_frame_is(service):
    client, _ = service
    r = client.post("/recognize", content=features_body(view_of("building.jpg")),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["found"] and a["target"]["id"] == 3 and a["shard"]["shard"] == 0
    assert corner_errors(a).max() < 5.0
    assert "describe" not in a["time_ms"]


def test_a_scene_that_shows_no_target_finds_none(service):
    client, _ = service
    scene = cv2.resize(cv2.imread(sample("leuvenA.jpg"), cv2.IMREAD_GRAYSCALE), (640, 480))
    a = client.post("/recognize", content=jpeg(scene), headers={"Content-Type": "image/jpeg"}).json()
    assert a["found"] is False and a["target"] is None and a["quad"] is None


def test_the_downloaded_model_is_what_a_session_tracks(service, tmp_path):
    client, _ = service
    r = client.get("/targets/7")
    assert r.status_code == 200 and r.headers["x-target-name"] == "home"
    path = tmp_path / "7.nftm"
    path.write_bytes(r.content)
    model = nft.load_target(str(path))
    assert len(model.descriptors) == client.get("/targets/7/info").json()["keypoints"]
    with nft.Session({"tracking": {"async_detection": "off"}}) as session:  # found on this frame
        session.add_target(str(path), name="home")
        view = cv2.cvtColor(view_of("home.jpg"), cv2.COLOR_GRAY2BGR)
        found = [t for t in session.process(view).targets if t.found]
        assert found and found[0].name == "home"
        assert np.linalg.norm(np.array(found[0].corners) - QUAD, axis=1).max() < 5.0
    (tmp_path / "junk.nftm").write_bytes(b"junk" * 10)
    with pytest.raises(nft.InputError, match="junk.nftm"):
        nft.load_target(str(tmp_path / "junk.nftm"))
    assert client.get("/targets/99").status_code == 404
    assert client.get("/targets/x").status_code == 404


def test_a_target_added_live_is_found_and_a_removed_one_is_not(service, catalogue):
    client, _ = service
    image = cv2.imread(sample("pic1.png"), cv2.IMREAD_GRAYSCALE)
    before = client.post("/recognize", content=jpeg(view_of("pic1.png")), headers={"Content-Type": "image/jpeg"}).json()
    assert not before["found"]
    r = client.post("/targets", params={"name": "pic1", "width_m": 0.1}, content=cv2.imencode(".png", image)[1].tobytes(),
                    headers={"Content-Type": "image/png"})
    assert r.status_code == 201, r.text
    added = r.json()
    assert added["id"] == 11 and added["model_url"] == "/targets/11"
    assert client.post("/targets", params={"name": "pic1"}, content=cv2.imencode(".png", image)[1].tobytes()).status_code == 400
    plain = client.post("/targets", params={"name": "grey"}, content=cv2.imencode(".png", np.full((240, 320), 128, np.uint8))[1].tobytes())
    assert plain.status_code == 400 and "keypoints" in plain.json()["error"], plain.text
    assert client.post("/targets", params={"name": "junk"}, content=b"junk").status_code == 400
    a = client.post("/recognize", content=jpeg(view_of("pic1.png")), headers={"Content-Type": "image/jpeg"}).json()
    assert a["found"] and a["target"]["id"] == 11, a
    assert corner_errors(a).max() < 5.0
    # Written to its shard's files: a restarted service has it.
    reports = [json.load(open(catalogue / f"shard-00{s}" / "targets.json")) for s in (0, 1)]
    assert sum(t["name"] == "pic1" for r in reports for t in r["targets"]) == 1
    assert client.delete("/targets/11").json() == {"removed": 11}
    a = client.post("/recognize", content=jpeg(view_of("pic1.png")), headers={"Content-Type": "image/jpeg"}).json()
    assert not a["found"]
    assert client.delete("/targets/11").status_code == 404
    assert client.get("/health").json()["targets"] == 10
    # Ids are never reused: the next addition is 12, not the removed 11 (an app may keep 11's
    # model), and the shard's targets.json remembers 11 for a restarted service.
    again = client.post("/targets", params={"name": "pic1 again"}, content=cv2.imencode(".png", image)[1].tobytes(),
                        headers={"Content-Type": "image/png"})
    assert again.status_code == 201 and again.json()["id"] == 12, again.text
    reports = [json.load(open(catalogue / f"shard-00{s}" / "targets.json")) for s in (0, 1)]
    assert sorted(i for r in reports for i in r.get("removed", [])) == [11]
    assert client.delete("/targets/12").json() == {"removed": 12}


def test_a_token_is_required(service):
    client, _ = service
    url = str(client.base_url)
    assert httpx.get(url + "/health").status_code == 200
    assert httpx.get(url + "/shards").status_code == 401
    r = httpx.post(url + "/recognize", content=jpeg(view_of("home.jpg")), headers={"Content-Type": "image/jpeg",
                                                                                   "Authorization": "Bearer wrong"})
    assert r.status_code == 401 and "token" in r.json()["error"]
    assert httpx.get(url + "/targets/7").status_code == 401


def test_bad_input_is_refused_with_a_clear_error_and_the_service_keeps_serving(service):
    client, _ = service
    post = lambda body, kind: client.post("/recognize", content=body, headers={"Content-Type": kind})  # noqa: E731
    big = post(b"\xff" * (1 << 20 | 1), "image/jpeg")
    assert big.status_code == 413 and "1048576" in big.json()["error"]
    assert post(b"not an image", "image/jpeg").status_code == 400
    assert post(jpeg(np.zeros((16, 16), np.uint8)), "image/jpeg").json()["error"].startswith("the image is 16×16")
    assert post(b"{}", "text/plain").status_code == 415
    valid = json.loads(features_body(view_of("home.jpg")))
    k, d = valid["keypoints"], valid["descriptors"]
    cases = {
        "not json": b"{",
        "a list": b"[1, 2]",
        "no descriptors": json.dumps({"keypoints": k}).encode(),
        "descriptors of 32": json.dumps({"keypoints": {"shape": [1, 5], "data": pack(np.zeros((1, 5)))["data"]},
                                         "descriptors": pack(np.zeros((1, 32)))}).encode(),
        "bad base64": json.dumps({"keypoints": k, "descriptors": dict(d, data="%%%")}).encode(),
        "short data": json.dumps({"keypoints": k, "descriptors": dict(d, data=d["data"][:-8])}).encode(),
        "rows differ": json.dumps({"keypoints": pack(np.zeros((3, 5))), "descriptors": pack(np.zeros((4, 64)))}).encode(),
        "NaN": json.dumps({"keypoints": pack(np.full((2, 5), np.nan)), "descriptors": pack(np.zeros((2, 64)))}).encode(),
        "too many": json.dumps({"keypoints": {"shape": [20000, 2], "data": ""}, "descriptors": d}).encode(),
        "shape of strings": json.dumps({"keypoints": {"shape": ["a", 5], "data": ""}, "descriptors": d}).encode(),
        "deep": b"[" * 100000 + b"]" * 100000,
    }
    for what, body in cases.items():
        r = post(body, "application/json")
        assert r.status_code == 400, f"{what}: {r.status_code} {r.text[:200]}"
        assert r.json()["error"], what
    # Fuzzed: random bytes of a valid payload changed; each answer a 200 or a 400, never a failure.
    rng = random.Random(48)
    body = bytearray(json.dumps(valid).encode())
    for _ in range(40):
        mutated = bytearray(body)
        for _ in range(rng.randint(1, 8)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        r = post(bytes(mutated), "application/json")
        assert r.status_code in (200, 400), f"{r.status_code}: {r.text[:200]}"
    a = post(bytes(body), "application/json").json()
    assert a["found"] and a["target"]["id"] == 7


def test_a_browser_app_of_the_allowed_origin_may_call_the_service(service):
    """--cors-origin: a page of APP_ORIGIN calling with fetch() is let through — its preflight is
    answered without a token (before the routes' token check), and the answers carry
    Access-Control-Allow-Origin; a page of another origin gets no such header."""
    client, _ = service
    url = str(client.base_url)
    preflight = {"Origin": APP_ORIGIN, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"}
    r = httpx.options(url + "/recognize", headers=preflight)  # no Authorization: a browser sends none
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == APP_ORIGIN
    assert "POST" in [m.strip() for m in r.headers["access-control-allow-methods"].split(",")]
    allowed_headers = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed_headers
    assert "access-control-allow-credentials" not in r.headers
    evil = httpx.options(url + "/recognize", headers=dict(preflight, Origin="http://evil.example"))
    assert evil.status_code == 400 and "access-control-allow-origin" not in evil.headers, evil.headers
    # The request itself: answered as before, with the header the browser needs to hand it to the page.
    r = client.post("/recognize", content=jpeg(view_of("home.jpg")),
                    headers={"Content-Type": "image/jpeg", "Origin": APP_ORIGIN})
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == APP_ORIGIN
    a = r.json()
    assert a["found"] and a["target"]["id"] == 7, a
    model = client.get("/targets/7", headers={"Origin": APP_ORIGIN})
    assert model.status_code == 200 and model.headers["access-control-allow-origin"] == APP_ORIGIN
    assert "x-target-name" in model.headers["access-control-expose-headers"].lower()
    # The token is still required of the request itself, and the refusal is readable by the page.
    refused = httpx.post(url + "/recognize", content=b"x", headers={"Content-Type": "image/jpeg", "Origin": APP_ORIGIN})
    assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == APP_ORIGIN
    other = client.post("/recognize", content=jpeg(view_of("home.jpg")),
                        headers={"Content-Type": "image/jpeg", "Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in other.headers


def test_without_cors_origins_no_cors_header_is_sent():
    """create_app without cors_origins (serve without --cors-origin) sends no CORS header, and a
    preflight is no route (405); the same app with cors_origins ["*"] answers both. A stand-in
    recognizer: only /health is asked."""
    from fastapi.testclient import TestClient

    from nft_recognition.http_api import create_app

    class StandIn:
        dim = 64

        def target_count(self):
            return 3

    preflight = {"Origin": APP_ORIGIN, "Access-Control-Request-Method": "GET"}
    with TestClient(create_app(StandIn(), None)) as plain:
        health = plain.get("/health", headers={"Origin": APP_ORIGIN})
        assert health.json() == {"status": "ok", "targets": 3}
        assert not [h for h in health.headers if h.lower().startswith("access-control-")], health.headers
        options = plain.options("/health", headers=preflight)
        assert options.status_code == 405 and "access-control-allow-origin" not in options.headers
    with TestClient(create_app(StandIn(), None, cors_origins=["*"])) as anyone:
        assert anyone.get("/health", headers={"Origin": APP_ORIGIN}).headers["access-control-allow-origin"] == "*"
        assert anyone.options("/health", headers=preflight).status_code == 200


def test_an_unfinished_catalogue_is_not_served_and_says_which_shards(tmp_path):
    with open(tmp_path / "targets.txt", "w") as f:
        f.write(f"home {sample('home.jpg')}\nbox {sample('box.png')}\n")
    out = tmp_path / "cat"
    from nft_recognition.catalogue import Catalogue, read_list
    Catalogue.create(str(out), read_list(str(tmp_path / "targets.txt")), shards=2)
    run = lambda *a: subprocess.run([sys.executable, LAUNCHER, *a], env=env(), capture_output=True, text=True,  # noqa: E731
                                    timeout=120 * SCALE)
    assert run("train-shard", str(out), "1").returncode == 0
    status = run("status", str(out))
    assert status.returncode == 3 and "shards [0] not trained yet" in status.stdout
    serve = run("serve", str(out), "--port", str(free_port()), "--workers", "1", "--no-auth")
    assert serve.returncode == 2 and "shards [0] have not finished training" in serve.stderr
    again = run("build", str(tmp_path / "targets.txt"), "--out", str(out))
    assert again.returncode == 2 and "a catalogue is already there" in again.stderr
    public = run("serve", str(out), "--host", "0.0.0.0", "--no-auth")
    assert public.returncode != 0 and "--no-auth is for localhost only" in public.stderr
    for origin in ("not-an-origin", "http://app.example:8000/", "ftp://app.example"):  # refused before Dask starts
        cors = run("serve", str(out), "--no-auth", "--cors-origin", "http://app.example:8000", "--cors-origin", origin)
        assert cors.returncode == 2 and "--cors-origin" in cors.stderr and repr(origin) in cors.stderr, cors.stderr
        assert "have not finished training" not in cors.stderr
    resumed = run("build", "--resume", "--out", str(out))
    assert resumed.returncode == 0 and "2 targets trained, 0 skipped, 2/2 shards, complete" in resumed.stdout


def test_a_session_asks_the_service_only_when_it_finds_nothing_and_tracks_the_answer(service, tmp_path):
    """The Python client (nft_recognition.client): a Session with none of the catalogue's targets
    is shown a view of home.jpg; the service is asked off the camera thread, the model comes back
    and is tracked by the Session within 5 px; once found, nothing more is asked; requests are at
    most one per min_interval_s; a refused request is reported, not raised."""
    from nft_recognition.client import SessionRecognition

    client, _ = service
    rc = RecognitionClient(str(client.base_url), token=TOKEN, timeout_s=60 * SCALE)
    view = cv2.cvtColor(view_of("home.jpg"), cv2.COLOR_GRAY2BGR)
    with nft.Session({"tracking": {"async_detection": "off"}}) as session:
        sr = SessionRecognition(session, rc, str(tmp_path / "models"), min_interval_s=0.0)
        found_at = None
        for i in range(200):
            result = sr.process(view)
            if any(t.found for t in result.targets):
                found_at = i
                break
            time.sleep(0.02)
        assert found_at is not None, f"never found; errors {sr.errors}"
        t = [t for t in result.targets if t.found][0]
        assert t.name == "home" and 7 in sr.added
        assert np.linalg.norm(np.array(t.corners) - QUAD, axis=1).max() < 5.0
        asked = sr.requests
        for _ in range(5):
            sr.process(view)
        assert sr.requests == asked, "asked the service while a target was found"
        sr.close()
    # The rate limit: a scene of none for ~1 s with min_interval_s 0.5 asks at most 3 times.
    scene = cv2.resize(cv2.imread(sample("leuvenA.jpg")), (640, 480))
    with nft.Session({"tracking": {"async_detection": "off"}}) as session:
        sr = SessionRecognition(session, rc, str(tmp_path / "models"), min_interval_s=0.5)
        start = time.monotonic()
        while time.monotonic() - start < 1.0:
            sr.process(scene)
            time.sleep(0.01)
        sr.close()
        assert 1 <= sr.requests <= 3 and not sr.added
    # A wrong token: the error is kept for the app, the Session goes on.
    bad = RecognitionClient(str(client.base_url), token="wrong-token-0123456789")
    with nft.Session({"tracking": {"async_detection": "off"}}) as session:
        sr = SessionRecognition(session, bad, str(tmp_path / "models"), min_interval_s=0.0)
        for _ in range(50):
            sr.process(view)
            if sr.errors:
                break
            time.sleep(0.05)
        sr.close()
        assert sr.errors and isinstance(sr.errors[0], RecognitionError) and "401" in str(sr.errors[0])
    with pytest.raises(RecognitionError, match="404"):
        rc.download_model(99, str(tmp_path / "models"))


def test_the_cpp_client_asks_only_while_nothing_is_found_and_tracks_the_answer(service, tmp_path):
    """The C++ client (session/recognition/, nft::SessionRecognition over libcurl), run by
    tests/session/recognition_service_driver.cpp: a Session with no target is shown a view of
    fruits.jpg; the service's model is downloaded off the camera thread and tracked within 5 px;
    once found, nothing more is asked; a wrong token is kept as an error naming the 401."""
    driver = os.environ.get("NFT_RECOGNITION_DRIVER", "")
    if driver == "OFF":
        pytest.skip("built without the C++ client (-DNFT_BUILD_RECOGNITION_CLIENT=OFF)")
    assert driver and os.path.exists(driver), f"NFT_RECOGNITION_DRIVER={driver!r}: expected the driver program"
    client, _ = service
    frame = tmp_path / "fruits_view.png"
    cv2.imwrite(str(frame), view_of("fruits.jpg"))

    def drive(token, max_frames):
        run = subprocess.run([driver, str(client.base_url), token, str(frame), str(tmp_path / "models"), str(max_frames)],
                             capture_output=True, text=True, timeout=120 * SCALE)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)

    out = drive(TOKEN, 300)
    assert out["found_at"] is not None, f"never found; errors {out['errors']}"
    assert out["name"] == "fruits" and list(out["added"]) == ["5"], out
    assert np.linalg.norm(np.array(out["corners"]) - QUAD, axis=1).max() < 5.0, out["corners"]
    assert out["requests_after"] == out["requests_when_found"] >= 1, "asked the service while a target was found"
    assert not out["errors"], out["errors"]
    assert (tmp_path / "models" / "5.nftm").exists()
    bad = drive("wrong-token-0123456789", 300)  # ends at the first error
    assert bad["found_at"] is None and not bad["added"] and bad["requests_after"] >= 1
    assert bad["errors"] and "401" in bad["errors"][0] and "POST /recognize" in bad["errors"][0], bad["errors"]
