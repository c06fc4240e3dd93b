// `nft_eval reference` (apps/eval/reference_track.h): the reference track made on frames whose
// ground truth is exact (the synthetic sequence, written as a frames folder) lies within a pixel
// of it; a frame without the target is written as not annotated (nan); bad input is refused
// naming the file, and no reference is left half-written.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "apps/eval/reference_track.h"
#include "suite/ground_truth.h"
#include "support/program_run.h"
#include "synthetic/synthetic_sequence.h"

namespace nft::eval {
namespace {

namespace fs = std::filesystem;

constexpr int kFrames = 8;
constexpr int kFrameWithoutTarget = 4;

/// Writes the synthetic sequence's first kFrames frames as PNGs in `root/frames` (frame
/// kFrameWithoutTarget replaced by uniform noise: no target in it) and its target image as
/// `root/target.png`; returns the sequence for its ground truth.
replay::SyntheticSequence writeFrames(const fs::path& root) {
  replay::SyntheticSequenceOptions o;
  o.frames = kFrames;
  replay::SyntheticSequence sequence(o);
  fs::create_directories(root / "frames");
  for (int i = 0; i < kFrames; ++i) {
    cv::Mat frame = sequence.render(i);
    if (i == kFrameWithoutTarget) cv::randu(frame, cv::Scalar::all(0), cv::Scalar::all(255));
    char name[32];
    std::snprintf(name, sizeof name, "%04d.png", i + 1);
    cv::imwrite((root / "frames" / name).string(), frame);
  }
  cv::imwrite((root / "target.png").string(), sequence.targetImage());
  return sequence;
}

TEST(EvalReference, ReferenceLiesWithinAPixelOfExactGroundTruthAndSkipsFramesWithoutTheTarget) {
  const fs::path root = testing::freshTempDir("nft_eval_reference");
  const replay::SyntheticSequence sequence = writeFrames(root);
  ReferenceRequest request;
  request.video = (root / "frames").string();
  request.target = (root / "target.png").string();
  request.out = (root / "gt.tsv").string();
  request.progressEvery = 0;
  const ReferenceReport report = makeReferenceTrack(request);
  EXPECT_EQ(report.frames, kFrames);
  EXPECT_EQ(report.sift, kFrames - 1);
  EXPECT_EQ(report.referenced, kFrames - 1);

  const std::vector<replay::QuadCorners> reference = replay::loadGroundTruth(request.out);
  ASSERT_EQ(reference.size(), static_cast<size_t>(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    if (i == kFrameWithoutTarget) {
      EXPECT_FALSE(replay::annotated(reference[i])) << "frame " << i << " has no target";
      continue;
    }
    ASSERT_TRUE(replay::annotated(reference[i])) << "frame " << i;
    const replay::QuadCorners truth = sequence.corners(i);
    const std::vector<cv::Point2f> found(reference[i].begin(), reference[i].end());
    EXPECT_LT(replay::alignmentError(truth, found), 1.0) << "frame " << i;
  }
}

TEST(EvalReference, BadInputIsRefusedNamingItAndNothingIsWritten) {
  const fs::path root = testing::freshTempDir("nft_eval_reference_bad");
  writeFrames(root);
  const auto message = [](const ReferenceRequest& r) {
    try {
      (void)makeReferenceTrack(r);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  ReferenceRequest request;
  request.video = (root / "frames").string();
  request.target = (root / "no_such_target.png").string();
  request.out = (root / "gt.tsv").string();
  request.progressEvery = 0;
  EXPECT_NE(message(request).find("target '" + request.target + "' does not exist"), std::string::npos);
  request.target = (root / "target.png").string();
  request.video = (root / "no_such_video.mp4").string();
  EXPECT_NE(message(request).find("no_such_video.mp4"), std::string::npos);
  request.video = (root / "frames").string();
  request.out = (root / "no_such_folder" / "gt.tsv").string();
  EXPECT_NE(message(request).find("cannot write reference '" + request.out + "'"), std::string::npos);
  EXPECT_FALSE(fs::exists(root / "gt.tsv"));
  EXPECT_FALSE(fs::exists(root / "no_such_folder"));
}

}  // namespace
}  // namespace nft::eval
