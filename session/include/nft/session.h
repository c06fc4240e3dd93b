#pragma once
// nft::Session: the tracker as an app embeds it — configuration in, targets added, camera
// frames processed one by one, poses out, augmentations drawn. One Session runs the whole
// pipeline of ../shared/DESIGN.md (detection lane: scale-aware FAST, SURF-ES and matching on the
// GPU, RANSAC, planar PnP; tracking lane: NCC patches after Wagner et al., IEEE TVCG 16(3),
// 2010; rendering) on one OpenGL ES 2.0 context.
//
//   nft::Session session;                                   // defaults, headless EGL context
//   nft::TargetId book = session.addTarget("book.jpg", "book", 0.185);
//   cv::Mat frame;
//   while (video.read(frame)) {
//     nft::FrameResult r = session.process(frame, timestampNs);
//     if (r.targets[0].found) use(r.targets[0].pose);     // X_cam = R·X_target + t, metres
//   }
//
// Threads and GL: a Session makes every GL call on the thread that created it (or last called
// restoreGpu()), on the GL context that was current there then — its own headless one, or the
// app's when adopted (SessionOptions::adoptCurrentContext). Each public call checks it comes from
// that thread (nft::GpuError otherwise); with an adopted context the app keeps it current there,
// an owned one the Session makes current again when needed (several Sessions on one thread).
// Every call leaves the caller's framebuffer binding and viewport as they were. A Session is
// move-only.
//
// Errors: every failure is an nft::Error (include/nft/error.h) naming the argument and what was
// expected; a call that throws changes nothing, and the Session stays usable.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "config/config.h"
#include "error.h"
#include "image_view.h"
#include "types.h"

namespace nft {

/// How a Session is made.
struct SessionOptions {
  /// Every tunable of the pipeline (config/config.h documents each key; the defaults suit a
  /// phone camera at 640×480 to 1280×720). Validated by the Session.
  config::Config config;
  /// Where the config came from, for messages ("<defaults>" when built in code).
  std::string configSource = "<defaults>";
  /// The camera's intrinsics. Without them: the config's camera section (a calibration file, or
  /// the field of view camera.hfov_deg), sized on the first frame.
  std::optional<Calibration> calibration;
  /// True: use the GL context current on the calling thread (an app's window, made with
  /// GLFW_EGL_CONTEXT_API, Android's GLSurfaceView); it must stay current on this thread whenever
  /// the Session is called. False: the Session makes and owns a headless EGL context (surfaceless
  /// or a device, as gpu/context.h finds), current on this thread.
  bool adoptCurrentContext = false;
  /// How a headless context is found (when not adopting): "auto" (a GPU's EGL device first, then
  /// Mesa's surfaceless platform, then the default display), "surfaceless", "device" or "default".
  std::string eglPlatform = "auto";
};

/// Reads a YAML configuration file into SessionOptions::config (configSource set to `path`).
/// @throws nft::ConfigError "<file>:<line>: <key> = <value>: expected ..." for a file that does
///   not exist, is not YAML, or names an unknown key or a bad value.
SessionOptions sessionOptionsFromFile(const std::string& path);

/// The tracker an app embeds (see the top of this file).
class Session {
 public:
  /// Validates the configuration, sets up the GL context (made or adopted) and probes the GPU.
  /// The detection and tracking lanes are built when the first target is added.
  /// @throws nft::ConfigError for an invalid configuration or one the pipeline cannot run
  ///   (naming the key); nft::GpuError when no OpenGL ES 2.0 context can be made, or none is
  ///   current to adopt.
  explicit Session(const SessionOptions& options = {});
  /// Same as Session(sessionOptionsFromFile(configPath)).
  explicit Session(const std::string& configPath);
  ~Session();
  /// Takes over another Session (its GL objects, targets and tracking state).
  Session(Session&&) noexcept;
  /// Takes over another Session, releasing this one's.
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --- Targets ---------------------------------------------------------------------------------

