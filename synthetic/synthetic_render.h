#pragma once
// The pieces the synthetic sequences (synthetic_sequence.h, multi_target_sequence.h) render
// their frames with: image loading with an error that names opencv-doc, a seeded uniform
// number, a camera rotation, a layer composited through a homography, a Gaussian-pyramid level
// for a local scale, and the lighting and sensor noise every frame gets.

#include <cstdint>
#include <random>
#include <string>

#include <opencv2/core.hpp>

namespace nft::replay::synth {

inline constexpr double kPi = 3.14159265358979323846;

/// Uniform in [0, 1) from std::mt19937's raw output (fixed by the standard, unlike the
/// distributions, whose output differs between standard libraries).
inline double uniform(std::mt19937& gen) { return static_cast<double>(gen() >> 8) * (1.0 / 16777216.0); }
inline double uniform(std::mt19937& gen, double lo, double hi) { return lo + (hi - lo) * uniform(gen); }

/// 3x^2 - 2x^3 of x clamped to [0, 1].
double smoothstep(double x);

/// Loads a colour image (CV_8UC3 BGR). `what` names it in the error ("target", "background").
/// @throws std::runtime_error naming the file, and the package opencv-doc when it is missing.
cv::Mat loadImage(const std::string& path, const char* what);

/// R = Rz(roll)·Rx(tiltX)·Ry(tiltY), angles in radians.
cv::Matx33d rotationZXY(double rollRad, double tiltXRad, double tiltYRad);

/// H·(x, y, 1) dehomogenised.
cv::Point2f apply(const cv::Matx33d& H, double x, double y);

/// Draws `layer` (CV_8UC3) over `frame` (CV_8UC3) through `layerToFrame` (layer pixels → frame
/// pixels), bilinear, with anti-aliased edges (the warped coverage is the blending weight).
/// Nothing is drawn when a corner of the layer is behind the camera.
void compositeLayer(const cv::Mat& layer, const cv::Matx33d& layerToFrame, cv::Mat& frame);

/// Draws `layer` (CV_8UC3) over the pixels of `frame` (CV_8UC3) from `origin` on, through a map:
/// frame pixel origin + (x, y) shows layer pixel (mapX(y, x), mapY(y, x)) (CV_32F maps of the
/// same size, what cv::remap takes), bilinear, with anti-aliased edges as compositeLayer() (a
/// map entry far outside the layer draws nothing there).
/// @throws cv::Exception when the maps' size or type differ or they do not fit in `frame` from `origin`.
void compositeRemapped(const cv::Mat& layer, const cv::Mat& mapX, const cv::Mat& mapY, cv::Point origin,
                       cv::Mat& frame);

/// The pyramid level (0 .. levels - 1) whose texels are about one frame pixel where
/// `surfaceToFrame` maps the surface point `at`: round(log2(1 / local scale)), so that
/// warpPerspective's bilinear taps do not alias.
int pyramidLevel(const cv::Matx33d& surfaceToFrame, cv::Point2d at, int levels);

/// Lighting of a frame: `sum` (CV_32FC3, grey levels) ← sum · gain · (1 + strength · the frame
/// position along `angleRad`, in frame widths from the centre) + offset.
void applyLighting(cv::Mat& sum, double gain, double offset, double strength, double angleRad);

/// Adds Gaussian sensor noise of `sigma` grey levels to `sum` (CV_32FC3), from cv::RNG seeded
/// by (seed, index) so that every frame's noise is reproducible on its own.
void addSensorNoise(cv::Mat& sum, double sigma, std::uint32_t seed, int index);

}  // namespace nft::replay::synth
