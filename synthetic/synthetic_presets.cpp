#include "synthetic/synthetic_presets.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace nft::replay {
namespace {

constexpr double kPi = 3.14159265358979323846;
/// Frames over which the motion grows in from the calm frontal first view.
constexpr double kRampFrames = 20.0;

struct Named {
  SyntheticPreset preset;
  const char* name;
};
constexpr Named kNames[] = {
    {SyntheticPreset::Default, "default"},          {SyntheticPreset::Scale, "scale"},
    {SyntheticPreset::Rotation, "rotation"},        {SyntheticPreset::Perspective, "perspective"},
    {SyntheticPreset::MotionBlur, "motion_blur"},   {SyntheticPreset::Occlusion, "occlusion"},
    {SyntheticPreset::OutOfView, "out_of_view"},    {SyntheticPreset::Unconstrained, "unconstrained"},
    {SyntheticPreset::BentPage, "bent_page"},
};

double smoothstep(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * (3 - 2 * x);
}

double overlap(double a0, double a1) { return std::max(0.0, std::min(a1, 1.0) - std::max(a0, 0.0)); }

}  // namespace

std::string toString(SyntheticPreset preset) {
  for (const Named& n : kNames)
    if (n.preset == preset) return n.name;
  return "?";
}

std::optional<SyntheticPreset> parseSyntheticPreset(const std::string& name) {
  for (const Named& n : kNames)
    if (name == n.name) return n.preset;
  return std::nullopt;
}

const std::vector<SyntheticPreset>& potPresets() {
  static const std::vector<SyntheticPreset> presets = {
      SyntheticPreset::Scale,     SyntheticPreset::Rotation,  SyntheticPreset::Perspective,  SyntheticPreset::MotionBlur,
      SyntheticPreset::Occlusion, SyntheticPreset::OutOfView, SyntheticPreset::Unconstrained};
  return presets;
}

std::string syntheticPresetNames() {
  std::string names;
  for (const Named& n : kNames) names += (names.empty() ? "" : ", ") + std::string(n.name);
  return names;
}

double OccluderPlacement::coveredFraction() const { return overlap(left, left + width) * overlap(top, top + height); }

PresetPath::PresetPath(SyntheticPreset preset, unsigned seed, double frameWidthPx)
    : preset_(preset), widthScale_(frameWidthPx / 640.0) {
  if (preset == SyntheticPreset::Default)
    throw std::invalid_argument("PresetPath: the default sequence keeps its own path (synthetic_sequence.cpp)");
  // Phases from std::mt19937's raw output (fixed by the standard, unlike its distributions).
  std::mt19937 gen(seed);
  for (double& p : phase_) p = 2 * kPi * static_cast<double>(gen() >> 8) * (1.0 / 16777216.0);
}