  /// Adds a target from a file: a trained model (.nftm, made by nft_train) or an image (PNG,
  /// JPEG, anything cv::imread reads), trained here with the config's target and detector
  /// settings (seconds on llvmpipe for a 1000-pixel image).
  /// @param path        the model or image file.
  /// @param name        how results name it; "" = the file name.
  /// @param widthMetres the printed target's width, metres (> 0: poses in metres); 0 = the
  ///                    model's width (.nftm) or the config's target.width_m (images).
  /// @return the new target's id.
  /// @throws nft::InputError naming the file when it does not exist, cannot be read, is a
  ///   corrupt model, or is too plain to find (fewer keypoints or tracking patches than the lanes
  ///   need); or naming the width when it is negative or not finite; or when its name is taken
  ///   or its descriptor type differs from the other targets'.
  TargetId addTarget(const std::string& path, const std::string& name = "", double widthMetres = 0.0);
  /// Adds a target from a file as above, with its name, width and, for an image, the surface it is
  /// printed on (TargetOptions::geometry: a label on a can is a cylinder; issue 47).
  ///   nft::TargetOptions can;
  ///   can.widthMetres = 0.19;                                // the label's arc length
  ///   can.geometry = nft::TargetGeometry::cylinder(0.033);   // radius, metres
  /// A curved target is trained with views of the label turned on its surface, found by PnP on
  /// the surface (tracker/curved_detection.h) and followed by a tracking lane on it
  /// (tracker/curved_tracking_lane.h): its TargetResult's pose is the label's (the target's frame
  /// of detection/label_surface.h), its corners the label's corners projected, its homography the
  /// label's tangent plane's along its middle column, its outline the label's visible edges; its
  /// pose is refined on the label's pixels (tracking.final_refinement: tracker/curved_refiner.h),
  /// not smoothed (tracking.pose_filter is for flat targets: it refits a plane). Alone in a Session it is searched for in process()
  /// itself, on every frame it is not tracked; beside other targets (flat or curved, added one by
  /// one or from a database) it is recognised among them as they are, on the worker too.
  /// @throws nft::InputError as the overload above; naming the geometry's field (radius_m,
  ///   top_radius_m, bottom_radius_m, side_length_m, width_m) when it does not fit the label
  ///   (e.g. a cylinder label longer than 2π·radius, a curved target without a width); a curved
  ///   geometry given for a model file that was trained with another.
  TargetId addTarget(const std::string& path, const TargetOptions& options);
  /// Adds a target from an image in memory: CV_8UC1 grey, CV_8UC3 BGR or CV_8UC4 BGRA.
  /// @throws nft::InputError for an empty image, another type, and as the file overload.
  TargetId addTarget(const cv::Mat& image, const std::string& name, double widthMetres = 0.0);
  /// Same with TargetOptions (name "" = "<image>"). @throws as the overloads above.
  TargetId addTarget(const cv::Mat& image, const TargetOptions& options);
  /// Adds a trained model from memory: the bytes of a .nftm file (nft_train's output, or the
  /// answer of the recognition service's GET /targets/ID), as addTarget(path) adds the file,
  /// without writing it anywhere (the web build, an app that keeps models in its own storage).
  /// @param model   the .nftm file's bytes, header to checksum (detection/target_model_io.h).
  /// @param options name ("" = "model-N", N counting the models added so), width in metres (0 =
  ///                the model's); a curved geometry must be the one the model was trained with.
  /// @throws nft::InputError for no bytes; naming "model-N" or the name given for bytes that are
  ///   not a model (wrong magic, another format version, truncated, checksum mismatch), a model
  ///   too plain to find, and as addTarget(path) for the width, the name and the geometry.
  TargetId addTargetModel(const std::vector<unsigned char>& model, const TargetOptions& options = {});
  /// Adds an instant target: the region of `frame` inside `quad` — a poster the user points the
  /// camera at and taps, or a planar-tracking benchmark's first-frame annotation — rectified to a
  /// target image (as wide as the quad's longer top or bottom side, as high as its longer left or
  /// right side), trained as addTarget() trains an image, and tracked from that quad on that
  /// frame: the next process() follows it with the tracking lane, without a detection. What
  /// Vuforia calls a user-defined target, and ARCore / ARKit an image added at run time. Its
  /// homography maps the target image's corners (0,0), (w,0), (w,h), (0,h) onto the quad. Other
  /// targets being tracked go on being tracked. The frame fixes the Session's frame size when no
  /// frame came before (as process() does); it need not be the last frame processed.
  /// @param frame       the camera frame: CV_8UC1 grey, CV_8UC3 BGR or CV_8UC4 BGRA.
  /// @param quad        the target's corners in frame pixels: upper-left, upper-right,
  ///                    lower-right, lower-left (clockwise on the screen, as
  ///                    TargetResult::corners), each inside the frame.
  /// @param name        how results name it; "" = "frame target N" (N counts this Session's).
  /// @param widthMetres the printed target's width, metres (> 0: poses in metres); 0 = the
  ///                    config's target.width_m.
  /// @return the new target's id.
  /// @throws nft::InputError naming the quad when it has not 4 corners, a corner is outside the
  ///   frame or not finite, it is not convex and clockwise, or a side is under 32 px; naming the
  ///   target when its region is too plain to find (too few keypoints or tracking patches); for a
  ///   frame that is empty, of another type, or of another size than the Session's frames; a bad
  ///   width or a name taken, as addTarget(). Nothing changes then.
  TargetId addTargetFromFrame(const cv::Mat& frame, const std::vector<cv::Point2f>& quad,
                              const std::string& name = "", double widthMetres = 0.0);
  /// Same for a frame in caller memory (see ImageView; the grey plane of the YUV formats is read
  /// in place). @throws as the cv::Mat overload, and as process(const ImageView&) for a bad view.
  TargetId addTargetFromFrame(const ImageView& frame, const std::vector<cv::Point2f>& quad,
                              const std::string& name = "", double widthMetres = 0.0);
  /// Adds every target of a target database (.nftdb of nft_train --database: models, names, widths, visual words).
  /// With several targets the Session recognises which are in view (an inverted index's shortlist, matching of those
  /// only) and tracks up to config tracking.max_targets at once. A version 2 or 3 file stays memory-mapped, its targets
  /// compact until verified or found (1001 targets: 187-191 MB of process, not 392; docs/results.md): while the Session
  /// lives, leave the file in place or replace it by renaming a new file over it.
  /// @return the new targets' ids, in the database's order.
  /// @throws nft::InputError naming the file when it is missing, truncated, corrupt or of another
  ///   version, or a target whose name is already taken in this Session.
  std::vector<TargetId> loadDatabase(const std::string& path);
  /// Removes a target: it is no longer reported, and its GPU memory is freed.
  /// @throws nft::InputError for an id that is unknown or already removed.
  void removeTarget(TargetId id);
  /// The targets, in the order they were added.
  std::vector<TargetInfo> targets() const;
  /// One target. @throws nft::InputError for an unknown or removed id.
  TargetInfo target(TargetId id) const;
  /// Forgets what the tracker follows: the next frame searches for every target again.
  void resetTracking();

