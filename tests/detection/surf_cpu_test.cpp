// Tests of SurfCpu against the descriptor definition in detection/surf_descriptor.h: an
// independent brute-force reference, hand-checkable patterns, invariants on real images, errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/surf_cpu.h"
#include "support/test_data.h"
#include "support/test_keypoints.h"

namespace nft::detection {
namespace {

constexpr double kPi = 3.14159265358979323846;

// ---- Independent slow reference, written straight from the definition -----------------------

// Exact mean (value / 255) of the box [x0, x1] × [y0, y1] on the piecewise-constant image with
// replicate border: every pixel cell [c - 0.5, c + 0.5] × [r - 0.5, r + 0.5] the box touches,
// inside or outside the image, contributes its overlap area times the clamped pixel's value.
double referenceBoxMean(const cv::Mat& image, double x0, double x1, double y0, double y1) {
  double sum = 0.0;
  const int c0 = static_cast<int>(std::floor(x0 + 0.5)), c1 = static_cast<int>(std::floor(x1 + 0.5));
  const int r0 = static_cast<int>(std::floor(y0 + 0.5)), r1 = static_cast<int>(std::floor(y1 + 0.5));
  for (int r = r0; r <= r1; ++r) {
    const double oy = std::min(y1, r + 0.5) - std::max(y0, r - 0.5);
    if (oy <= 0.0) continue;
    const int rr = std::clamp(r, 0, image.rows - 1);
    for (int c = c0; c <= c1; ++c) {
      const double ox = std::min(x1, c + 0.5) - std::max(x0, c - 0.5);
      if (ox <= 0.0) continue;
      sum += ox * oy * image.at<uchar>(rr, std::clamp(c, 0, image.cols - 1));
    }
  }
  return sum / ((x1 - x0) * (y1 - y0)) / 255.0;
}

// The descriptor straight from the definition, for any angle (upright is angle 0): the box
// means m(c(a, b)) at the (n+1) × (n+1) rotated box lattice, each an axis-aligned s × s box,
// then every sample's Haar responses from its four quadrants in the keypoint's frame.
std::vector<double> referenceDescriptor(const cv::Mat& image, const Keypoint& kp, DescriptorType type,
                                        double angleDegrees) {
  const int n = gridSize(type), m = subregionsPerSide(type);
  const double sigma = gaussianSigma(type);
  const double s = kp.scale, a = angleDegrees * kPi / 180.0;
  const double ux = std::cos(a), uy = std::sin(a), vx = -std::sin(a), vy = std::cos(a);
  // mean[b][a]: m(c(a, b)), c(a, b) = (x, y) + (a − n/2)·s·u + (b − n/2)·s·v.
  std::vector<std::vector<double>> mean(static_cast<size_t>(n + 1), std::vector<double>(static_cast<size_t>(n + 1)));
  for (int lb = 0; lb <= n; ++lb) {
    for (int la = 0; la <= n; ++la) {
      const double ta = la - n / 2.0, tb = lb - n / 2.0;
      const double cx = kp.x + ta * s * ux + tb * s * vx;
      const double cy = kp.y + ta * s * uy + tb * s * vy;
      mean[static_cast<size_t>(lb)][static_cast<size_t>(la)] =
          referenceBoxMean(image, cx - s / 2, cx + s / 2, cy - s / 2, cy + s / 2);
    }
  }
  auto at = [&](int la, int lb) { return mean[static_cast<size_t>(lb)][static_cast<size_t>(la)]; };
  std::vector<double> d(static_cast<size_t>(4 * m * m), 0.0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double ti = i - (n - 1) / 2.0, tj = j - (n - 1) / 2.0;
      // Quadrants c(i, j) top left, c(i+1, j) top right, c(i, j+1) bottom left, c(i+1, j+1)
      // bottom right in the keypoint's frame; no further rotation of the responses.
      const double dx = 0.5 * ((at(i + 1, j) + at(i + 1, j + 1)) - (at(i, j) + at(i, j + 1)));
      const double dy = 0.5 * ((at(i, j + 1) + at(i + 1, j + 1)) - (at(i, j) + at(i + 1, j)));
      const double w = std::exp(-(ti * ti + tj * tj) / (2.0 * sigma * sigma));
      const size_t b = static_cast<size_t>(4 * ((j / 5) * m + i / 5));
      d[b + 0] += w * dx;
      d[b + 1] += w * dy;
      d[b + 2] += std::abs(w * dx);
      d[b + 3] += std::abs(w * dy);
    }
  }
  double norm = 0.0;
  for (double v : d) norm += v * v;
  norm = std::sqrt(norm);
  if (norm > 0.0)
    for (double& v : d) v /= norm;
  return d;
}

double referenceCentroidAngle(const cv::Mat& image, const Keypoint& kp) {
  const double s = kp.scale;
  double m10 = 0.0, m01 = 0.0;
  for (int j = -kOrientationRadius; j <= kOrientationRadius; ++j) {
    for (int i = -kOrientationRadius; i <= kOrientationRadius; ++i) {
      if (i * i + j * j > kOrientationRadius * kOrientationRadius) continue;
      const double cx = kp.x + s * i, cy = kp.y + s * j;
      const double mean = referenceBoxMean(image, cx - s / 2, cx + s / 2, cy - s / 2, cy + s / 2);
      m10 += i * mean;
      m01 += j * mean;
    }
  }
  const double a = std::atan2(m01, m10) * 180.0 / kPi;
  return a < 0.0 ? a + 360.0 : a;
}

// Smallest absolute difference of two angles in degrees.
double angleDistance(double a, double b) {
  const double d = std::fmod(std::abs(a - b), 360.0);
  return std::min(d, 360.0 - d);
}

cv::Mat randomImage(cv::Size size, unsigned seed) {
  cv::Mat image(size, CV_8UC1);
  cv::RNG rng(seed);
  rng.fill(image, cv::RNG::UNIFORM, 0, 256);
  return image;
}

// ---- 1. Agreement with the reference --------------------------------------------------------

const char* name(DescriptorType type) { return type == DescriptorType::Surf64 ? "SURF-64" : "SURF-36"; }

std::vector<Keypoint> fractionalKeypoints(cv::Size size) {
  // Interior, near the edges (windows reaching far outside the image) and the exact corners.
  const std::vector<cv::Point2f> positions = {{23.37f, 17.81f},
                                              {3.2f, 36.55f},
                                              {44.9f, 2.15f},
                                              {0.0f, 0.0f},
                                              {static_cast<float>(size.width - 1), static_cast<float>(size.height - 1)}};
  std::vector<Keypoint> kps;
  for (float s : {1.0f, 1.37f, 2.5f, 4.2f}) {
    for (const cv::Point2f& p : positions) {
      Keypoint kp;
      kp.x = p.x;
      kp.y = p.y;
      kp.scale = s;
      kps.push_back(kp);
    }
  }
  return kps;
}

void expectMatchesReference(const cv::Mat& image, const std::vector<Keypoint>& kps, const cv::Mat& desc,
                            DescriptorType type, const std::vector<double>& angles, const std::string& what) {
  ASSERT_EQ(desc.rows, static_cast<int>(kps.size()));
  ASSERT_EQ(desc.cols, descriptorLength(type));
  ASSERT_EQ(desc.type(), CV_32F);
  for (size_t k = 0; k < kps.size(); ++k) {
    const std::vector<double> ref = referenceDescriptor(image, kps[k], type, angles[k]);
    double worst = 0.0;
    for (int b = 0; b < desc.cols; ++b)
      worst = std::max(worst, std::abs(desc.at<float>(static_cast<int>(k), b) - ref[static_cast<size_t>(b)]));
    EXPECT_LT(worst, 1e-4) << what << " " << name(type) << " keypoint " << k << " (" << kps[k].x << ", "
                           << kps[k].y << ") s = " << kps[k].scale << " angle " << angles[k];
  }
}

TEST(SurfCpu, UprightMatchesReference) {
  const cv::Mat image = randomImage({48, 40}, 7);
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    std::vector<Keypoint> kps = fractionalKeypoints(image.size());
    for (Keypoint& kp : kps) kp.angle = 77.0f;  // ignored when upright, and left alone
    const cv::Mat desc = SurfCpu({type, Orientation::Upright, 1}).describe(image, kps);
    for (const Keypoint& kp : kps) EXPECT_EQ(kp.angle, 77.0f);
    expectMatchesReference(image, kps, desc, type, std::vector<double>(kps.size(), 0.0), "upright");
  }
}

