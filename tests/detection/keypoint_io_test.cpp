#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "detection/keypoint_io.h"

namespace nft::detection {
namespace {

class KeypointIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nft_keypoint_io_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string errorOf(const std::string& text) {
    try {
      readKeypointsCsv(write("k.csv", text));
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(KeypointIo, ReadsBothHeadersAndKeepsLineNumbers) {
  const KeypointCsv plain = readKeypointsCsv(write("a.csv", "x,y,scale\n1.5,2.25,3\n\n10,20,1.2\n"));
  ASSERT_EQ(plain.keypoints.size(), 2u);
  EXPECT_FALSE(plain.hasAngle);
  EXPECT_FLOAT_EQ(plain.keypoints[0].x, 1.5f);
  EXPECT_FLOAT_EQ(plain.keypoints[0].y, 2.25f);
  EXPECT_FLOAT_EQ(plain.keypoints[1].scale, 1.2f);
  EXPECT_LT(plain.keypoints[1].angle, 0.0f);
  EXPECT_EQ(plain.lines, (std::vector<int>{2, 4}));
  const KeypointCsv angled = readKeypointsCsv(write("b.csv", "x,y,scale,angle\r\n1,2,3,45.5\r\n4,5,6,-1\r\n"));
  ASSERT_EQ(angled.keypoints.size(), 2u);
  EXPECT_TRUE(angled.hasAngle);
  EXPECT_FLOAT_EQ(angled.keypoints[0].angle, 45.5f);
  EXPECT_EQ(angled.keypoints[1].angle, kNoAngle);
}

TEST_F(KeypointIo, BadFilesNameFileLineAndColumn) {
  EXPECT_NE(errorOf("x,y,size\n").find("line 1: header 'x,y,size'"), std::string::npos);
  EXPECT_NE(errorOf("x,y,scale\n1,2\n").find("line 2: 2 values (expected 3)"), std::string::npos);
  EXPECT_NE(errorOf("x,y,scale\n1,2,3\n1,2,nan\n").find("line 3, column scale: 'nan'"), std::string::npos);
  EXPECT_NE(errorOf("x,y,scale\n1,2x,3\n").find("column y: '2x'"), std::string::npos);
  // A finite double beyond float's range (found by tests/fuzz/keypoint_csv_fuzzer.cpp).
  EXPECT_NE(errorOf("x,y,scale\n1,2e70,3\n").find("column y: '2e70' is not a finite number"), std::string::npos);
  EXPECT_NE(errorOf("").find("empty"), std::string::npos);
  EXPECT_THROW(readKeypointsCsv((dir_ / "missing.csv").string()), std::runtime_error);
}

TEST_F(KeypointIo, WritesDescriptorsThatReadBackExactly) {
  cv::Mat d(2, 3, CV_32F);
  d.at<float>(0, 0) = 0.1f;
  d.at<float>(0, 1) = -1e-7f;
  d.at<float>(0, 2) = 1.0f / 3.0f;
  d.at<float>(1, 0) = 0.0f;
  d.at<float>(1, 1) = 0.75f;
  d.at<float>(1, 2) = -0.5f;
  const std::string path = (dir_ / "d.csv").string();
  writeDescriptorsCsv(path, d);
  std::ifstream in(path);
  std::string header, row0, row1;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_EQ(header, "d0,d1,d2");
  float a, b, c;
  char comma;
  std::istringstream(row0) >> a >> comma >> b >> comma >> c;
  EXPECT_EQ(a, 0.1f);  // 9 significant digits round-trip a float exactly
  EXPECT_EQ(b, -1e-7f);
  EXPECT_EQ(c, 1.0f / 3.0f);
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));

  const std::vector<Keypoint> kps = {{1, 2, 3, 45}, {4, 5, 6, kNoAngle}};
  writeDescriptorsCsv(path, d, &kps);
  std::ifstream again(path);
  std::getline(again, header);
  EXPECT_EQ(header, "x,y,scale,angle,d0,d1,d2");
  EXPECT_THROW(writeDescriptorsCsv((dir_ / "no" / "such" / "dir.csv").string(), d), std::runtime_error);
  EXPECT_THROW(writeDescriptorsCsv(path, cv::Mat(2, 3, CV_64F)), std::invalid_argument);
}

}  // namespace
}  // namespace nft::detection