  // --- Frames ----------------------------------------------------------------------------------

  /// Tracks the targets in one frame: CV_8UC1 grey, CV_8UC3 BGR or CV_8UC4 BGRA, any row
  /// stride. The frame is not copied; render() draws it until the next process().
  /// @param frame       the camera image.
  /// @param timestampNs the frame's capture time, nanoseconds (monotonic; reported back).
  /// @throws nft::InputError for an empty frame, another type, or another size than the
  ///   Session's frames so far (or than SessionOptions::calibration's); nft::GpuError. With the
  ///   detection worker (tracking.async_detection) and several targets, the recogniser is built
  ///   on the worker: an error building it (e.g. nft::GpuError for the worker's GL context) is
  ///   thrown by the process() that would have reported the search after it.
  FrameResult process(const cv::Mat& frame, long long timestampNs = 0);
  /// Same for a frame in caller memory (see ImageView): the grey plane of GRAY8 and of the YUV
  /// 4:2:0 formats is tracked in place, without a copy.
  /// @throws nft::InputError for a null pointer, a size ≤ 0 (or odd for a 4:2:0 format), a
  ///   stride smaller than a row, an unknown pixel format, or a size other than the frames'.
  FrameResult process(const ImageView& frame, long long timestampNs = 0);
  /// The camera intrinsics the poses are computed with, once known (from the options, or fixed
  /// by the first frame); std::nullopt before.
  std::optional<Calibration> calibration() const;