TEST(SurfCpu, GivenAnglesMatchReference) {
  const cv::Mat image = randomImage({48, 40}, 11);
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    for (float angle : {0.0f, 30.0f, 123.4f, 271.9f}) {
      std::vector<Keypoint> kps = fractionalKeypoints(image.size());
      for (Keypoint& kp : kps) kp.angle = angle;
      const cv::Mat desc = SurfCpu({type, Orientation::Oriented, 1}).describe(image, kps);
      for (const Keypoint& kp : kps) EXPECT_EQ(kp.angle, angle);  // given angles are kept
      expectMatchesReference(image, kps, desc, type, std::vector<double>(kps.size(), angle),
                             "angle " + std::to_string(angle));
    }
  }
}

TEST(SurfCpu, ComputedAnglesMatchReference) {
  const cv::Mat image = randomImage({48, 40}, 13);
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    std::vector<Keypoint> kps = fractionalKeypoints(image.size());
    const cv::Mat desc = SurfCpu({type, Orientation::Oriented, 1}).describe(image, kps);
    std::vector<double> angles;
    for (const Keypoint& kp : kps) {
      EXPECT_GE(kp.angle, 0.0f);
      EXPECT_LT(kp.angle, 360.0f);
      EXPECT_LT(angleDistance(kp.angle, referenceCentroidAngle(image, kp)), 1e-3)
          << "keypoint (" << kp.x << ", " << kp.y << ") s = " << kp.scale;
      angles.push_back(kp.angle);
    }
    expectMatchesReference(image, kps, desc, type, angles, "computed angle");
  }
}

