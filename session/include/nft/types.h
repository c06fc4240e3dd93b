#pragma once
// The values the Session takes and gives: camera intrinsics, targets, poses and per-frame
// results. Conventions (the same as OpenCV's):
//  - pixels: the centre of pixel (i, j) is at (i, j); x to the right, y down;
//  - the target's frame: origin at the target image's top-left corner, x along its top edge
//    (right), y down its left edge, z into the target (away from a camera facing it); units are
//    metres when the target's width is known, else target-image pixels;
//  - a pose maps target coordinates to camera coordinates: X_cam = R · X_target + t, the camera
//    looking down +z with y down (cv::solvePnP's convention).

#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace nft {

/// Camera intrinsics at one image size (OpenCV's pinhole model).
struct Calibration {
  /// Intrinsic matrix, pixels: [fx s cx; 0 fy cy; 0 0 1], fx, fy > 0.
  cv::Matx33d K = cv::Matx33d::eye();
  /// OpenCV distortion coefficients as a 1×N CV_64F row, N ∈ {4, 5, 8, 12, 14}; empty for none.
  cv::Mat distortion;
  /// Size of the images K refers to, pixels.
  cv::Size imageSize;
  /// Where it came from, for logs and reports: a file path, or "default (60° horizontal field of
  /// view)" and the like.
  std::string source;
};

/// Reads an OpenCV calibration file (YAML, XML or JSON as OpenCV's calibration sample writes it:
/// camera_matrix, distortion_coefficients, image_width, image_height).
/// @throws nft::ConfigError naming the file and the key that is missing or wrong.
Calibration loadCalibration(const std::string& path);

/// Identifies a target within a Session: ≥ 1, never reused by that Session.
using TargetId = int;

/// The quality report of a trained target — how well the tracker will find it (the stars
/// commercial NFT SDKs give a target).
struct TargetQuality {
  int keypoints = 0;            ///< Keypoints the detection lane matches against.
  double coverage = 0.0;        ///< Fraction of the cells of an 8×8 grid over the target holding a keypoint.
  double distinctness = 0.0;    ///< Fraction of keypoints with no look-alike elsewhere on the target.
  double meanContrast = 0.0;    ///< Mean local standard deviation, 8-bit units.
  int stars = 0;                ///< 0..5.
  std::vector<std::string> warnings;  ///< E.g. too plain, too repetitive, uneven coverage.
};

/// The shape of the surface a target is printed on (issue 47): a plane (a page, a poster), a
/// cylinder (a label around a can or a bottle) or a cone (a sleeve on a cup). Metres.
///  - planar: the target image is the flat print; every size field stays 0.
///  - cylinder: the image is the label unrolled; its width (TargetOptions::widthMetres) is the
///    label's arc length around the axis, at most 2π·radiusMetres; its height follows from the
///    image's aspect.
///  - cone (a frustum): the radii at the label's top and bottom edges (one may be 0, the apex) and
///    the label's length along the slant; the image is the unrolled annular sector as printed
///    (ConeLabel::Sector, its bounding box) or a rectangle whose width is the bottom edge's arc
///    length and whose height is the slant (ConeLabel::Rectangle).
enum class GeometryKind { Planar, Cylinder, Cone };

/// How a cone's label image is laid out (see GeometryKind).
enum class ConeLabel { Sector, Rectangle };

/// A target's surface (see GeometryKind); only the fields of its kind are set, the others stay 0.
struct TargetGeometry {
  GeometryKind kind = GeometryKind::Planar;  ///< The surface's kind; planar by default.
  double radiusMetres = 0.0;        ///< cylinder: its radius, > 0.
  double topRadiusMetres = 0.0;     ///< cone: the radius at the label's top edge, >= 0.
  double bottomRadiusMetres = 0.0;  ///< cone: the radius at the label's bottom edge, >= 0, not the top's.
  double sideLengthMetres = 0.0;    ///< cone: the label's length along the slant, > |bottom − top|.
  ConeLabel coneLabel = ConeLabel::Sector;  ///< cone: the label image's layout.

