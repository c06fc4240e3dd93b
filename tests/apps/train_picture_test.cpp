// nft_train --picture (issue 47, item 7): the picture of a trained target, checked against the
// model it shows — its keypoints drawn where they are, the plain half of a half-plain print shaded
// and counted, a cone's sector label hatched outside the sector, bad paths refused up front.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <opencv2/imgcodecs.hpp>

#include "detection/target_model_io.h"
#include "support/program_run.h"

namespace {

namespace fs = std::filesystem;
using nft::testing::quoted;

const std::string kGraf = "/usr/share/doc/opencv-doc/examples/data/graf1.png";  // 800 × 640

/// Pixels of `picture` within 1 px of (x, y) that are yellow (the keypoints' crosses).
bool yellowNear(const cv::Mat& picture, float x, float y) {
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const cv::Point p(cvRound(x) + dx, cvRound(y) + dy);
      if (p.x < 0 || p.y < 0 || p.x >= picture.cols || p.y >= picture.rows) continue;
      const cv::Vec3b c = picture.at<cv::Vec3b>(p);
      if (c[2] > 200 && c[1] > 180 && c[0] < 80) return true;
    }
  return false;
}

TEST(TrainPicture, ShowsTheKeypointsAndThePlainPartsOfTheTarget) {
  const fs::path dir = nft::testing::freshTempDir("nft_train_picture");
  // graf1 with its right half a uniform grey: that half has no keypoint, no patch, no contrast.
  cv::Mat half = cv::imread(kGraf, cv::IMREAD_GRAYSCALE);
  ASSERT_FALSE(half.empty()) << kGraf << " (Debian's opencv-doc)";
  half.colRange(400, 800).setTo(128);
  ASSERT_TRUE(cv::imwrite((dir / "half.png").string(), half));
  nft::testing::ProgramRun run = nft::testing::runProgram(
      NFT_TRAIN_BINARY, quoted(dir / "half.png") + " -o " + quoted(dir / "half.nftm") + " --extractor cpu --picture " +
                            quoted(dir / "half-picture.png"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("too plain to track: 5"), std::string::npos) << "about half the cells: " << run.output;
  const cv::Mat picture = cv::imread((dir / "half-picture.png").string(), cv::IMREAD_COLOR);
  const nft::detection::TargetModel model = nft::detection::loadTargetModel((dir / "half.nftm").string());
  ASSERT_EQ(picture.cols, model.image.cols) << "the working image, 640 px wide: not scaled";
  EXPECT_GT(picture.rows, model.image.rows) << "a legend strip under it";
  int drawn = 0;
  for (int i = 0; i < model.frontalKeypoints(); ++i) {
    const nft::detection::Keypoint& k = model.keypoints[static_cast<size_t>(i)];
    drawn += yellowNear(picture, k.x, k.y) ? 1 : 0;
  }
  EXPECT_GE(drawn, model.frontalKeypoints() * 9 / 10) << "of " << model.frontalKeypoints();
  // The grey half is shaded red; the textured half mostly not.
  const cv::Scalar plain = cv::mean(picture(cv::Rect(480, 100, 120, 300)));
  EXPECT_GT(plain[2], plain[1] + 40) << "red over the plain half: " << plain;
  const cv::Vec3b corner = picture.at<cv::Vec3b>(5, 5);
  EXPECT_FALSE(corner[2] > corner[1] + 40 && corner[2] > corner[0] + 40) << "a textured corner is not shaded";

  // A cone's sector label: its bounding box's lower corners are outside the sector (no keypoint
  // there, hatched dark), its middle inside.
  run = nft::testing::runProgram(NFT_TRAIN_BINARY,
                                 quoted(fs::path(kGraf)) + " -o " + quoted(dir / "cup.nftm") +
                                     " --extractor cpu --geometry cone --top-radius-m 0.06 --bottom-radius-m 0.04 "
                                     "--side-length-m 0.15 --width-m 0.2 --picture " + quoted(dir / "cup.png"));
  ASSERT_EQ(run.status, 0) << run.output;
  const nft::detection::TargetModel cup = nft::detection::loadTargetModel((dir / "cup.nftm").string());
  for (const nft::detection::Keypoint& k : cup.keypoints)
    ASSERT_FALSE(k.y > cup.image.rows * 0.9 && (k.x < cup.image.cols * 0.03 || k.x > cup.image.cols * 0.97))
        << "a keypoint off the sector at " << k.x << ", " << k.y;
  const cv::Mat cupPicture = cv::imread((dir / "cup.png").string(), cv::IMREAD_COLOR);
  const cv::Scalar outside = cv::mean(cupPicture(cv::Rect(0, cup.image.rows - 20, 20, 20)));
  const cv::Scalar inside = cv::mean(cupPicture(cv::Rect(cup.image.cols / 2 - 10, cup.image.rows / 2, 20, 20)));
  EXPECT_LT(outside[0] + outside[1] + outside[2], 3 * 110.0) << "hatched dark: " << outside;
  EXPECT_GT(inside[0] + inside[1] + inside[2], outside[0] + outside[1] + outside[2]);

  // Refused before training: a picture OpenCV cannot write, and with --database.
  run = nft::testing::runProgram(NFT_TRAIN_BINARY, quoted(fs::path(kGraf)) + " -o " + quoted(dir / "x.nftm") +
                                                       " --extractor cpu --picture " + quoted(dir / "x.unknown"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("--picture '"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("give .png or .jpg"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(dir / "x.nftm")) << "nothing written";
  run = nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --folder " +
                                                       quoted(dir) + " --picture " + quoted(dir / "db.png"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("give no target image, --out or --picture"), std::string::npos) << run.output;
}

}  // namespace
