"""What a query is made of: an image decoded to grey, and its keypoints and SURF descriptors as the
service compares them (the detection lane's scale-aware FAST and the CPU lane of SURF, the
descriptor SURF-ES computes on a device). One place for the front, the workers, the client and the
benchmark, so that every query is described alike."""

from __future__ import annotations

from typing import Tuple

import numpy as np

MAX_KEYPOINTS = 1500  # the query keypoints kept, strongest first


def decode_gray(data: bytes) -> np.ndarray:
    """An encoded image (JPEG, PNG: anything cv2.imdecode reads) → H×W uint8 grey.

    Raises ValueError when the bytes are not an image OpenCV decodes, or it is under 32×32 px."""
    import cv2

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE) if data else None
    if image is None:
        raise ValueError("the body is not an image OpenCV decodes (JPEG or PNG expected)")
    if min(image.shape[:2]) < 32:
        raise ValueError(f"the image is {image.shape[1]}×{image.shape[0]} px: at least 32×32 expected")
    return image


def describe(image: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """An H×W grey or H×W×3 BGR uint8 image → (keypoints M×5 float32: x, y, scale, angle,
    response in image pixels, strongest first; descriptors M×64 float32 unit rows, row i for
    keypoints[i])."""
    import nft

    keypoints = nft.FastDetector(max_keypoints=MAX_KEYPOINTS).detect(image)
    descriptors, keypoints = nft.CpuSurf().describe(image, keypoints, return_keypoints=True)
    return keypoints, descriptors


def describe_image(data: bytes) -> Tuple[np.ndarray, np.ndarray]:
    """describe(decode_gray(data)): what a Dask task on a worker runs for a frame sent as JPEG/PNG.
    Raises ValueError as decode_gray()."""
    return describe(decode_gray(data))