  /// A flat print (the default).
  static TargetGeometry planar() { return {}; }
  /// A label around a cylinder of `radiusMetres`.
  static TargetGeometry cylinder(double radiusMetres) {
    TargetGeometry g;
    g.kind = GeometryKind::Cylinder;
    g.radiusMetres = radiusMetres;
    return g;
  }
  /// A label on a cone between the radii `topRadiusMetres` and `bottomRadiusMetres`,
  /// `sideLengthMetres` along the slant.
  static TargetGeometry cone(double topRadiusMetres, double bottomRadiusMetres, double sideLengthMetres,
                             ConeLabel label = ConeLabel::Sector) {
    TargetGeometry g;
    g.kind = GeometryKind::Cone;
    g.topRadiusMetres = topRadiusMetres;
    g.bottomRadiusMetres = bottomRadiusMetres;
    g.sideLengthMetres = sideLengthMetres;
    g.coneLabel = label;
    return g;
  }
  /// True for a cylinder or a cone.
  bool curved() const { return kind != GeometryKind::Planar; }
};

/// "planar", "cylinder", "cone".
std::string toString(GeometryKind kind);
/// "sector", "rectangle".
std::string toString(ConeLabel label);

/// How Session::addTarget() adds a target.
struct TargetOptions {
  /// How results name it; "" = the file name (or "<image>" for a cv::Mat).
  std::string name;
  /// The printed target's width, metres (> 0: poses in metres; a curved target's label width,
  /// see GeometryKind); 0 = the model's width (.nftm) or the config's target.width_m (images).
  double widthMetres = 0.0;
  /// The surface it is printed on, for an image trained by addTarget(). A model file (.nftm)
  /// keeps the geometry it was trained with (nft_train --geometry): planar here leaves it, any
  /// other must equal it.
  TargetGeometry geometry;
};

/// A target known to the Session.
struct TargetInfo {
  TargetId id = 0;              ///< The id addTarget() returned.
  std::string name;             ///< As given to addTarget() (the file name when none was given).
  std::string source;           ///< The file it came from, or "<image>" for a cv::Mat.
  double widthMetres = 0.0;     ///< Physical width; poses are in metres when > 0, else in target pixels.
  cv::Size imageSize;           ///< The working image the tracker uses (large images are scaled down), pixels.
  cv::Size originalSize;        ///< The image as given, pixels.
  int trackingPatches = 0;      ///< NCC patches the tracking lane follows.
  bool trained = false;         ///< True when trained by addTarget(), false when loaded from a .nftm model.
  double loadSeconds = 0.0;     ///< Time spent training or loading, seconds.
  TargetQuality quality;        ///< How well the tracker will find it.
  TargetGeometry geometry;      ///< The surface it is printed on.
};

/// What the tracker did for a target in a frame.
enum class TrackingState {
  Detecting,  ///< The detection lane produced this frame's result (found or not).
  Tracking,   ///< The tracking lane followed the target into this frame.
  Lost,       ///< The tracking lane lost the target in this frame and no detection found it.
};

/// "detecting", "tracking" or "lost".
std::string toString(TrackingState state);

/// The camera pose of a target: X_cam = R · X_target + t.
struct Pose {
  cv::Matx33d R = cv::Matx33d::eye();  ///< Rotation, target → camera.
  cv::Vec3d t;                         ///< Translation: metres with a known target width, else target pixels.
  cv::Vec3d rvec;                      ///< R as a rotation vector (axis × angle, radians; cv::Rodrigues).
};