// ---- 2. Hand-checkable patterns ---------------------------------------------------------------

TEST(SurfCpu, VerticalStepEdge) {
  // Columns 0..31 dark, 32..63 bright: the edge is the line x = 31.5, through the keypoint.
  cv::Mat image(64, 64, CV_8UC1, cv::Scalar(40));
  image.colRange(32, 64).setTo(200);
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    const int m = subregionsPerSide(type);
    std::vector<Keypoint> upright = {{31.5f, 30.3f, 1.5f}};
    const cv::Mat up = SurfCpu({type, Orientation::Upright, 1}).describe(image, upright);
    // Upright: dx = right box − left box >= 0 everywhere, dy = 0 (nothing changes along y). So
    // Σdx = Σ|dx| and Σdy = Σ|dy| = 0 in every subregion; with only two equal non-zero halves
    // the unit norm puts Σ over subregions of (Σdx)² at exactly 1/2.
    double sumSquares = 0.0;
    for (int b = 0; b < 4 * m * m; b += 4) {
      EXPECT_GE(up.at<float>(0, b), 0.0f);
      EXPECT_NEAR(up.at<float>(0, b + 2), up.at<float>(0, b), 1e-6);
      EXPECT_NEAR(up.at<float>(0, b + 1), 0.0f, 1e-6);
      EXPECT_NEAR(up.at<float>(0, b + 3), 0.0f, 1e-6);
      sumSquares += up.at<float>(0, b) * up.at<float>(0, b);
    }
    EXPECT_NEAR(sumSquares, 0.5, 1e-5);
    // The subregions on the edge (middle columns) carry clearly positive Σdx.
    EXPECT_GT(up.at<float>(0, 4 * ((m / 2) * m + m / 2)), 0.1f);

    // Angle 90: u = (0, 1), v = (−1, 0), so the box lattice point c(a, b) is the upright one
    // C(n − b, a), and sample (i, j)'s quadrants c(i, j), c(i+1, j), c(i, j+1), c(i+1, j+1)
    // (top left, top right, bottom left, bottom right) are C(n−j, i), C(n−j, i+1), C(n−1−j, i),
    // C(n−1−j, i+1): the quadrants of upright sample (n−1−j, i) (same Gaussian weight) turned a
    // quarter, giving dx' = dy = 0 and dy' = −dx <= 0 (the bright side lies along −v). So rotated
    // subregion (sx, sy) equals upright subregion (m−1−sy, sx) with (Σdx, Σdy) → (0, −Σdx).
    std::vector<Keypoint> turned = {{31.5f, 30.3f, 1.5f, 90.0f}};
    const cv::Mat rot = SurfCpu({type, Orientation::Oriented, 1}).describe(image, turned);
    for (int sy = 0; sy < m; ++sy) {
      for (int sx = 0; sx < m; ++sx) {
        const int b = 4 * (sy * m + sx);
        const int u = 4 * (sx * m + (m - 1 - sy));
        EXPECT_NEAR(rot.at<float>(0, b + 0), 0.0f, 1e-6);
        EXPECT_NEAR(rot.at<float>(0, b + 2), 0.0f, 1e-6);
        EXPECT_LE(rot.at<float>(0, b + 1), 1e-6f);
        EXPECT_NEAR(rot.at<float>(0, b + 1), -up.at<float>(0, u), 1e-5) << "subregion " << sx << "," << sy;
        EXPECT_NEAR(rot.at<float>(0, b + 3), up.at<float>(0, u + 2), 1e-5) << "subregion " << sx << "," << sy;
      }
    }
  }
}

