"""The keypoints and descriptors a client sends to POST /recognize, checked before anything uses them.

A JSON object with two arrays, each either a list of rows or a packed array:

    {"keypoints":   {"shape": [M, 5], "data": "<base64 of M·5 little-endian float32>"},
     "descriptors": {"shape": [M, 64], "data": "<base64 of M·64 little-endian float32>"}}

keypoints M×2 to M×5 (x, y first, query pixels; as nft.FastDetector / SurfEs.describe give them,
and nft::Session's keypoints), descriptors M×64 (or M×36, the catalogue's length) unit rows,
row i for keypoints[i]. The packed form is what the clients send: a JSON list of 96,000 numbers
is four times the bytes and ten times the parsing.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Tuple

import numpy as np

MAX_ROWS = 10000


class PayloadError(ValueError):
    """A request body that cannot be used; the message names the field and what was expected."""


def _array(value, field: str, columns: Tuple[int, ...]) -> np.ndarray:
    if isinstance(value, dict):
        shape, data = value.get("shape"), value.get("data")
        if (not isinstance(shape, list) or len(shape) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                       and x >= 0 for x in shape)):
            raise PayloadError(f"{field}.shape: expected [rows, columns] of integers >= 0, got {shape!r}")
        if not isinstance(data, str):
            raise PayloadError(f"{field}.data: expected a base64 string of little-endian float32")
        if shape[0] > MAX_ROWS:
            raise PayloadError(f"{field}: {shape[0]} rows, at most {MAX_ROWS}")
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as e:
            raise PayloadError(f"{field}.data: not base64: {e}") from e
        if len(raw) != shape[0] * shape[1] * 4:
            raise PayloadError(f"{field}.data: {len(raw)} bytes, shape {shape} needs {shape[0] * shape[1] * 4}")
        a = np.frombuffer(raw, dtype="<f4").reshape(shape).astype(np.float32)
    elif isinstance(value, list):
        if len(value) > MAX_ROWS:
            raise PayloadError(f"{field}: {len(value)} rows, at most {MAX_ROWS}")
        try:
            a = np.array(value, dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise PayloadError(f"{field}: expected a list of rows of numbers: {e}") from e
        if a.size == 0:
            a = a.reshape(0, columns[0])
    else:
        raise PayloadError(f"{field}: expected {{\"shape\", \"data\"}} or a list of rows, got {type(value).__name__}")
    if a.ndim != 2 or a.shape[1] not in columns:
        raise PayloadError(f"{field}: expected rows of {' or '.join(map(str, columns))} numbers, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise PayloadError(f"{field}: NaN or infinite values")
    return np.ascontiguousarray(a)


def parse_features(body: bytes, dim: int) -> Tuple[np.ndarray, np.ndarray]:
    """The keypoints (M×2..5 float32) and descriptors (M×dim float32) of a JSON body.

    Raises PayloadError naming the field for a body that is not a JSON object, a missing field,
    a wrong shape, bad base64, a byte count that does not match the shape, non-finite values,
    more than MAX_ROWS rows, or different row counts."""
    try:
        value = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise PayloadError(f"body: not JSON: {e}") from e
    if not isinstance(value, dict):
        raise PayloadError("body: expected a JSON object with \"keypoints\" and \"descriptors\"")
    for field in ("keypoints", "descriptors"):
        if field not in value:
            raise PayloadError(f"{field}: missing (expected \"keypoints\" and \"descriptors\")")
    keypoints = _array(value["keypoints"], "keypoints", (2, 3, 4, 5))
    descriptors = _array(value["descriptors"], "descriptors", (dim,))
    if len(keypoints) != len(descriptors):
        raise PayloadError(f"keypoints has {len(keypoints)} rows but descriptors {len(descriptors)}")
    return keypoints, descriptors


def pack(a: np.ndarray) -> dict:
    """The packed form of a 2-D array: {"shape": [rows, columns], "data": base64 of float32 LE}."""
    a = np.ascontiguousarray(a, dtype="<f4")
    return {"shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode("ascii")}
