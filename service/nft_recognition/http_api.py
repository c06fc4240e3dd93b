"""The HTTP front of the recognition service (FastAPI; served by uvicorn).

    GET    /health          {"status": "ok", "targets": N} — no token needed
    GET    /shards          each shard: folder, where it is served (host:pid), targets, descriptors
    POST   /recognize       body image/jpeg or image/png (a camera frame), or application/json
                            keypoints + descriptors (payload.py) → JSON: found, target (id, name,
                            size, width_m, model URL), homography, quad, score, inliers, shortlist,
                            time_ms per stage
    GET    /targets/ID      the target's model (.nftm, application/octet-stream): what the app's
                            Session adds and tracks; X-Target-Name names it
    GET    /targets/ID/info its entry as JSON
    POST   /targets?name=N&width_m=W  body an image: trained and added to the live catalogue
    DELETE /targets/ID      removed from the live catalogue

Every route but /health needs `Authorization: Bearer TOKEN` unless the service was started with
--no-auth (localhost only). Bodies over the size limit are refused (413) before they are read in
full; a body that is not an image, or a malformed payload, gets 400 naming what is wrong; nothing
a query sends is written anywhere or logged.

Started with --cors-origin ORIGIN (cors_origins), the routes answer fetch() from a page of those
origins (a browser app on another origin: the project's JavaScript client): CORS preflights are
answered before any route, without a token; the requests themselves still need one.
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Optional, Sequence

from fastapi import FastAPI, HTTPException, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from .features import decode_gray
from .payload import parse_features

IMAGE_TYPES = ("image/jpeg", "image/png")


def create_app(recognizer, token: Optional[str], max_bytes: int = 8 << 20,
               cors_origins: Sequence[str] = ()) -> FastAPI:
    """The FastAPI application over a Recognizer.

    token:        the bearer token every route but /health requires; None = no authentication
                  (the CLI allows that on localhost only).
    max_bytes:    the largest request body accepted, bytes (default 8 MiB).
    cors_origins: the origins (scheme://host[:port], or "*") whose pages may call the routes with
                  fetch(): a browser app on another origin, such as the project's JavaScript
                  client. Starlette's CORSMiddleware answers their preflights (OPTIONS) before any
                  route, so without a token, and adds Access-Control-Allow-Origin to the answers
                  (errors too); GET, POST and DELETE with Authorization and Content-Type headers,
                  no cookies (allow_credentials False), X-Target-Name readable by the page.
                  Empty (the default): no CORS headers at all, and browsers refuse such calls."""
    app = FastAPI(title="nft recognition service", description=__doc__, version="1")
    if cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type"], allow_credentials=False,
                           expose_headers=["X-Target-Name"], max_age=600)
    dim = recognizer.dim

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, e: HTTPException):  # {"error": ...}, the same shape everywhere
        return JSONResponse({"error": e.detail}, status_code=e.status_code, headers=getattr(e, "headers", None))

    def authorise(request: Request) -> None:
        if token is None:
            return
        given = request.headers.get("authorization", "")
        if not (given.startswith("Bearer ") and secrets.compare_digest(given[7:].encode(), token.encode())):
            raise HTTPException(401, "a token is required: Authorization: Bearer TOKEN", {"WWW-Authenticate": "Bearer"})

    async def body_of(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
            raise HTTPException(413, f"the body is {declared} bytes: at most {max_bytes}")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise HTTPException(413, f"the body is over {max_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def content_type(request: Request) -> str:
        return request.headers.get("content-type", "").split(";")[0].strip().lower()

    @app.get("/health")
    async def health():
        return {"status": "ok", "targets": recognizer.target_count()}

    @app.get("/shards")
    async def shards(request: Request):
        authorise(request)
        return await run_in_threadpool(recognizer.info)

    @app.post("/recognize")
    async def recognize(request: Request):
        authorise(request)
        kind = content_type(request)
        if kind not in IMAGE_TYPES + ("application/json",):
            raise HTTPException(415, f"Content-Type '{kind}': expected image/jpeg, image/png or application/json "
                                     "(keypoints and descriptors)")
        body = await body_of(request)
        try:
            if kind == "application/json":
                keypoints, descriptors = parse_features(body, dim)
                r = await run_in_threadpool(recognizer.recognize, keypoints, descriptors)
            else:
                r = await run_in_threadpool(recognizer.recognize_image, body)
        except ValueError as e:  # PayloadError, or describe_image's "not an image"
            raise HTTPException(400, str(e)) from None
        answer = dataclasses.asdict(r)
        answer["found"] = r.target is not None
        if r.target is not None:
            answer["target"]["model_url"] = f"/targets/{r.target['id']}"
        return answer

    def unknown(text: str) -> HTTPException:
        return HTTPException(404, f"target '{text}' is not in the catalogue (ids are integers >= 1)")

    @app.get("/targets/{target_id}")
    async def model(target_id: str, request: Request):
        authorise(request)
        found = await run_in_threadpool(recognizer.model, int(target_id)) if target_id.isdigit() else None
        if found is None:
            raise unknown(target_id)
        entry, data = found
        i = entry["id"]
        name = entry["name"].encode("ascii", "replace").decode()
        return Response(data, media_type="application/octet-stream",
                        headers={"X-Target-Name": name, "Content-Disposition": f'attachment; filename="{i}.nftm"'})

    @app.get("/targets/{target_id}/info")
    async def target_info(target_id: str, request: Request):
        authorise(request)
        entry = await run_in_threadpool(recognizer.target, int(target_id)) if target_id.isdigit() else None
        if entry is None:
            raise unknown(target_id)
        return entry

    @app.post("/targets")
    async def add(request: Request, name: str, width_m: float = 0.0):
        authorise(request)
        if not name.strip() or len(name) > 200:
            raise HTTPException(400, "name: expected 1 to 200 characters")
        if not width_m >= 0:
            raise HTTPException(400, f"width_m: expected a width in metres >= 0, got {width_m}")
        body = await body_of(request)
        try:
            entry = await run_in_threadpool(recognizer.add_target, name, decode_gray(body), width_m)
        except ValueError as e:  # not an image, a name taken, an image too plain to train
            raise HTTPException(400, str(e)) from None
        return JSONResponse(dict(entry, model_url=f"/targets/{entry['id']}"), status_code=201)

    @app.delete("/targets/{target_id}")
    async def remove(target_id: str, request: Request):
        authorise(request)
        if not (target_id.isdigit() and await run_in_threadpool(recognizer.remove_target, int(target_id))):
            raise unknown(target_id)
        return {"removed": int(target_id)}

    return app