// ---- 3. Invariants and edge cases ---------------------------------------------------------

TEST(SurfCpu, RowsHaveUnitNormOnRealImage) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const cv::Mat image = testing::loadGray("oxford/graf/img1.png");
  const std::vector<Keypoint> base = testing::siftKeypoints(image, 500);
  ASSERT_GT(base.size(), 100u);
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    for (Orientation orientation : {Orientation::Upright, Orientation::Oriented}) {
      std::vector<Keypoint> kps = base;
      const cv::Mat desc = SurfCpu({type, orientation, 0}).describe(image, kps);
      ASSERT_EQ(desc.rows, static_cast<int>(kps.size()));
      for (int r = 0; r < desc.rows; ++r) EXPECT_NEAR(cv::norm(desc.row(r)), 1.0, 1e-5) << "row " << r;
    }
  }
}

TEST(SurfCpu, UniformImageGivesZeroRows) {
  const cv::Mat image(60, 80, CV_8UC1, cv::Scalar(137));
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    for (Orientation orientation : {Orientation::Upright, Orientation::Oriented}) {
      std::vector<Keypoint> kps = {{0.0f, 0.0f, 1.0f}, {40.3f, 21.7f, 2.2f}, {79.0f, 59.0f, 12.0f},
                                   {13.0f, 50.5f, 0.3f, 45.0f}, {60.0f, 30.0f, 80.0f}};
      const cv::Mat desc = SurfCpu({type, orientation, 1}).describe(image, kps);
      EXPECT_EQ(cv::countNonZero(desc != 0.0f), 0) << name(type) << "\n" << desc;
    }
  }
}

TEST(SurfCpu, NoKeypoints) {
  const cv::Mat image = randomImage({32, 32}, 1);
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    std::vector<Keypoint> none;
    const cv::Mat desc = SurfCpu({type, Orientation::Oriented, 0}).describe(image, none);
    EXPECT_EQ(desc.rows, 0);
    EXPECT_EQ(desc.cols, descriptorLength(type));
    EXPECT_EQ(desc.type(), CV_32F);
  }
}

/// SURF-64 of `kps` in `image`, upright and oriented, against the brute-force reference.
void expectBothOrientationsMatchReference(const cv::Mat& image, const std::vector<Keypoint>& kps,
                                          const std::string& label) {
  for (Orientation orientation : {Orientation::Upright, Orientation::Oriented}) {
    std::vector<Keypoint> copy = kps;
    const cv::Mat desc = SurfCpu({DescriptorType::Surf64, orientation, 1}).describe(image, copy);
    std::vector<double> angles;
    for (const Keypoint& kp : copy) angles.push_back(orientation == Orientation::Upright ? 0.0 : kp.angle);
    expectMatchesReference(image, copy, desc, DescriptorType::Surf64, angles, label);
  }
}

TEST(SurfCpu, KeypointsAtImageCorners) {
  const cv::Mat image = randomImage({50, 30}, 3);
  std::vector<Keypoint> kps = {{0.0f, 0.0f, 3.0f}, {49.0f, 0.0f, 3.0f}, {0.0f, 29.0f, 3.0f}, {49.0f, 29.0f, 3.0f}};
  expectBothOrientationsMatchReference(image, kps, "corner");
}

