#pragma once
// The hard cases of planar-object tracking as synthetic camera paths with exact ground truth:
// one preset per challenge category of the POT benchmark (Liang, Wu, Ling, "Planar Object
// Tracking in the Wild: A Benchmark", ICRA 2018, section III-B): scale change, rotation,
// perspective distortion, motion blur, occlusion, out of view, and unconstrained (all at once).
// SyntheticSequence (synthetic_sequence.h) renders them: the same printed target on the same
// textured surface as its default sequence, 640×480 by default, each frame averaged over
// sub-frame poses within a half-frame exposure (motion blur consistent with the motion), the
// same lighting changes and sensor noise.
//
// Each preset is a smooth path of the camera's six degrees of freedom (sums of sinusoids whose
// phases come from the seed; the amplitudes and periods are fixed per preset, so every seed has
// the same difficulty), starting from a calm frontal view that the first ~20 frames ramp away
// from (the detection lane's first frame). The fastest target corner moves at most 80 px per
// frame at 640×480 (tests/tracker/synthetic_presets_test.cpp measures each path); the table of
// README.md "Fast motion and the POT presets" lists each preset's motion.
//
// One more preset is not a POT category: the bent page, the target printed on a page that is not
// flat but bent around a cylinder (its axis along the target's height; SyntheticSequence draws it
// and gives its exact projection), held by hand close to the camera with up to about 40 % of it
// out of view, like a book cover waved in front of a phone (../shared/data/video/korean_book).
//
// The occlusion presets add an occluder: a textured rectangle (opencv-doc's fruits.jpg) that
// slides across the target just in front of it (it moves with the target plus its own sliding,
// so its blur follows its own motion), covering up to half of the target's area.

#include <optional>
#include <string>
#include <vector>

namespace nft::replay {

/// The synthetic sequence's camera path: the built-in default or one POT category.
enum class SyntheticPreset {
  Default,        ///< the original hand-held path of synthetic_sequence.h (nft_replay's default input)
  Scale,          ///< distance 0.2–1.0 m: the target 110–550 px wide
  Rotation,       ///< in-plane rotation of ±225°, up to ~15° per frame
  Perspective,    ///< tilts up to ±50° about both axes (up to ~66° off frontal)
  MotionBlur,     ///< fast translation up to ~80 px per frame, blurred over the exposure
  Occlusion,      ///< a moving occluder covers up to half the target
  OutOfView,      ///< up to about half of the target leaves the frame
  Unconstrained,  ///< all of the above at once, each at about half its amplitude
  /// Not a POT category: the target on a page bent around a cylinder of 2.5× its width
  /// (kBentPageRadiusWidths), hand-held 0.3–0.5 m away, up to about 40 % of it out of view.
  BentPage,
};

/// The bent page's radius of curvature in target widths (the issue asks for 1.5–4).
inline constexpr double kBentPageRadiusWidths = 2.5;

/// "default", "scale", "rotation", "perspective", "motion_blur", "occlusion", "out_of_view",
/// "unconstrained", "bent_page".
std::string toString(SyntheticPreset preset);
/// The preset named by toString(); std::nullopt for any other name.
std::optional<SyntheticPreset> parseSyntheticPreset(const std::string& name);
/// The seven POT categories in the order above (every preset but Default and BentPage).
const std::vector<SyntheticPreset>& potPresets();
/// "scale, rotation, ..." (every name parseSyntheticPreset() takes), for help and error texts.
std::string syntheticPresetNames();

/// The camera's six degrees of freedom at one instant, as SyntheticSequence turns them into a
/// homography: the target's centre at `distanceM` metres in front of the camera, seen at
/// (frame centre + offset) pixels, rotated by roll (about the optical axis), tiltX, tiltY
/// (degrees, R = Rz(roll)·Rx(tiltX)·Ry(tiltY)).
struct CameraDofs {
  double distanceM = 0.45;
  double tiltXDeg = 0, tiltYDeg = 0, rollDeg = 0;
  double offsetXPx = 0, offsetYPx = 0;
};

/// The occluder at one instant, in target-normalised coordinates (0..1 across the target's
/// width and height): the rectangle [left, left + width] × [top, top + height] of the target
/// plane, drawn in front of the target.
struct OccluderPlacement {
  double left = 0, top = 0, width = 0, height = 0;
  /// Fraction of the target's area it covers (the rectangle's overlap with [0, 1]²), in [0, 1].
  double coveredFraction() const;
};

/// The motion of one POT preset or the bent page (not Default, whose path SyntheticSequence keeps
/// as it was).
/// Immutable, copyable.
class PresetPath {
 public:
  /// @param frameSize the frame size in pixels (the offsets scale with its width / 640).
  /// @throws std::invalid_argument for SyntheticPreset::Default.
  PresetPath(SyntheticPreset preset, unsigned seed, double frameWidthPx);

  SyntheticPreset preset() const { return preset_; }
  /// The camera at time `frame` (fractional frames allowed, 30 frames per second).
  CameraDofs camera(double frame) const;
  /// The occluder at time `frame`; std::nullopt for presets without one or while it is away.
  std::optional<OccluderPlacement> occluder(double frame) const;

 private:
  SyntheticPreset preset_;
  double widthScale_ = 1;
  double phase_[16] = {};
};

}  // namespace nft::replay
