"""Type stubs of the nft module (python/*.cpp, pybind11): natural-feature tracking for AR.

Arrays: images are NumPy uint8, H×W grey or H×W×3 BGR (C-contiguous; passed without a copy);
matrices and points come back as float64, descriptors as float32, keypoints as N×5 float32
(x, y, scale, angle, response). Pixels: OpenCV's convention (pixel centres at integers, x right,
y down). Poses: X_cam = R · X_target + tvec, metres when the target's width is known.
"""

import os
from typing import Dict, List, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, os.PathLike]
ConfigArg = Union[None, str, os.PathLike, Dict[str, Dict[str, object]]]
U8Image = npt.NDArray[np.uint8]
F64Array = npt.NDArray[np.float64]
F32Array = npt.NDArray[np.float32]
I32Array = npt.NDArray[np.int32]

class Error(Exception):
    """Base of every error the nft library reports (C++ nft::Error)."""

class ConfigError(Error, ValueError):
    """A configuration that cannot be read, parsed, validated or run (C++ nft::ConfigError)."""
    source: str  # file name or '<dict>'
    line: int  # 1-based line of the offending key, 0 when unknown
    key_path: str  # dotted key, e.g. 'tracking.min_ncc'; '' when not about one key

class InputError(Error, ValueError):
    """A bad argument: frame, image, target file, target id, or a call too early (C++ nft::InputError)."""

class GpuError(Error, RuntimeError):
    """No EGL/GLES2 context, a shader or GL error, or a call from another thread (C++ nft::GpuError)."""

class Calibration:
    """Camera intrinsics at one image size (OpenCV's pinhole model; C++ nft::Calibration)."""
    def __init__(self, K: npt.ArrayLike, image_size: Tuple[int, int], distortion: Optional[npt.ArrayLike] = None,
                 source: str = "<python>") -> None:
        """K: 3×3, pixels (fx, fy > 0); image_size: (width, height), pixels; distortion: 4, 5, 8, 12 or 14
        OpenCV coefficients. Raises ValueError naming a malformed argument."""
    @property
    def K(self) -> F64Array:
        """3×3 float64 intrinsic matrix, pixels."""
    @property
    def distortion(self) -> F64Array:
        """float64 (N,), N in {0, 4, 5, 8, 12, 14}."""
    @property
    def image_size(self) -> Tuple[int, int]:
        """(width, height), pixels."""
    @property
    def source(self) -> str: ...

def load_calibration(path: PathLike) -> Calibration:
    """Reads an OpenCV calibration file. Raises FileNotFoundError, ConfigError."""

class TargetGeometry:
    """The surface a target is printed on (C++ nft::TargetGeometry), metres: planar (the default), a
    cylinder (a label around a can: the image is the label unrolled, width_m its arc length) or a cone."""
    def __init__(self, kind: str = "planar", radius_m: float = 0.0, top_radius_m: float = 0.0,
                 bottom_radius_m: float = 0.0, side_length_m: float = 0.0, cone_label: str = "sector") -> None:
        """Raises ValueError for a kind other than 'planar', 'cylinder', 'cone' or a cone_label other than
        'sector', 'rectangle'; sizes are checked when a target is trained."""
    @staticmethod
    def planar() -> TargetGeometry: ...
    @staticmethod
    def cylinder(radius_m: float) -> TargetGeometry: ...
    @staticmethod
    def cone(top_radius_m: float, bottom_radius_m: float, side_length_m: float,
             label: str = "sector") -> TargetGeometry: ...
    @property
    def kind(self) -> str:
        """'planar', 'cylinder' or 'cone'."""
    @property
    def radius_m(self) -> float: ...
    @property
    def top_radius_m(self) -> float: ...
    @property
    def bottom_radius_m(self) -> float: ...
    @property
    def side_length_m(self) -> float: ...
    @property
    def cone_label(self) -> str:
        """'sector' or 'rectangle'."""
    @property
    def curved(self) -> bool: ...

class TargetQuality:
    """The quality report of a trained target (C++ nft::TargetQuality)."""
    @property
    def keypoints(self) -> int: ...
    @property
    def coverage(self) -> float:
        """Fraction (0..1) of an 8×8 grid's cells holding a keypoint."""
    @property
    def distinctness(self) -> float:
        """Fraction (0..1) of keypoints without a look-alike elsewhere on the target."""
    @property
    def mean_contrast(self) -> float:
        """Mean local standard deviation, 8-bit grey levels."""
    @property
    def stars(self) -> int:
        """0..5."""
    @property
    def warnings(self) -> List[str]: ...