TEST(SurfCpu, ThreadCountDoesNotChangeResults) {
  // Textured, large enough and with enough keypoints that the parallel path really splits.
  cv::Mat image = randomImage({320, 240}, 5);
  cv::GaussianBlur(image, image, cv::Size(0, 0), 1.5);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> ux(0.0f, 319.0f), uy(0.0f, 239.0f), us(1.0f, 6.0f);
  std::vector<Keypoint> kps(3000);
  for (Keypoint& kp : kps) kp = {ux(rng), uy(rng), us(rng)};
  for (DescriptorType type : {DescriptorType::Surf64, DescriptorType::Surf36}) {
    for (Orientation orientation : {Orientation::Upright, Orientation::Oriented}) {
      std::vector<Keypoint> serial = kps, pool = kps, two = kps;
      const cv::Mat a = SurfCpu({type, orientation, 1}).describe(image, serial);
      const cv::Mat b = SurfCpu({type, orientation, 0}).describe(image, pool);
      const cv::Mat c = SurfCpu({type, orientation, 2}).describe(image, two);
      EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0);
      EXPECT_EQ(cv::norm(a, c, cv::NORM_INF), 0.0);
      for (size_t k = 0; k < kps.size(); ++k) {
        ASSERT_EQ(serial[k].angle, pool[k].angle);
        ASSERT_EQ(serial[k].angle, two[k].angle);
      }
    }
  }
}

TEST(SurfCpu, BgrInputIsConvertedToGray) {
  const cv::Mat gray = randomImage({40, 40}, 9);
  cv::Mat bgr;
  cv::cvtColor(gray, bgr, cv::COLOR_GRAY2BGR);  // B = G = R, converts back to the same gray
  std::vector<Keypoint> a = {{20.5f, 19.25f, 1.7f}}, b = a;
  const SurfCpu surf({DescriptorType::Surf64, Orientation::Oriented, 1});
  EXPECT_EQ(cv::norm(surf.describe(gray, a), surf.describe(bgr, b), cv::NORM_INF), 0.0);
}

TEST(SurfCpu, ImagesOverTheSignedIntegralRangeMatchReference) {
  // 3100 × 3100 pixels of 200..255: the integral image passes 2³¹ (about 2.2e9 at the far
  // corner), so SurfCpu sums it modulo 2³² itself (cv::integral's 32-bit sums would overflow);
  // box sums, differences of it, stay exact. Keypoints where the integral is beyond 2³¹ and one
  // whose window reaches past the image's far corner, against the brute-force reference.
  cv::Mat image(3100, 3100, CV_8UC1);
  cv::RNG(11).fill(image, cv::RNG::UNIFORM, 200, 256);
  ASSERT_GT(cv::sum(image)[0], 2147483648.0);
  std::vector<Keypoint> kps = {{3050.3f, 3020.7f, 3.0f}, {2900.0f, 3099.0f, 4.24f}, {3099.0f, 3099.0f, 2.0f}};
  expectBothOrientationsMatchReference(image, kps, "3100 x 3100");
}

// ---- 4. Errors ------------------------------------------------------------------------------

