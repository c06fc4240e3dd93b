#include "synthetic/multi_target_sequence.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "synthetic/synthetic_render.h"
#include "tracker/camera_calibration.h"

namespace nft::replay {
namespace {

using synth::kPi;

constexpr int kPyramidLevels = 4;
constexpr double kExposureFrames = 0.5;   // shutter open for half a frame: the motion blur
constexpr int kMaxSubframes = 12;
constexpr double kPaperMarginM = 0.006;   // white paper around each printed image
constexpr double kBackgroundMetresPerPixel = 0.0015;
constexpr const char* kBackground = "building.jpg";

struct PrintSpec {
  const char* file;
  double widthM, centreX, centreY;
};

// Pan: a row along x, 22 cm prints 36 cm apart; butterfly's paper over baboon's lower-right
// corner (about 30 % of baboon).
constexpr std::array<PrintSpec, 4> kPanPrints{{{"graf1.png", 0.22, 0.25, 0.30},
                                               {"starry_night.jpg", 0.22, 0.61, 0.30},
                                               {"baboon.jpg", 0.22, 0.97, 0.30},
                                               {"butterfly.jpg", 0.22, 1.07, 0.38}}};
// Grid: 4 × 2 prints 11 cm wide, 11.8 cm apart, none overlapping.
constexpr std::array<PrintSpec, 8> kGridPrints{{{"graf1.png", 0.11, 0.059, 0.070},
                                                {"starry_night.jpg", 0.11, 0.177, 0.070},
                                                {"baboon.jpg", 0.11, 0.295, 0.070},
                                                {"butterfly.jpg", 0.11, 0.413, 0.070},
                                                {"box.png", 0.11, 0.059, 0.200},
                                                {"chicky_512.png", 0.11, 0.177, 0.200},
                                                {"aero3.jpg", 0.11, 0.295, 0.200},
                                                {"messi5.jpg", 0.11, 0.413, 0.200}}};

/// The camera at one instant: it looks at `lookAt` on the table (metres) from `distance` metres,
/// rotated by roll, tiltX, tiltY (radians, synth::rotationZXY).
struct Camera {
  cv::Point2d lookAt;
  double distance, tiltX, tiltY, roll;
};

double areaOf(const std::vector<cv::Point2f>& a, const std::vector<cv::Point2f>& b, std::vector<cv::Point2f>* out) {
  std::vector<cv::Point2f> both;
  const float area = cv::intersectConvexConvex(a, b, both, true);
  if (out != nullptr) *out = both;
  return area > 0 ? area : 0.0;
}

}  // namespace

std::string toString(MultiTargetLayout layout) { return layout == MultiTargetLayout::Pan ? "pan" : "grid"; }

std::optional<MultiTargetLayout> parseMultiTargetLayout(const std::string& name) {
  if (name == "pan") return MultiTargetLayout::Pan;
  if (name == "grid") return MultiTargetLayout::Grid;
  return std::nullopt;
}

MultiTargetSequence::MultiTargetSequence(const MultiTargetSequenceOptions& options) : options_(options) {
  if (options.frameSize.width < 64 || options.frameSize.height < 64)
    throw std::invalid_argument("multi-target sequence: frame size must be at least 64x64");
  if (options.frames < 1) throw std::invalid_argument("multi-target sequence: frames must be >= 1");
  if (!(options.noiseSigma >= 0)) throw std::invalid_argument("multi-target sequence: noise sigma must be >= 0");

  const bool pan = options.layout == MultiTargetLayout::Pan;
  std::vector<PrintSpec> specs = pan ? std::vector<PrintSpec>(kPanPrints.begin(), kPanPrints.end())
                                     : std::vector<PrintSpec>(kGridPrints.begin(), kGridPrints.end());
  const std::filesystem::path folder(options.imageFolder);
  cv::Point2d lo(1e9, 1e9), hi(-1e9, -1e9);
  for (const PrintSpec& spec : specs) {
    MultiTargetPrint print;
    print.path = (folder / spec.file).string();
    print.name = std::filesystem::path(spec.file).stem().string();
    print.image = synth::loadImage(print.path, "target");
    print.widthM = spec.widthM;
    print.centreM = {spec.centreX, spec.centreY};
    // The image on white paper, a layer of its own (pyramid levels pair with the image's pixels).
    const int margin = static_cast<int>(std::lround(kPaperMarginM * print.image.cols / print.widthM));
    cv::Mat paper(print.image.rows + 2 * margin, print.image.cols + 2 * margin, CV_8UC3, cv::Scalar(235, 235, 235));
    print.image.copyTo(paper(cv::Rect(margin, margin, print.image.cols, print.image.rows)));
    std::vector<cv::Mat> pyramid;
    cv::buildPyramid(paper, pyramid, kPyramidLevels - 1);
    paper_.push_back(std::move(pyramid));
    lo.x = std::min(lo.x, spec.centreX), lo.y = std::min(lo.y, spec.centreY);
    hi.x = std::max(hi.x, spec.centreX), hi.y = std::max(hi.y, spec.centreY);
    prints_.push_back(std::move(print));
  }

  // The table top: the background, slightly blurred, centred under the prints.
  cv::Mat background = synth::loadImage((folder / kBackground).string(), "background");
  cv::GaussianBlur(background, background, cv::Size(), 1.0);
  cv::buildPyramid(background, background_, kPyramidLevels - 1);
  backgroundMetresPerPixel_ = kBackgroundMetresPerPixel;
  const cv::Point2d middle = 0.5 * (lo + hi);
  backgroundOriginM_ = middle - 0.5 * kBackgroundMetresPerPixel * cv::Point2d(background.cols, background.rows);

  K_ = tracker::defaultCalibration(options.frameSize).K;
  std::mt19937 gen(options.seed);
  for (double& p : phase_) p = synth::uniform(gen, 0, 2 * kPi);
}

int MultiTargetSequence::find(const std::string& name) const {
  for (size_t i = 0; i < prints_.size(); ++i)
    if (prints_[i].name == name) return static_cast<int>(i);
  return -1;
}

cv::Matx33d MultiTargetSequence::tableToFrame(double frame) const {
  // The path is a function of time (30 frames/s), not of the frame count: a shorter sequence is
  // the start of a longer one.
  const double s = frame / fps();
  auto wave = [&](double periodS, int k) { return std::sin(2 * kPi * s / periodS + phase_[k]); };
  const double deg = kPi / 180.0;
  Camera c{};
  if (options_.layout == MultiTargetLayout::Pan) {
    // Along the row and back in 10 s (about 9 px per frame at 640×480 in the middle).
    const double x0 = prints_.front().centreM.x, x1 = 1.02;
    c.lookAt = {x0 + (x1 - x0) * 0.5 * (1 - std::cos(2 * kPi * s / 10.0)), 0.31 + 0.04 * wave(6.7, 0)};
    c.distance = 0.50 + 0.06 * wave(9.1, 1);
    c.tiltX = 14 * deg * wave(11.3, 2);
    c.tiltY = 14 * deg * wave(7.7, 3);
    c.roll = 12 * deg * wave(14.3, 4);
  } else {
    c.lookAt = {0.236 + 0.008 * wave(5.3, 0), 0.135 + 0.008 * wave(4.1, 1)};
    c.distance = 0.42 + 0.015 * wave(6.1, 2);
    c.tiltX = 6 * deg * wave(7.3, 3);
    c.tiltY = 6 * deg * wave(4.7, 4);
    c.roll = 4 * deg * wave(9.7, 5);
  }
  // X_cam = R·X_table + t, the look-at point on the optical axis at `distance`.
  const cv::Matx33d R = synth::rotationZXY(c.roll, c.tiltX, c.tiltY);
  const cv::Vec3d t = cv::Vec3d(0, 0, c.distance) - R * cv::Vec3d(c.lookAt.x, c.lookAt.y, 0);
  const cv::Matx33d Rt(R(0, 0), R(0, 1), t[0], R(1, 0), R(1, 1), t[1], R(2, 0), R(2, 1), t[2]);
  cv::Matx33d H = K_ * Rt;
  return H * (1.0 / H(2, 2));
}

cv::Matx33d MultiTargetSequence::printToTable(size_t print) const {
  const MultiTargetPrint& p = prints_[print];
  const double m = p.widthM / p.image.cols;  // metres per image pixel
  return {m, 0, p.centreM.x - 0.5 * m * p.image.cols, 0, m, p.centreM.y - 0.5 * m * p.image.rows, 0, 0, 1};
}

cv::Matx33d MultiTargetSequence::homography(int target, int index) const {
  if (target < 0 || target >= targetCount())
    throw std::out_of_range("multi-target sequence: target " + std::to_string(target) + " outside [0, " +
                            std::to_string(targetCount()) + ")");
  if (index < 0 || index >= frameCount())
    throw std::out_of_range("multi-target sequence: frame " + std::to_string(index) + " outside [0, " +
                            std::to_string(frameCount()) + ")");
  cv::Matx33d H = tableToFrame(index) * printToTable(static_cast<size_t>(target));
  return H * (1.0 / H(2, 2));
}

QuadCorners MultiTargetSequence::corners(int target, int index) const {
  const cv::Matx33d H = homography(target, index);
  const cv::Mat& image = prints_[static_cast<size_t>(target)].image;
  const double w = image.cols, h = image.rows;
  return {synth::apply(H, 0, 0), synth::apply(H, w, 0), synth::apply(H, w, h), synth::apply(H, 0, h)};
}

double MultiTargetSequence::visibleFraction(int target, int index) const {
  const QuadCorners q = corners(target, index);
  const std::vector<cv::Point2f> quad(q.begin(), q.end());
  const double full = std::abs(cv::contourArea(quad));
  if (!(full > 0)) return 0.0;
  const float w = static_cast<float>(options_.frameSize.width), h = static_cast<float>(options_.frameSize.height);
  const std::vector<cv::Point2f> frame{{0, 0}, {w, 0}, {w, h}, {0, h}};
  double visible = areaOf(quad, frame, nullptr);
  const cv::Matx33d toFrame = tableToFrame(index);
  for (size_t j = static_cast<size_t>(target) + 1; j < prints_.size(); ++j) {  // later prints lie on top
    const MultiTargetPrint& p = prints_[j];
    const double hw = 0.5 * p.widthM + kPaperMarginM;
    const double hh = 0.5 * p.widthM * p.image.rows / p.image.cols + kPaperMarginM;
    std::vector<cv::Point2f> paper;
    for (const cv::Point2d c : {cv::Point2d(-hw, -hh), cv::Point2d(hw, -hh), cv::Point2d(hw, hh), cv::Point2d(-hw, hh)})
      paper.push_back(synth::apply(toFrame, p.centreM.x + c.x, p.centreM.y + c.y));
    std::vector<cv::Point2f> covered;
    if (areaOf(quad, paper, &covered) > 0 && covered.size() >= 3) visible -= areaOf(covered, frame, nullptr);
  }
  return std::clamp(visible / full, 0.0, 1.0);
}

cv::Mat MultiTargetSequence::render(int index) const {
  if (index < 0 || index >= frameCount())
    throw std::out_of_range("multi-target sequence: frame " + std::to_string(index) + " outside [0, " +
                            std::to_string(frameCount()) + ")");
  const cv::Size size = options_.frameSize;
  const double t0 = index - kExposureFrames / 2, t1 = index + kExposureFrames / 2;

  // Sub-frames: enough that no print's corner moves more than about 1 px between two of them.
  double motion = 0;
  const cv::Matx33d A = tableToFrame(t0), B = tableToFrame(t1);
  for (size_t i = 0; i < prints_.size(); ++i) {
    const cv::Matx33d P = printToTable(i);
    const cv::Mat& image = prints_[i].image;
    for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(image.cols, 0), cv::Point2d(image.cols, image.rows),
                                cv::Point2d(0, image.rows)})
      motion = std::max(motion, cv::norm(synth::apply(A * P, c.x, c.y) - synth::apply(B * P, c.x, c.y)));
  }
  const int subframes = std::clamp(static_cast<int>(std::ceil(motion)), 1, kMaxSubframes);

  const double mb = backgroundMetresPerPixel_;
  const cv::Matx33d backgroundToTable(mb, 0, backgroundOriginM_.x, 0, mb, backgroundOriginM_.y, 0, 0, 1);
  const cv::Point2d backgroundCentre(background_[0].cols / 2.0, background_[0].rows / 2.0);
  cv::Mat sum = cv::Mat::zeros(size, CV_32FC3), warped;
  for (int k = 0; k < subframes; ++k) {
    const double t = subframes == 1 ? index : t0 + (t1 - t0) * (k + 0.5) / subframes;
    const cv::Matx33d H = tableToFrame(t);
    // Each surface from the pyramid level whose texels are about a frame pixel (no aliasing);
    // level pixel x ↔ level-0 pixel 2^level·x (cv::pyrDown).
    const cv::Matx33d Hb = H * backgroundToTable;
    const int lb = synth::pyramidLevel(Hb, backgroundCentre, kPyramidLevels);
    const double sb = std::ldexp(1.0, lb);
    cv::warpPerspective(background_[static_cast<size_t>(lb)], warped, Hb * cv::Matx33d(sb, 0, 0, 0, sb, 0, 0, 0, 1),
                        size, cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
    for (size_t i = 0; i < prints_.size(); ++i) {
      const cv::Mat& image = prints_[i].image;
      const int margin = (paper_[i][0].cols - image.cols) / 2;
      const cv::Matx33d Hp = H * printToTable(i) * cv::Matx33d(1, 0, -margin, 0, 1, -margin, 0, 0, 1);
      const int lp = synth::pyramidLevel(Hp, cv::Point2d(paper_[i][0].cols / 2.0, paper_[i][0].rows / 2.0),
                                         static_cast<int>(paper_[i].size()));
      const double sp = std::ldexp(1.0, lp);
      synth::compositeLayer(paper_[i][static_cast<size_t>(lp)], Hp * cv::Matx33d(sp, 0, 0, 0, sp, 0, 0, 0, 1), warped);
    }
    cv::accumulate(warped, sum);
  }
  sum *= 1.0 / subframes;

  // Lighting: gain, offset and a gradient across the frame, all slowly changing.
  const double s = index / fps();
  const double gain = 1.0 + 0.15 * std::sin(2 * kPi * s / 8.3 + phase_[5]);
  const double offset = 10.0 * std::sin(2 * kPi * s / 12.1 + phase_[6]);
  const double strength = 0.2 * std::sin(2 * kPi * s / 9.7 + phase_[7]);
  synth::applyLighting(sum, gain, offset, strength, phase_[7]);
  synth::addSensorNoise(sum, options_.noiseSigma, options_.seed, index);
  cv::Mat frame;
  sum.convertTo(frame, CV_8UC3);  // saturating
  return frame;
}

std::string MultiTargetSequence::description() const {
  return "synthetic multi-target (" + toString(options_.layout) + ", " + std::to_string(targetCount()) + " prints, " +
         std::to_string(options_.frames) + " frames " + std::to_string(options_.frameSize.width) + "x" +
         std::to_string(options_.frameSize.height) + ", seed " + std::to_string(options_.seed) + ")";
}

}  // namespace nft::replay