CameraDofs PresetPath::camera(double t) const {
  const double r = smoothstep(t / kRampFrames);
  // wave(A, P, k): amplitude A, period P frames, the k-th seeded phase; 0 at the calm start.
  const auto wave = [&](double amplitude, double periodFrames, int k) {
    return r * amplitude * std::sin(2 * kPi * t / periodFrames + phase_[k]);
  };
  const double px = widthScale_;  // offsets are designed at 640 px wide
  CameraDofs c;
  switch (preset_) {
    case SyntheticPreset::Default: break;
    case SyntheticPreset::Scale:
      // ln(distance) swings ±0.8 around ln(0.45 m): 0.20–1.0 m, the target 550–110 px wide.
      c.distanceM = 0.45 * std::exp(wave(0.5, 90, 0) + wave(0.3, 30, 1));
      c.tiltXDeg = wave(8, 150, 2);
      c.tiltYDeg = wave(8, 120, 3);
      c.rollDeg = wave(10, 140, 4);
      c.offsetXPx = px * wave(30, 130, 5);
      c.offsetYPx = px * wave(20, 110, 6);
      break;
    case SyntheticPreset::Rotation:
      c.rollDeg = wave(200, 130, 0) + wave(25, 35, 1);
      c.tiltXDeg = wave(10, 150, 2);
      c.tiltYDeg = wave(10, 120, 3);
      c.distanceM = 0.45 + wave(0.05, 140, 4);
      c.offsetXPx = px * wave(40, 160, 5);
      c.offsetYPx = px * wave(30, 130, 6);
      break;
    case SyntheticPreset::Perspective:
      c.tiltXDeg = wave(50, 140, 0);
      c.tiltYDeg = wave(50, 95, 1);
      c.rollDeg = wave(15, 120, 2);
      c.distanceM = 0.5 + wave(0.05, 150, 3);
      c.offsetXPx = px * wave(30, 130, 4);
      c.offsetYPx = px * wave(20, 110, 5);
      break;
    case SyntheticPreset::MotionBlur:
      // A hand shaking at 1 and 3 Hz over a slower sweep.
      c.offsetXPx = px * (wave(150, 30, 0) + wave(62, 10, 1));
      c.offsetYPx = px * (wave(90, 36, 2) + wave(42, 9, 3));
      c.rollDeg = wave(12, 40, 4);
      c.tiltXDeg = wave(10, 150, 5);
      c.tiltYDeg = wave(10, 120, 6);
      c.distanceM = 0.45 + wave(0.04, 90, 7);
      break;
    case SyntheticPreset::Occlusion:
      c.offsetXPx = px * wave(70, 150, 0);
      c.offsetYPx = px * wave(45, 120, 1);
      c.rollDeg = wave(25, 170, 2);
      c.tiltXDeg = wave(20, 140, 3);
      c.tiltYDeg = wave(20, 110, 4);
      c.distanceM = 0.45 + wave(0.06, 130, 5);
      break;
    case SyntheticPreset::OutOfView:
      // The target's centre reaches 300 px right / left of the frame's centre (about 40 % of
      // the target outside) and 170 px up / down (about 15 % more).
      c.offsetXPx = px * wave(300, 110, 0);
      c.offsetYPx = px * wave(170, 80, 1);
      c.rollDeg = wave(20, 150, 2);
      c.tiltXDeg = wave(15, 140, 3);
      c.tiltYDeg = wave(15, 100, 4);
      c.distanceM = 0.45 + wave(0.05, 120, 5);
      break;
    case SyntheticPreset::Unconstrained:
      // Every challenge at once, each at about half its own preset's amplitude: scale
      // 0.32–0.63 m, roll ±70°, tilts ±30°, a 2–3 Hz shake over a sweep that takes up to a third
      // of the target out of view, and the occluder (occluder()).
      c.distanceM = 0.45 * std::exp(wave(0.33, 90, 0));
      c.rollDeg = wave(60, 110, 1) + wave(10, 30, 2);
      c.tiltXDeg = wave(30, 100, 3);
      c.tiltYDeg = wave(30, 75, 4);
      c.offsetXPx = px * (wave(170, 70, 5) + wave(30, 12, 6));
      c.offsetYPx = px * (wave(110, 60, 7) + wave(22, 10, 8));
      break;
    case SyntheticPreset::BentPage:
      // A page held by hand close to the camera (0.32–0.48 m: 230–350 px wide at 640 × 480), a
      // slow sweep that takes up to about 40 % of it out of view left / right and 20 % up /
      // down, a 2–3 Hz shake, tilts of ±20° that show the bend from the side.
      c.distanceM = 0.40 + wave(0.08, 130, 0);
      c.offsetXPx = px * (wave(280, 120, 1) + wave(15, 13, 2));
      c.offsetYPx = px * (wave(130, 95, 3) + wave(10, 11, 4));
      c.rollDeg = wave(20, 150, 5);
      c.tiltXDeg = wave(20, 110, 6);
      c.tiltYDeg = wave(20, 90, 7);
      break;
  }
  return c;
}

std::optional<OccluderPlacement> PresetPath::occluder(double t) const {
  double width = 0, period = 0;
  if (preset_ == SyntheticPreset::Occlusion) {
    width = 0.5;
    period = 100;
  } else if (preset_ == SyntheticPreset::Unconstrained) {
    width = 0.3;
    period = 130;
  } else {
    return std::nullopt;
  }
  // Off the target's left edge for the first 15 frames, then sliding across to beyond the right
  // edge and back, once per period; the covered fraction peaks at width (its full height
  // covers the target's).
  const double s = std::max(0.0, t - 15.0);
  const double sweep = 0.5 - 0.5 * std::cos(2 * kPi * s / period);
  OccluderPlacement o;
  o.width = width;
  o.height = 1.3;
  o.top = -0.15;
  o.left = -width - 0.1 + (1.2 + width) * sweep;
  if (o.coveredFraction() <= 0 && (o.left + o.width < -0.05 || o.left > 1.05)) return std::nullopt;
  return o;
}

}  // namespace nft::replay