std::string errorOf(const cv::Mat& image, std::vector<Keypoint> kps) {
  try {
    SurfCpu().describe(image, kps);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(SurfCpu, RejectsBadInput) {
  const cv::Mat good = randomImage({20, 10}, 2);
  const std::string empty = errorOf(cv::Mat(), {});
  EXPECT_NE(empty.find("empty image"), std::string::npos) << empty;
  const std::string type = errorOf(cv::Mat(10, 10, CV_32F, cv::Scalar(0.5)), {{1.f, 1.f, 1.f}});
  EXPECT_NE(type.find("CV_32FC1"), std::string::npos) << type;
  const std::string outside = errorOf(good, {{1.f, 1.f, 1.f}, {20.f, 5.f, 1.f}});
  EXPECT_NE(outside.find("keypoint 1"), std::string::npos) << outside;
  EXPECT_NE(outside.find("x = 20"), std::string::npos) << outside;
  const std::string zeroScale = errorOf(good, {{1.f, 1.f, 0.f}});
  EXPECT_NE(zeroScale.find("keypoint 0: scale = 0"), std::string::npos) << zeroScale;
  const std::string negativeScale = errorOf(good, {{1.f, 1.f, 1.f}, {2.f, 2.f, 1.f}, {3.f, 3.f, -2.f}});
  EXPECT_NE(negativeScale.find("keypoint 2: scale = -2"), std::string::npos) << negativeScale;
  EXPECT_THROW(SurfCpu({DescriptorType::Surf64, Orientation::Upright, -1}), std::invalid_argument);
  // A box of s > 2899 in an image of more than 8,421,504 pixels could sum past 2³¹.
  const cv::Mat wide(2903, 2903, CV_8UC1, cv::Scalar(255));
  const std::string huge = errorOf(wide, {{10.f, 10.f, 3.f}, {1000.f, 1000.f, 2900.f}});
  EXPECT_NE(huge.find("keypoint 1: scale = 2900"), std::string::npos) << huge;
  EXPECT_EQ(errorOf(wide, {{1000.f, 1000.f, 2899.f}}), "(no exception)");
}

// ---- 5. Orientation -------------------------------------------------------------------------

TEST(SurfCpu, CentroidAngleFollowsRamp) {
  // I = 128 + 8·((x, y) − c)·(cos φ, sin φ): for a linear ramp each s×s box mean is the ramp at
  // its centre, so m10 ∝ cos φ·Σi², m01 ∝ sin φ·Σj² (Σij = 0 on the disc) and atan2 gives φ.
  // The slope is steep so that 8-bit rounding cannot hide the small component near the axes
  // (φ = 359 fails at slope 3: its y part, 0.05 levels per pixel, rounds away), yet the disc
  // (radius 6.5s + 0.4 <= 13.4 px) stays inside [0, 255].
  const cv::Point2d c(60.0, 60.0);
  for (double phi : {0.0, 37.0, 90.0, 135.0, 212.5, 300.0, 359.0}) {
    cv::Mat image(121, 121, CV_8UC1);
    const double cp = std::cos(phi * kPi / 180.0), sp = std::sin(phi * kPi / 180.0);
    for (int y = 0; y < image.rows; ++y)
      for (int x = 0; x < image.cols; ++x)
        image.at<uchar>(y, x) = cv::saturate_cast<uchar>(128.0 + 8.0 * ((x - c.x) * cp + (y - c.y) * sp));
    for (float s : {1.37f, 2.0f}) {
      std::vector<Keypoint> kps = {{60.3f, 59.6f, s}};
      SurfCpu({DescriptorType::Surf64, Orientation::Oriented, 1}).describe(image, kps);
      EXPECT_LT(angleDistance(kps[0].angle, phi), 1.0) << "phi " << phi << " s " << s << ": " << kps[0].angle;
    }
  }
}

double meanCosine(const cv::Mat& a, const cv::Mat& b) {
  double sum = 0.0;
  for (int r = 0; r < a.rows; ++r) sum += a.row(r).dot(b.row(r));
  return sum / a.rows;
}

TEST(SurfCpu, OrientedDescriptorsSurviveQuarterTurn) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const cv::Mat image = testing::loadGray("oxford/graf/img1.png");
  cv::Mat rotated;
  cv::rotate(image, rotated, cv::ROTATE_90_CLOCKWISE);
  // The mapping the test relies on: pixel (x, y) goes to (H − 1 − y, x).
  ASSERT_EQ(rotated.at<uchar>(17, image.rows - 1 - 5), image.at<uchar>(5, 17));
  const std::vector<Keypoint> base = testing::siftKeypoints(image, 1000);
  ASSERT_GE(base.size(), 900u);
  std::vector<Keypoint> mapped = base;
  for (Keypoint& kp : mapped) {
    const float x = kp.x;
    kp.x = static_cast<float>(image.rows - 1) - kp.y;
    kp.y = x;
  }
  double cosine[2] = {};
  for (Orientation orientation : {Orientation::Upright, Orientation::Oriented}) {
    std::vector<Keypoint> before = base, after = mapped;
    const SurfCpu surf({DescriptorType::Surf64, orientation, 0});
    const cv::Mat a = surf.describe(image, before);
    const cv::Mat b = surf.describe(rotated, after);
    cosine[orientation == Orientation::Oriented] = meanCosine(a, b);
    if (orientation == Orientation::Oriented) {
      // A direction (cos a, sin a) maps to (−sin a, cos a): the angle grows by 90 degrees.
      int agree = 0;
      for (size_t k = 0; k < base.size(); ++k) agree += angleDistance(after[k].angle, before[k].angle + 90.0) < 1.0;
      EXPECT_GE(agree, static_cast<int>(0.95 * static_cast<double>(base.size())));
    }
  }
  std::cout << "quarter turn, graf img1, " << base.size() << " keypoints: mean cosine upright " << cosine[0]
            << ", oriented " << cosine[1] << "\n";
  RecordProperty("upright_mean_cosine", std::to_string(cosine[0]));
  RecordProperty("oriented_mean_cosine", std::to_string(cosine[1]));
  EXPECT_GE(cosine[1], 0.9);
  EXPECT_LT(cosine[0], cosine[1] - 0.2);
}

}  // namespace
}  // namespace nft::detection