class TargetInfo:
    """A target known to a Session (C++ nft::TargetInfo)."""
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str:
        """The file it came from, or '<image>' for an array."""
    @property
    def width_m(self) -> float:
        """Physical width, metres (poses in metres when > 0, else target pixels)."""
    @property
    def image_size(self) -> Tuple[int, int]:
        """(width, height) of the working image, pixels."""
    @property
    def original_size(self) -> Tuple[int, int]:
        """(width, height) of the image as given, pixels."""
    @property
    def tracking_patches(self) -> int: ...
    @property
    def trained(self) -> bool:
        """True when trained by add_target(), False when loaded from a .nftm model."""
    @property
    def load_seconds(self) -> float: ...
    @property
    def quality(self) -> TargetQuality: ...
    @property
    def geometry(self) -> TargetGeometry: ...

class TargetResult:
    """One target's outcome in one frame (C++ nft::TargetResult). Arrays are None when not found."""
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def state(self) -> str:
        """'detecting', 'tracking' or 'lost'."""
    @property
    def found(self) -> bool: ...
    @property
    def homography(self) -> Optional[F64Array]:
        """3×3 float64: target-image pixels → frame pixels, H[2, 2] = 1."""
    @property
    def corners(self) -> Optional[F64Array]:
        """4×2 float64, frame pixels: upper left, upper right, lower right, lower left."""
    @property
    def outline(self) -> List[F64Array]:
        """N×2 float64 polylines, frame pixels: a flat target's closed quad; a curved label's edges and silhouette."""
    @property
    def R(self) -> Optional[F64Array]:
        """3×3 float64 rotation, target → camera."""
    @property
    def rvec(self) -> Optional[F64Array]:
        """float64 (3,): rotation vector, radians (cv2.Rodrigues)."""
    @property
    def tvec(self) -> Optional[F64Array]:
        """float64 (3,): translation, metres (target pixels without a width)."""
    @property
    def inliers(self) -> int: ...
    @property
    def searched(self) -> int: ...
    @property
    def reprojection_error_px(self) -> float: ...
    @property
    def inlier_target_points(self) -> F64Array:
        """N×2 float64, target pixels."""
    @property
    def inlier_frame_points(self) -> F64Array:
        """N×2 float64, frame pixels."""
    @property
    def rejection(self) -> str: ...

class FrameResult:
    """The outcome of one Session.process() call (C++ nft::FrameResult)."""
    @property
    def frame(self) -> int:
        """0-based count of the frames processed before this one."""
    @property
    def timestamp_ns(self) -> int: ...
    @property
    def frame_size(self) -> Tuple[int, int]:
        """(width, height), pixels."""
    @property
    def search_in_flight(self) -> bool:
        """True while a search runs on the detection worker (tracking.async_detection)."""
    @property
    def targets(self) -> List[TargetResult]: ...
    @property
    def timings(self) -> Dict[str, float]:
        """Stage → milliseconds: convert, fast, describe, match, ransac, detection_pose, pyramid, coarse, fine,
        tracking_pose, refine, total."""

