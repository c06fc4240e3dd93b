// Issue 47, item 3: curved and flat targets in one Session — added one by one or from one target
// database — recognised among each other (one vocabulary, one shortlist; a curved candidate
// verified by PnP on its surface), each followed by its own tracking lane, synchronously and with
// the detection on the worker (a replayed delay: deterministic).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "config/config.h"
#include "detection/label_surface.h"
#include "detection/label_view.h"
#include "detection/target_database.h"
#include "gpu/capabilities.h"
#include "nft/nft.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "support/program_run.h"
#include "support/synchronous_session.h"

namespace {

const std::string kSamples = "/usr/share/doc/opencv-doc/examples/data/";
constexpr double kRadiusM = 0.05, kLabelWidthM = 0.1, kPosterWidthM = 0.3;

cv::Matx33d cameraK() { return {600, 0, 330, 0, 600, 230, 0, 0, 1}; }

/// The can's label: graf1.png at 640×512 (0.1 m of arc on a 5 cm can: 115°).
cv::Mat labelImage() {
  cv::Mat graf = cv::imread(kSamples + "graf1.png", cv::IMREAD_GRAYSCALE);
  if (!graf.empty()) cv::resize(graf, graf, cv::Size(640, 512), 0, 0, cv::INTER_AREA);
  return graf;
}

nft::detection::LabelSurface canSurface(const cv::Mat& label) {
  nft::detection::TargetGeometry g;
  g.kind = nft::detection::GeometryKind::Cylinder;
  g.radiusM = kRadiusM;
  return {g, kLabelWidthM, label.size()};
}

/// Frame k of the scene: the can 0.2 m away, 5 cm to the right of the optical axis, turned
/// −30° + k° about its axis (its label's middle turning towards the camera); the poster (home.jpg)
/// on the left, moving 2 px a frame to the right. `camera` gets the can's true camera, `posterH`
/// the poster's homography (its pixels → the frame's).
cv::Mat sceneFrame(int k, const cv::Mat& label, const cv::Mat& poster, nft::detection::LabelCamera& camera,
                   cv::Matx33d& posterH) {
  const nft::detection::LabelSurface surface = canSurface(label);
  camera = nft::detection::turnedCamera(surface, {320, 256}, (-30.0 + k) * M_PI / 180, 0.2, {640, 480});
  camera.K = cameraK();
  camera.t[0] += 0.05;  // the can 150 px right of the principal point
  const double s = 240.0 / poster.cols;  // the poster 240 px wide, a little tilted
  const std::vector<cv::Point2f> from = {{0, 0}, {float(poster.cols), 0}, {float(poster.cols), float(poster.rows)},
                                         {0, float(poster.rows)}};
  const float x = 20.0f + 2.0f * static_cast<float>(k), y = 130.0f;
  const std::vector<cv::Point2f> to = {{x, y},
                                       {x + float(240), y + 10},
                                       {x + float(235), y + float(s * poster.rows) + 5},
                                       {x + 5, y + float(s * poster.rows)}};
  posterH = cv::getPerspectiveTransform(from, to);
  cv::Mat frame(480, 640, CV_8UC1, cv::Scalar(110));
  cv::warpPerspective(poster, frame, posterH, frame.size(), cv::INTER_LINEAR, cv::BORDER_TRANSPARENT);
  cv::Mat labelMap;
  const cv::Mat can = nft::detection::renderLabel(label, surface, camera, &labelMap, nullptr, 110);
  cv::Mat u;
  cv::extractChannel(labelMap, u, 0);
  can.copyTo(frame, u >= 0);
  return frame;
}

nft::SessionOptions sceneOptions(int delayFrames) {
  nft::SessionOptions options = nft::testing::synchronous();
  nft::Calibration calibration;
  calibration.K = cameraK();
  calibration.imageSize = cv::Size(640, 480);
  options.calibration = calibration;
  options.config.tracking.asyncDelayFrames = delayFrames;
  return options;
}

const nft::TargetResult* resultOf(const nft::FrameResult& r, nft::TargetId id) {
  for (const nft::TargetResult& t : r.targets)
    if (t.id == id) return &t;
  return nullptr;
}

/// Plays the scene's 30 frames: from frame `delay` on, both targets are found on every frame,
/// the can's pose where the frame was made from and the poster's corners where it was warped
/// to, and after its first frame each is followed by its tracking lane, not detected again.
void expectBothFollowed(nft::Session& session, nft::TargetId canId, nft::TargetId posterId, int delay,
                        const cv::Mat& label, const cv::Mat& poster) {
  int canTracked = 0, posterTracked = 0;
  double worstRotationDeg = 0, worstTranslation = 0, worstPosterPx = 0;
  for (int k = 0; k < 30; ++k) {
    nft::detection::LabelCamera camera;
    cv::Matx33d posterH;
    const cv::Mat frame = sceneFrame(k, label, poster, camera, posterH);
    const nft::FrameResult r = session.process(frame);
    const nft::TargetResult* can = resultOf(r, canId);
    const nft::TargetResult* flat = resultOf(r, posterId);
    if (k < delay) continue;  // the worker's first search is reported `delay` frames later
    ASSERT_TRUE(can && can->found) << "frame " << k << ": the can: " << (can ? can->rejection : "not reported");
    ASSERT_TRUE(flat && flat->found) << "frame " << k << ": the poster: " << (flat ? flat->rejection : "not reported");
    const double rotationDeg =
        std::acos(std::clamp((cv::trace(can->pose.R * camera.R.t()) - 1) / 2, -1.0, 1.0)) * 180 / M_PI;
    const double translation = cv::norm(can->pose.t - camera.t) / cv::norm(camera.t);
    worstRotationDeg = std::max(worstRotationDeg, rotationDeg);
    worstTranslation = std::max(worstTranslation, translation);
    const std::vector<cv::Point2f> truth = {{0, 0},
                                            {float(poster.cols), 0},
                                            {float(poster.cols), float(poster.rows)},
                                            {0, float(poster.rows)}};
    std::vector<cv::Point2f> expected;
    cv::perspectiveTransform(truth, expected, posterH);
    for (size_t i = 0; i < 4; ++i)
      worstPosterPx = std::max(worstPosterPx, static_cast<double>(cv::norm(flat->corners[i] - expected[i])));
    if (k > delay) {
      canTracked += can->state == nft::TrackingState::Tracking;
      posterTracked += flat->state == nft::TrackingState::Tracking;
    }
    EXPECT_GE(can->outline.size(), 1u) << "frame " << k << ": the label's outline";
  }
  std::printf("delay %d: the can %.2f deg / %.2f %% off at worst, tracked on %d frames; the poster %.2f px off at "
              "worst, tracked on %d\n",
              delay, worstRotationDeg, 100 * worstTranslation, canTracked, worstPosterPx, posterTracked);
  EXPECT_LT(worstRotationDeg, 1.0);
  EXPECT_LT(worstTranslation, 0.01);
  EXPECT_LT(worstPosterPx, 3.0);
  const int followed = 29 - delay;  // the frames after the first one each was found on
  EXPECT_GE(canTracked, followed - 2) << "the can is followed by its lane on its surface";
  EXPECT_GE(posterTracked, followed - 2);
}

TEST(CurvedBesideFlat, ACanAndAPosterAddedOneByOneAreBothFoundAndFollowed) {
  const cv::Mat label = labelImage(), poster = cv::imread(kSamples + "home.jpg", cv::IMREAD_GRAYSCALE);
  ASSERT_FALSE(label.empty());
  ASSERT_FALSE(poster.empty());
  for (int delay : {0, 3}) {
    SCOPED_TRACE("async_delay_frames " + std::to_string(delay));
    nft::Session session(sceneOptions(delay));
    nft::TargetOptions can;
    can.name = "can";
    can.widthMetres = kLabelWidthM;
    can.geometry = nft::TargetGeometry::cylinder(kRadiusM);
    const nft::TargetId canId = session.addTarget(label, can);
    const nft::TargetId posterId = session.addTarget(poster, "poster", kPosterWidthM);
    expectBothFollowed(session, canId, posterId, delay, label, poster);
  }
}

TEST(CurvedBesideFlat, ADatabaseHoldingACanAPosterAndTenOthersFindsAndFollowsBoth) {
  // Twelve targets: more than MultiTargetDetectorOptions::verifyAllUpTo (8), so each search
  // verifies the inverted index's shortlist only, flat and curved candidates ranked together.
  const cv::Mat label = labelImage(), poster = cv::imread(kSamples + "home.jpg", cv::IMREAD_GRAYSCALE);
  ASSERT_FALSE(label.empty());
  ASSERT_FALSE(poster.empty());
  nft::Session session(sceneOptions(0));  // its GL context, current for the training below
  nft::session::PipelineOptions o = nft::session::pipelineOptions(nft::config::Config{});
  o.training.widthMetres = kPosterWidthM;
  nft::session::LoadedTarget flat = nft::session::trainTargetImage(poster, "home.jpg", o, nft::gpu::probeCapabilities());
  o.training.widthMetres = kLabelWidthM;
  o.training.geometry = canSurface(label).geometry();
  nft::session::LoadedTarget can = nft::session::trainTargetImage(label, "graf1.png", o, nft::gpu::probeCapabilities());
  ASSERT_TRUE(can.model.geometry.curved());
  const std::filesystem::path dir = nft::testing::freshTempDir("nft_curved_database");
  const std::string path = (dir / "mixed.nftdb").string();
  std::vector<std::pair<std::string, nft::detection::TargetModel>> models;
  models.emplace_back("poster", std::move(flat.model));
  models.emplace_back("can", std::move(can.model));
  o.training.geometry = {};
  o.training.widthMetres = kPosterWidthM;
  for (const char* other : {"baboon.jpg", "fruits.jpg", "butterfly.jpg", "messi5.jpg", "aero3.jpg", "chicky_512.png",
                            "starry_night.jpg", "box.png", "building.jpg", "pic1.png"}) {
    const cv::Mat image = cv::imread(kSamples + other, cv::IMREAD_GRAYSCALE);
    ASSERT_FALSE(image.empty()) << other;
    models.emplace_back(other, nft::session::trainTargetImage(image, other, o, nft::gpu::probeCapabilities()).model);
  }
  nft::detection::TargetDatabase::build(std::move(models)).save(path);

  const std::vector<nft::TargetId> ids = session.loadDatabase(path);
  ASSERT_EQ(ids.size(), 12u);
  EXPECT_EQ(session.target(ids[1]).geometry.kind, nft::GeometryKind::Cylinder) << "the geometry kept in the file";
  EXPECT_EQ(session.target(ids[1]).geometry.radiusMetres, kRadiusM);
  EXPECT_EQ(session.target(ids[0]).geometry.kind, nft::GeometryKind::Planar);
  expectBothFollowed(session, ids[1], ids[0], 0, label, poster);
}

}  // namespace
