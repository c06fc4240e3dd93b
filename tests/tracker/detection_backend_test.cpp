// The detection lane with either backend (issue 22): `auto` resolves by the capability probe
// (CPU lanes on llvmpipe), the GPU lanes (SURF-ES + GpuMatcher) and the CPU lanes (SurfCpu +
// BFMatcher) find tmt_bookI in the same frames at the same place, cross-checking works with
// either, and a describer/matcher pair can be handed to the lane directly.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "detection/backend.h"
#include "detection/surf_cpu.h"
#include "detection/target_trainer.h"
#include "gpu/gpu_test.h"
#include "tracker/detection_lane.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"

namespace nft::tracker {
namespace {

using detection::Backend;

class DetectionBackendTest : public gpu::testing::GpuTest {
 protected:
  static DetectionLaneOptions optionsFor(Backend descriptor, Backend matcher) {
    DetectionLaneOptions o;
    o.descriptorBackend = descriptor;
    o.matcherBackend = matcher;
    return o;
  }
};

TEST_F(DetectionBackendTest, AutoTakesTheCpuLanesOnASoftwareRendererAndForcedBackendsStay) {
  NFT_REQUIRE_DATA("video/tmt_bookI/target.png");
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  const CameraCalibration cal = defaultCalibration(testing::kTmtFrameSize);
  const DetectionLane autoLane(caps(), model, cal);
  const Backend expected = caps().softwareRenderer ? Backend::Cpu : Backend::Gpu;
  EXPECT_EQ(autoLane.descriptorBackend(), expected) << caps().glRenderer;
  EXPECT_EQ(autoLane.matcherBackend(), expected) << caps().glRenderer;
  if (gpu::isSoftwareRenderer(caps().glRenderer)) {
    EXPECT_EQ(autoLane.descriptorBackend(), Backend::Cpu);
  }
  const DetectionLane mixed(caps(), model, cal, optionsFor(Backend::Gpu, Backend::Cpu));
  EXPECT_EQ(mixed.descriptorBackend(), Backend::Gpu);
  EXPECT_EQ(mixed.matcherBackend(), Backend::Cpu);
  const DetectionLane mixed2(caps(), model, cal, optionsFor(Backend::Cpu, Backend::Gpu));
  EXPECT_EQ(mixed2.descriptorBackend(), Backend::Cpu);
  EXPECT_EQ(mixed2.matcherBackend(), Backend::Gpu);
}

// Frames 0, 100, ..., 500: every backend combination (and the cross-check) finds the target where
// the all-GPU lane does, within a few pixels of it and of gt.tsv.
TEST_F(DetectionBackendTest, EveryBackendCombinationFindsTheTargetWhereTheGpuLaneDoes) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  const CameraCalibration cal = defaultCalibration(testing::kTmtFrameSize);
  const auto truth = testing::loadTmtGroundTruth();
  const auto frames = testing::loadTmtFrames(100);
  ASSERT_EQ(frames.size(), 6u);
  DetectionLane gpuLane(caps(), model, cal, optionsFor(Backend::Gpu, Backend::Gpu));
  std::vector<std::optional<Detection>> reference;
  int foundByGpu = 0;
  for (const auto& f : frames) {
    reference.push_back(gpuLane.detect(f.image));
    foundByGpu += reference.back() ? 1 : 0;
  }
  ASSERT_GE(foundByGpu, 3);
  struct Variant {
    Backend descriptor, matcher;
    bool crossCheck;
  };
  for (const Variant v : {Variant{Backend::Cpu, Backend::Cpu, false}, Variant{Backend::Gpu, Backend::Cpu, false},
                          Variant{Backend::Cpu, Backend::Gpu, false}, Variant{Backend::Cpu, Backend::Cpu, true},
                          Variant{Backend::Gpu, Backend::Gpu, true}}) {
    DetectionLaneOptions o = optionsFor(v.descriptor, v.matcher);
    o.matching.crossCheck = v.crossCheck;
    DetectionLane lane(caps(), model, cal, o);
    const std::string name = std::string(detection::toString(v.descriptor)) + "/" +
                             std::string(detection::toString(v.matcher)) + (v.crossCheck ? " cross-check" : "");
    int both = 0, compared = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
      const std::optional<Detection> d = lane.detect(frames[i].image);
      if (!d || !reference[i]) continue;
      ++both;
      const auto& gt = truth.at(static_cast<size_t>(frames[i].index)).corners;
      // Within 10 px of gt.tsv (the success threshold of nft_eval): the far-tilted frame 300,
      // found through the tilted views, is 9.0 px off with cross-check (unrefined detections).
      EXPECT_LT(testing::alignmentError(d->corners, gt), 10.0) << name << " frame " << frames[i].index;
      const std::array<cv::Point2f, 4> gpuCorners{reference[i]->corners[0], reference[i]->corners[1],
                                                  reference[i]->corners[2], reference[i]->corners[3]};
      EXPECT_LT(testing::alignmentError(d->corners, gpuCorners), 8.0) << name << " frame " << frames[i].index;
      if (v.crossCheck) {  // a subset of the ratio test's matches over the same (all) keypoints
        DetectionLaneOptions onePass = o;
        onePass.matching.crossCheck = false;
        onePass.firstPassFraction = 1.0;
        const std::optional<Detection> plain = DetectionLane(caps(), model, cal, onePass).detect(frames[i].image);
        if (!plain) continue;  // MAGSAC may reject the ratio test's larger share of outliers
        EXPECT_EQ(d->keypoints, plain->keypoints) << name;
        EXPECT_LE(d->matches, plain->matches) << name;
        ++compared;
      }
    }
    EXPECT_GE(both, foundByGpu - 1) << name;
    if (v.crossCheck) {
      EXPECT_GE(compared, 3) << name;
    }
  }
}

// A lane built from a describer and a matcher handed over; a describer of another descriptor type
// than the model's is refused, naming it.
TEST_F(DetectionBackendTest, AHandedOverDescriberMustDescribeAsTheModel) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const detection::TargetModel model = testing::trainTmtTarget(caps());
  const CameraCalibration cal = defaultCalibration(testing::kTmtFrameSize);
  detection::SurfEsOptions surf;
  surf.maxWidth = 800;
  surf.maxHeight = 600;
  surf.maxKeypoints = 1000;
  DetectionLane lane(detection::makeKeypointDescriber(Backend::Cpu, caps(), surf),
                     detection::makeTargetMatcher(Backend::Cpu, caps(), 1000), model, cal);
  EXPECT_EQ(lane.descriptorBackend(), Backend::Cpu);
  const auto frames = testing::loadTmtFrames(200);
  ASSERT_FALSE(frames.empty());
  EXPECT_TRUE(lane.detect(frames.front().image).has_value()) << lane.lastRejection();
  surf.type = detection::DescriptorType::Surf36;
  try {
    DetectionLane wrong(detection::makeKeypointDescriber(Backend::Cpu, caps(), surf),
                        detection::makeTargetMatcher(Backend::Cpu, caps(), 1000), model, cal);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("descriptor type"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DetectionLane(nullptr, detection::makeTargetMatcher(Backend::Cpu, caps(), 10), model, cal),
               std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