  // --- Rendering -------------------------------------------------------------------------------

  /// Draws the last processed frame as the background and, for each found target in `result`,
  /// the augmentations (axes, box, outline; config render.*) and, when render.overlay is on, the
  /// status line, into `viewport` of the framebuffer the caller has bound (a window's default
  /// framebuffer, drawn the right way up for it, or an offscreen one, drawn with row 0 at the
  /// picture's top as glReadPixels into a cv::Mat expects). The cube needs a depth buffer in
  /// that framebuffer; without one it is left out. Restores the GL state listed in
  /// render/renderer.h; leaves the caller's framebuffer bound.
  /// @throws nft::InputError before the first frame or for an empty viewport; nft::GpuError.
  void render(const FrameResult& result, const Viewport& viewport);
  /// Same, into an offscreen picture of the frame's size, returned as BGR CV_8UC3 (for videos
  /// and screenshots). @throws as render().
  cv::Mat renderToImage(const FrameResult& result);

  /// Shows or hides the status overlay of render() (initially the config's render.overlay).
  void setOverlayVisible(bool visible);
  /// Shows or hides the axes and the box of render() (initially as the config's render.axes and
  /// render.cube say; the outline stays).
  void setAugmentationsVisible(bool visible);

  /// The OpenGL projection matrix of the camera, column-major (m[col·4 + row], as glUniformMatrix4fv
  /// takes it with transpose = GL_FALSE): eye coordinates (x right, y up, looking down −z) →
  /// clip coordinates, for a viewport covering exactly the camera image; depth near → −1,
  /// far → +1. With viewMatrix() a target point X lands at the window position
  /// (u + 0.5, H − v − 0.5) of its cv::projectPoints pixel (u, v) (distortion aside).
  /// @param nearPlane, farPlane clipping distances in the pose's unit, 0 < nearPlane < farPlane.
  /// @throws nft::InputError before the camera is known or for bad near/far.
  std::array<float, 16> projectionMatrix(double nearPlane, double farPlane) const;
  /// The OpenGL view (model-view) matrix of a pose, column-major: target coordinates → eye
  /// coordinates, i.e. diag(1, −1, −1, 1) · [R t; 0 0 0 1] (OpenCV's camera looks down +z with y
  /// down; OpenGL's eye looks down −z with y up).
  static std::array<float, 16> viewMatrix(const Pose& pose);

  // --- GL context loss -------------------------------------------------------------------------

  /// Frees every GL object of the Session (shaders, textures, framebuffers, the targets' GPU
  /// descriptors) and, for an owned context, the context; the targets and the tracking state
  /// are kept on the CPU. Call it while the context is still current (Android: onPause, or
  /// GLSurfaceView's surface going away), or with no context current if it is already gone.
  /// Until restoreGpu(), process() and render() throw nft::GpuError.
  void releaseGpu();
  /// Rebuilds every GL object on the context current on the calling thread (adopted), or on a
  /// new headless one (owned); tracking goes on from where it was. The calling thread becomes the
  /// Session's thread. Does nothing when the GPU objects are there.
  /// @throws nft::GpuError when no context can be made or none is current to adopt.
  void restoreGpu();
  /// False between releaseGpu() and restoreGpu().
  bool hasGpu() const;

  // --- Information -----------------------------------------------------------------------------

  /// The configuration in use (validated).
  const config::Config& config() const;
  /// GL_RENDERER of the context, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  std::string gpuRenderer() const;
  /// GL_VERSION of the context.
  std::string glVersion() const;
  /// How the context was obtained: "EGL_MESA_platform_surfaceless", "adopted", ...
  std::string contextDescription() const;
  /// Settings the pipeline does not honour exactly, as "key = value: what happens instead".
  std::vector<std::string> warnings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nft