/// One target's outcome in one frame.
struct TargetResult {
  TargetId id = 0;                                 ///< The target's id.
  std::string name;                                ///< The target's name.
  TrackingState state = TrackingState::Detecting;  ///< Which lane produced the result.
  /// True when homography, pose and corners below hold for this frame.
  bool found = false;
  /// Target-image pixels (TargetInfo::imageSize) → frame pixels, H(2,2) = 1.
  cv::Matx33d homography = cv::Matx33d::eye();
  Pose pose;  ///< The camera pose (valid when found).
  /// The target image's corners (0,0), (w,0), (w,h), (0,h) in frame pixels (upper left, upper
  /// right, lower right, lower left); empty when not found.
  std::vector<cv::Point2f> corners;
  /// What the camera sees of the target's outline, polylines in frame pixels: a flat target's
  /// closed quad (corners, then the first corner again); a curved label's edges and its can's,
  /// bottle's or cup's silhouette (the limb lines), only the parts that face the camera (issue 47).
  /// Empty when not found.
  std::vector<std::vector<cv::Point2f>> outline;
  /// Inliers of the lane that produced the result: keypoint matches or NCC patches.
  int inliers = 0;
  /// Patches the tracking lane searched (0 for a detection it did not refine).
  int searched = 0;
  /// Mean reprojection error of the inliers under `pose`, pixels.
  double reprojectionErrorPx = 0.0;
  /// The tracking lane's inlier patches in the target image, target pixels, for overlays.
  std::vector<cv::Point2f> inlierTargetPoints;
  /// The same patches in the frame, frame pixels (same order).
  std::vector<cv::Point2f> inlierFramePoints;
  /// Why the target was not found (or why tracking was lost when a detection then found it).
  std::string rejection;
};

/// Wall-clock time of the stages of one process() call, milliseconds. The detection stages are
/// zero in frames where the detection lane did not run, the tracking stages where the tracking
/// lane did not.
struct FrameTimings {
  double convert = 0;          ///< Pixel format → grey (zero for grey input and the YUV formats' luma plane).
  double fast = 0;             ///< Detection: scale-aware FAST on the pyramid.
  double describe = 0;         ///< Detection: descriptors (SURF-ES on the GPU).
  double match = 0;            ///< Detection: matching with the ratio test.
  double ransac = 0;           ///< Detection: RANSAC homography and the quad check.
  double detectionPose = 0;    ///< Detection: planar PnP.
  double pyramid = 0;          ///< Tracking: the frame's pyramid.
  double coarse = 0;           ///< Tracking: NCC search at half resolution.
  double fine = 0;             ///< Tracking: NCC search at full resolution.
  double trackingPose = 0;     ///< Tracking: robust pose update.
  double refine = 0;           ///< The found targets' homographies refined on the full frame (tracking.final_refinement).
  double total = 0;            ///< The whole process() call.
};

/// The outcome of one process() call.
struct FrameResult {
  /// 0-based count of the frames this Session has processed before this one.
  long long frame = 0;
  /// The timestamp given to process(), nanoseconds.
  long long timestampNs = 0;
  /// Size of the frame, pixels.
  cv::Size frameSize;
  /// One entry per target the Session reports, in the order of targets(). With one target: that
  /// target, every frame. With several: each target found in this frame, and each one lost in
  /// this frame (state Lost, found false), at most once.
  std::vector<TargetResult> targets;
  FrameTimings timings;  ///< Time spent in each stage of this call.
  /// Asynchronous detection (config tracking.async_detection): true while a search for targets
  /// runs on the worker (submitted on this frame or an earlier one); what it finds is reported
  /// on a later frame. Always false with detection in process().
  bool searchInFlight = false;
};

/// Where render() draws, in the framebuffer the caller has bound: pixels, (x, y) the lower-left
/// corner as in glViewport. The camera image keeps its aspect ratio inside it (bars in the
/// config's clear colour).
struct Viewport {
  int x = 0;       ///< Left edge, pixels.
  int y = 0;       ///< Bottom edge, pixels.
  int width = 0;   ///< > 0.
  int height = 0;  ///< > 0.
};

}  // namespace nft
