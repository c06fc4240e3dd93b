"""The Python client of the recognition service (issue 48, item 3 in Python): an app's Session asks
the service which catalogue target is in view only when it finds nothing among its own targets,
at most once per `min_interval_s`, off the camera thread, and tracks what comes back on the
device as any other target.

    client = RecognitionClient("http://recognition.example:8080", token=TOKEN)
    with nft.Session() as session:
        recognizer = SessionRecognition(session, client, models_dir="/tmp/models")
        for frame in camera:
            result = recognizer.process(frame)   # session.process(), plus the service when needed

Needs httpx (Debian's python3-httpx) and the nft module; nothing of FAISS or Dask.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import time
from typing import Optional

import numpy as np

from .features import describe
from .payload import pack


class RecognitionError(RuntimeError):
    """The service refused a request or could not be reached; the message has its answer."""


class RecognitionClient:
    """RecognitionClient(url, token=None, timeout_s=10): HTTP calls to `nft-recognition serve`.

    url:     the service's base URL, e.g. "http://127.0.0.1:8080".
    token:   its bearer token (None: a service started with --no-auth).
    Raises RecognitionError from every call for an answer other than 2xx or a connection that
    fails, naming the status and the service's error message."""

    def __init__(self, url: str, token: Optional[str] = None, timeout_s: float = 10.0) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout_s)
        self._errors = (httpx.HTTPError,)

    def _call(self, method: str, path: str, **kwargs):
        try:
            r = self._http.request(method, path, **kwargs)
        except self._errors as e:
            raise RecognitionError(f"{method} {path}: {e}") from e
        if r.status_code >= 300:
            try:
                message = r.json().get("error", r.text)
            except ValueError:
                message = r.text
            raise RecognitionError(f"{method} {path}: {r.status_code} {message}")
        return r

    def recognize(self, keypoints: np.ndarray, descriptors: np.ndarray) -> dict:
        """POST /recognize with keypoints (M×2..5 float32, frame pixels) and descriptors (M×64
        float32 unit rows) → the service's answer (found, target, homography, quad, score, ...)."""
        body = json.dumps({"keypoints": pack(keypoints), "descriptors": pack(descriptors)})
        return self._call("POST", "/recognize", content=body, headers={"Content-Type": "application/json"}).json()

    def recognize_image(self, encoded: bytes, content_type: str = "image/jpeg") -> dict:
        """POST /recognize with an encoded frame (JPEG or PNG bytes) → the service's answer."""
        return self._call("POST", "/recognize", content=encoded, headers={"Content-Type": content_type}).json()

    def download_model(self, target_id: int, folder: str) -> str:
        """GET /targets/ID → the model written to folder/ID.nftm (renamed into place); its path."""
        data = self._call("GET", f"/targets/{int(target_id)}").content
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{int(target_id)}.nftm")
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path

    def wait_ready(self, timeout_s: float, process=None) -> None:
        """Waits until GET /health answers 200, polling; `process` (a subprocess.Popen of
        `nft-recognition serve`, or None) stops the wait when it exits.

        Raises RecognitionError when the time is up or the process has exited."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if self._http.get("/health", timeout=2).status_code == 200:
                    return
            except self._errors:
                pass
            if process is not None and process.poll() is not None:
                raise RecognitionError(f"the service exited ({process.returncode}) before answering /health")
            if time.monotonic() > deadline:
                raise RecognitionError(f"the service did not answer /health within {timeout_s:.0f} s")
            time.sleep(0.3)

    def close(self) -> None:
        self._http.close()


class SessionRecognition:
    """A Session with the service behind it: process(frame) is session.process(frame); when no
    target of the Session is found, the frame is described and sent to the service on a worker
    thread (one request at a time, at most one per `min_interval_s`), and a target the service
    recognises is downloaded and added to the Session on the camera thread at a later process()
    (the Session belongs to the thread that made it), then tracked as its own targets are.

    session:        an nft.Session, used from the thread that calls process().
    client:         a RecognitionClient.
    models_dir:     where downloaded models are kept (one file per target; a target already
                    added is never asked for again).
    min_interval_s: the rate limit, seconds between two requests.
    errors:         the RecognitionErrors of failed requests, newest last (the app decides; the
                    next request is still made after the interval)."""

    def __init__(self, session, client: RecognitionClient, models_dir: str, min_interval_s: float = 1.0) -> None:
        if not min_interval_s >= 0:
            raise ValueError(f"min_interval_s: expected seconds >= 0, got {min_interval_s}")
        self.session, self.client, self.models_dir = session, client, models_dir
        self.min_interval_s = min_interval_s
        self.requests = 0
        self.errors = []
        self.added = {}  # catalogue target id → the Session's target id
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="nft-recognition")
        self._pending: Optional[concurrent.futures.Future] = None
        self._last = -float("inf")

    def _ask(self, frame: np.ndarray):
        keypoints, descriptors = describe(frame)
        answer = self.client.recognize(keypoints, descriptors)
        if not answer.get("found") or answer["target"]["id"] in self.added:
            return None
        target = answer["target"]
        return target, self.client.download_model(target["id"], self.models_dir)

    def process(self, frame: np.ndarray, timestamp_ns: int = 0):
        """session.process(frame, timestamp_ns), and the service when nothing local is found.
        Returns the Session's FrameResult."""
        if self._pending is not None and self._pending.done():
            try:
                got = self._pending.result()
            except RecognitionError as e:
                self.errors.append(e)
                got = None
            self._pending = None
            if got is not None:
                target, path = got
                self.added[target["id"]] = self.session.add_target(path, name=target["name"])
        result = self.session.process(frame, timestamp_ns)
        nothing_found = not any(t.found for t in result.targets)
        now = time.monotonic()
        if nothing_found and self._pending is None and now - self._last >= self.min_interval_s:
            self._last = now
            self.requests += 1
            self._pending = self._pool.submit(self._ask, np.array(frame, copy=True))
        return result

    def close(self) -> None:
        """Waits for a request in flight and stops the worker thread."""
        self._pool.shutdown(wait=True)