class Session:
    """The tracker an app embeds (C++ nft::Session): config → targets → frames → poses.

    Belongs to the thread that created it (nft.GpuError from others); the GIL is released while C++ works.
    """
    def __init__(self, config: ConfigArg = None, calibration: Union[None, PathLike, Calibration] = None,
                 egl_platform: str = "auto") -> None:
        """config: None (defaults), a YAML path or a dict of sections; calibration: None, a calibration file
        or an nft.Calibration; egl_platform: 'auto', 'surfaceless', 'device', 'default'.
        Raises FileNotFoundError, ConfigError, GpuError, TypeError."""
    def add_target(self, image_or_path: Union[PathLike, U8Image], name: str = "", width_m: float = 0.0,
                   geometry: Optional[TargetGeometry] = None) -> int:
        """Adds a .nftm model, an image file or an image array (H×W, H×W×3 BGR, H×W×4 BGRA uint8); width in
        metres (0: the model's or config's); geometry: the surface an image is printed on (None: planar).
        Returns the id. A curved target is found by PnP on its surface and followed on it, alone or beside
        other targets. Raises FileNotFoundError, InputError, TypeError."""
    def add_target_model(self, model: bytes, name: str = "", width_m: float = 0.0) -> int:
        """Adds a trained model from a .nftm file's bytes (name "" = "model-N"). Returns the id. Raises
        InputError naming the model and what is wrong (empty, truncated, corrupt), TypeError for another type."""
    def add_target_from_frame(self, frame: U8Image, quad: Union[Sequence[Tuple[float, float]], F64Array],
                              name: str = "", width_m: float = 0.0) -> int:
        """Adds an instant target: the quad's region of the frame (corners UL, UR, LR, LL in frame pixels),
        rectified and trained, tracked from that quad on that frame. Returns the id. Raises InputError
        (naming the quad or the target), ValueError (a quad that is not N×2)."""
    def load_database(self, path: PathLike) -> List[int]:
        """Adds every target of a .nftdb database. Raises FileNotFoundError, InputError."""
    def remove_target(self, id: int) -> None:
        """Raises InputError for an unknown or removed id."""
    @property
    def targets(self) -> List[TargetInfo]: ...
    def target(self, id: int) -> TargetInfo: ...
    def reset_tracking(self) -> None: ...
    def process(self, frame: U8Image, timestamp_ns: int = 0) -> FrameResult:
        """frame: C-contiguous uint8 H×W grey, H×W×3 BGR or H×W×4 BGRA (no copy); timestamp in ns.
        Raises TypeError, ValueError (naming `frame`), InputError (another size), GpuError."""
    def _cpp_process_loop(self, frames: Sequence[U8Image], timestamp_step_ns: int = 33333333) -> F64Array:
        """Benchmark helper: process() of each frame from a C++ loop → seconds per frame, float64 (N,)."""
    @property
    def calibration(self) -> Optional[Calibration]: ...
    def render_to_image(self, result: FrameResult) -> U8Image:
        """The last frame with the augmentations of `result` → H×W×3 uint8 BGR."""
    def set_overlay_visible(self, visible: bool) -> None: ...
    def set_augmentations_visible(self, visible: bool) -> None: ...
    def projection_matrix(self, near: float, far: float) -> F64Array:
        """4×4 float64 OpenGL projection (eye → clip)."""
    @staticmethod
    def view_matrix(R: npt.ArrayLike, tvec: npt.ArrayLike) -> F64Array:
        """4×4 float64 OpenGL view matrix of a pose."""
    @property
    def config_yaml(self) -> str: ...
    @property
    def gpu_renderer(self) -> str: ...
    @property
    def gl_version(self) -> str: ...
    @property
    def context_description(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Session": ...
    def __exit__(self, *args: object) -> None: ...

class GpuContext:
    """A headless OpenGL ES 2.0 context for SurfEs and GpuMatcher; used on the thread that made it."""
    def __init__(self, egl_platform: str = "auto") -> None: ...
    @staticmethod
    def default() -> "GpuContext":
        """The calling thread's default context."""
    @property
    def renderer(self) -> str: ...
    @property
    def gl_version(self) -> str: ...
    @property
    def platform(self) -> str: ...
    @property
    def software_renderer(self) -> bool: ...
    @property
    def fragment_highp_bits(self) -> int: ...

KeypointsArg = npt.ArrayLike  # N×3, N×4 or N×5: x, y, scale (pixels), [angle (degrees, <0: compute)], [response]

class SurfEs:
    """SURF-ES: SURF descriptors on the GPU with OpenGL ES 2.0 (Hofmann 2012, sections 3.3-4.5)."""
    def __init__(self, context: Optional[GpuContext] = None, type: Union[str, int] = "surf64",
                 orientation: str = "oriented", storage: str = "auto", precision_bits: int = 0, box_taps: int = 2,
                 max_width: int = 1920, max_height: int = 1080, max_keypoints: int = 4096) -> None: ...
    @overload
    def describe(self, image: U8Image, keypoints: KeypointsArg) -> F32Array: ...
    @overload
    def describe(self, image: U8Image, keypoints: KeypointsArg, return_keypoints: bool) -> Union[F32Array, Tuple[F32Array, F32Array]]: ...
    @property
    def type(self) -> str: ...
    @property
    def orientation(self) -> str: ...
    @property
    def storage(self) -> str: ...
    @property
    def precision_bits(self) -> int: ...
    @property
    def context(self) -> GpuContext: ...

class CpuSurf:
    """The CPU SURF lane: SurfEs's descriptor with exact box means (Bay et al. 2008). No GL; thread-safe."""
    def __init__(self, type: Union[str, int] = "surf64", orientation: str = "oriented", threads: int = 0) -> None: ...
    @overload
    def describe(self, image: U8Image, keypoints: KeypointsArg) -> F32Array: ...
    @overload
    def describe(self, image: U8Image, keypoints: KeypointsArg, return_keypoints: bool) -> Union[F32Array, Tuple[F32Array, F32Array]]: ...
    @property
    def type(self) -> str: ...
    @property
    def orientation(self) -> str: ...

class Matches:
    """Accepted matches, in query order: arrays of shape (K,)."""
    @property
    def query(self) -> I32Array: ...
    @property
    def target(self) -> I32Array: ...
    @property
    def distance(self) -> F32Array: ...
    @property
    def second_distance(self) -> F32Array: ...
    def __len__(self) -> int: ...

class GpuMatcher:
    """Brute-force L2 matching on the GPU with Lowe's ratio test (Hofmann 2012 section 6.1)."""
    def __init__(self, context: Optional[GpuContext] = None, max_queries: int = 4096, force_rgba8: bool = False,
                 draw_buffers: bool = True) -> None: ...
    def set_target(self, descriptors: npt.ArrayLike) -> None:
        """M×D float32 (D = 64 or 36)."""
    def nearest(self, queries: npt.ArrayLike) -> Tuple[I32Array, F32Array, F32Array]:
        """(target (N,), distance (N,), second_distance (N,)); −1 / inf where none."""
    def match(self, queries: npt.ArrayLike, ratio: float = 0.8, cross_check: bool = False) -> Matches: ...
    @property
    def target_count(self) -> int: ...
    @property
    def float_path(self) -> bool: ...
    @property
    def merge_path(self) -> bool: ...

class CpuMatcher:
    """Brute-force L2 matching on the CPU with Lowe's ratio test: GpuMatcher's interface and matches, no GL context."""
    def __init__(self) -> None: ...
    def set_target(self, descriptors: npt.ArrayLike) -> None:
        """M×D float32 (D = 64 or 36)."""
    def nearest(self, queries: npt.ArrayLike) -> Tuple[I32Array, F32Array, F32Array]:
        """(target (N,), distance (N,), second_distance (N,)); −1 / inf where none."""
    def match(self, queries: npt.ArrayLike, ratio: float = 0.8, cross_check: bool = False) -> Matches: ...
    @property
    def target_count(self) -> int: ...

class FastDetector:
    """Scale-aware FAST-9 on an image pyramid with an even spread (the detection lane's detector)."""
    def __init__(self, max_keypoints: int = 1000, scale_factor: float = 1.4142135623730951, levels: int = 4,
                 threshold: int = 30, cell_size: int = 48, base_scale: float = 3.0) -> None: ...
    def detect(self, image: U8Image) -> F32Array:
        """N×5 float32 (x, y, scale, angle = −1, response), strongest first."""

class TrainedTarget:
    """A trained target and its quality report."""
    @property
    def quality(self) -> TargetQuality: ...
    @property
    def keypoints(self) -> F32Array:
        """N×5 float32, working-image pixels."""
    @property
    def descriptors(self) -> F32Array:
        """N×D float32, unit rows."""
    @property
    def image(self) -> U8Image:
        """The working image, H×W uint8."""
    @property
    def tracking_patches(self) -> int: ...
    @property
    def width_m(self) -> float: ...
    @property
    def geometry(self) -> TargetGeometry: ...
    @property
    def original_size(self) -> Tuple[int, int]: ...
    @property
    def descriptor_type(self) -> str: ...
    @property
    def seconds(self) -> float: ...
    def save(self, path: PathLike) -> None:
        """Writes a .nftm model file."""

def train_target(image_or_path: Union[PathLike, U8Image], width_m: float = 0.0, config: ConfigArg = None,
                 context: Optional[GpuContext] = None, geometry: Optional[TargetGeometry] = None) -> TrainedTarget:
    """Trains a target as Session.add_target() does. Raises FileNotFoundError, InputError, ConfigError."""

def load_target(path: PathLike) -> TrainedTarget:
    """Reads a .nftm model file without training. Raises FileNotFoundError, InputError."""
