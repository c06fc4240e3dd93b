// Tests of camera calibration loading (tracker/camera_calibration.h): a file written the way
// OpenCV's calibration sample writes it round-trips, aliases work, bad files fail naming the key
// and the file, and the default and the rescaling give their documented values.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

#include <unistd.h>

#include <opencv2/core.hpp>

#include "tracker/camera_calibration.h"

namespace nft::tracker {
namespace {

namespace fs = std::filesystem;

// A fresh temporary folder per test, removed afterwards.
class CalibrationFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("nft_calibration_test_" + std::string(info->name()) + "_" +
                                        std::to_string(static_cast<long long>(::getpid())));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string writeText(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }
  fs::path dir_;
};

const cv::Matx33d kK(812.5, 0.0, 401.25, 0.0, 809.75, 297.5, 0.0, 0.0, 1.0);

// Writes what samples/cpp/calibration.cpp's saveCameraParams() writes.
std::string writeOpenCvSampleFile(const std::string& file, const char* kKey = "camera_matrix",
                                  const char* dKey = "distortion_coefficients") {
  cv::FileStorage fs(file, cv::FileStorage::WRITE);
  fs << "calibration_time" << "Mon Jan  1 00:00:00 2024";
  fs << "nframes" << 25;
  fs << "image_width" << 800;
  fs << "image_height" << 600;
  fs << "board_width" << 9;
  fs << "board_height" << 6;
  fs << "square_size" << 0.025;
  fs << "flags" << 0;
  fs << kKey << cv::Mat(kK);
  fs << dKey << (cv::Mat_<double>(5, 1) << -0.21, 0.09, 0.001, -0.002, 0.03);
  fs << "avg_reprojection_error" << 0.31;
  return file;
}

std::string yamlWithK(const std::string& kData, int rows = 3, int cols = 3) {
  return "%YAML:1.0\n---\nimage_width: 800\nimage_height: 600\ncamera_matrix: !!opencv-matrix\n   rows: " +
         std::to_string(rows) + "\n   cols: " + std::to_string(cols) + "\n   dt: d\n   data: [ " + kData + " ]\n";
}

// Expects loadCalibration(file) to throw a runtime_error whose message names the file and `key`.
void expectError(const std::string& file, const std::string& key, const std::string& phrase) {
  try {
    loadCalibration(file);
    FAIL() << "no error for " << file;
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find("'" + key + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(phrase), std::string::npos) << what;
  }
}

TEST_F(CalibrationFile, ReadsWhatOpenCvsCalibrationSampleWrites) {
  for (const std::string name : {"camera.yml", "camera.xml"}) {
    const std::string file = writeOpenCvSampleFile(path(name));
    const CameraCalibration c = loadCalibration(file);
    EXPECT_EQ(c.imageSize, cv::Size(800, 600)) << name;
    EXPECT_EQ(cv::norm(c.K - kK), 0.0) << name;
    ASSERT_EQ(c.distortion.type(), CV_64F);
    ASSERT_EQ(c.distortion.rows, 1);
    ASSERT_EQ(c.distortion.cols, 5);
    EXPECT_DOUBLE_EQ(c.distortion.at<double>(0, 0), -0.21);
    EXPECT_DOUBLE_EQ(c.distortion.at<double>(0, 4), 0.03);
    EXPECT_EQ(c.source, file);
  }
}

TEST_F(CalibrationFile, AcceptsCameraMatrixAndDistCoeffsAliasesAndNoDistortion) {
  const CameraCalibration c = loadCalibration(writeOpenCvSampleFile(path("alias.yml"), "cameraMatrix", "distCoeffs"));
  EXPECT_EQ(cv::norm(c.K - kK), 0.0);
  EXPECT_EQ(c.distortion.cols, 5);
  const CameraCalibration none = loadCalibration(writeText("nodist.yml", yamlWithK("800, 0, 399.5, 0, 800, 299.5, 0, 0, 1")));
  EXPECT_TRUE(none.distortion.empty());
  EXPECT_DOUBLE_EQ(none.K(0, 2), 399.5);
}

TEST_F(CalibrationFile, ErrorsNameTheFileAndTheKey) {
  expectError(writeText("nok.yml", "%YAML:1.0\n---\nimage_width: 800\nimage_height: 600\n"), "camera_matrix", "missing");
  expectError(writeText("noheight.yml", "%YAML:1.0\n---\nimage_width: 800\ncamera_matrix: !!opencv-matrix\n   rows: 3\n"
                                        "   cols: 3\n   dt: d\n   data: [ 800, 0, 400, 0, 800, 300, 0, 0, 1 ]\n"),
              "image_height", "missing");
  expectError(writeText("singular.yml", yamlWithK("1, 2, 3, 2, 4, 6, 0, 0, 1")), "camera_matrix", "singular");
  expectError(writeText("negf.yml", yamlWithK("-800, 0, 400, 0, 800, 300, 0, 0, 1")), "camera_matrix", "focal");
  expectError(writeText("not3x3.yml", yamlWithK("800, 0, 400, 0, 800, 300", 2, 3)), "camera_matrix", "3x3");
  expectError(writeText("nan.yml", yamlWithK(".nan, 0, 400, 0, 800, 300, 0, 0, 1")), "camera_matrix", "NaN");
  // A corrupt size is refused before OpenCV allocates it (found by tests/fuzz/calibration_fuzzer.cpp).
  expectError(writeText("hugecols.yml", yamlWithK("1, 2", 1, 2000000000)), "camera_matrix", "at most 16x16");
  // A top level that is not a map: OpenCV's lookup asserts; named as the file's structure.
  try {
    loadCalibration(writeText("sequence.yml", "%YAML:1.0\n- camera_matrix: 1\n"));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("sequence.yml': unexpected structure"), std::string::npos) << e.what();
  }
  // OpenCV's parser throws std::length_error on this key: a runtime_error naming the file.
  try {
    loadCalibration(writeText("badkey.yml", "%YAML:1.0\n---\ncamerix: !!opencv-matrix\n   rows: 3\n   :dt f\n"));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("badkey.yml': cannot be parsed"), std::string::npos) << e.what();
  }
  expectError(writeText("text.yml", "%YAML:1.0\n---\nimage_width: 800\nimage_height: 600\ncamera_matrix: \"eight hundred\"\n"),
              "camera_matrix", "not a matrix");
  expectError(writeText("textw.yml", "%YAML:1.0\n---\nimage_width: wide\nimage_height: 600\ncamera_matrix: !!opencv-matrix\n"
                                     "   rows: 3\n   cols: 3\n   dt: d\n   data: [ 800, 0, 400, 0, 800, 300, 0, 0, 1 ]\n"),
              "image_width", "not an integer");
  const std::string missing = path("no_such_file.yml");
  try {
    loadCalibration(missing);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

// OpenCV 4.6's YAML parser never returns on this 22-byte file (found by fuzzing,
// tests/fuzz/known-hangs/): the load gives up at its deadline with a message naming the file,
// instead of hanging the caller.
TEST_F(CalibrationFile, AFileOpenCvNeverFinishesParsingFailsAtTheDeadline) {
  const std::string hang = std::string(NFT_SOURCE_DIR) + "/tests/fuzz/known-hangs/opencv-4.6-filestorage-yaml.yml";
  ASSERT_TRUE(fs::exists(hang)) << hang;
  const auto start = std::chrono::steady_clock::now();
  try {
    loadCalibration(hang, std::chrono::milliseconds(300));
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("calibration file '" + hang + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("did not finish within 300 ms"), std::string::npos) << what;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 3.0);  // the deadline, not the parser, ended it
  // A good file still loads with a short deadline, and the deadline must be positive.
  EXPECT_NO_THROW(loadCalibration(writeOpenCvSampleFile(path("good.yml")), std::chrono::milliseconds(2000)));
  EXPECT_THROW(loadCalibration(path("good.yml"), std::chrono::milliseconds(0)), std::invalid_argument);
}

// OpenCV 4.6's XML parser crashes the process (a null read) on an XML file that ends right after
// an attribute's '=', or where a NUL byte ends its reading early (both found by
// tests/fuzz/calibration_fuzzer.cpp): the load refuses such a file, naming it, before OpenCV
// parses it. Without the check this test dies.
TEST_F(CalibrationFile, AnXmlFileOpenCvsParserCrashesOnIsRefusedNotACrash) {
  const std::string header = "<?xml version=\"1.0\"?>\n<opencv_storage>\n";
  const std::pair<const char*, std::string> ending[] = {
      {"fuzz.xml", "<?xmlml versierson="},  // the fuzzer's input, base64 PD94bWxtbCB2ZXJzaWVyc29uPQ==
      {"blanks.xml", "<?xml version= \t\r\n\n"},
      {"tag.xml", header + "<camera_matrix type_id=\n"},
  };
  const std::pair<const char*, std::string> nul[] = {
      {"nul.xml", std::string("<?xml a=\0\"1.0\"?>", 17)},
      // The fuzzer's second: the value follows, but after a line that starts with a NUL.
      {"nulline.xml", header + "<a_matrix type_id=\n\n" + std::string("\0Pa\0\n", 5) + "\"opencv-matrix\">"},
  };
  const auto expectRefused = [&](const char* name, const std::string& text, const std::string& reason) {
    std::ofstream(path(name), std::ios::binary) << text;
    try {
      loadCalibration(path(name));
      ADD_FAILURE() << "no error for " << name;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("calibration file '" + path(name) + "': cannot be parsed (the XML " + reason),
                std::string::npos)
          << e.what();
    }
  };
  for (const auto& [name, text] : ending) expectRefused(name, text, "ends right after an attribute's '='");
  for (const auto& [name, text] : nul) expectRefused(name, text, "holds a NUL byte");
  // An XML file whose '=' are followed by values loads; so does a YAML file ending in '='
  // (a string value), which the XML check leaves alone.
  const std::string xml = writeOpenCvSampleFile(path("good.xml"));
  EXPECT_EQ(cv::norm(loadCalibration(xml).K - kK), 0.0);
  std::ofstream(path("good.yml")) << yamlWithK("800, 0, 399.5, 0, 800, 299.5, 0, 0, 1") << "camera_name: \"a=\"\nnote: b=\n";
  EXPECT_DOUBLE_EQ(loadCalibration(path("good.yml")).K(0, 2), 399.5);
}

TEST(DefaultCalibration, IsSixtyDegreesHorizontalCentredWithoutDistortion) {
  const CameraCalibration c = defaultCalibration({800, 600});
  const double f = 400.0 / std::tan(30.0 * CV_PI / 180.0);  // 692.82
  EXPECT_NEAR(c.K(0, 0), 692.8203230275509, 1e-9);
  EXPECT_DOUBLE_EQ(c.K(0, 0), f);
  EXPECT_DOUBLE_EQ(c.K(1, 1), f);
  EXPECT_DOUBLE_EQ(c.K(0, 1), 0.0);
  EXPECT_DOUBLE_EQ(c.K(0, 2), 399.5);
  EXPECT_DOUBLE_EQ(c.K(1, 2), 299.5);
  EXPECT_DOUBLE_EQ(c.K(2, 2), 1.0);
  EXPECT_TRUE(c.distortion.empty());
  EXPECT_EQ(c.imageSize, cv::Size(800, 600));
  // The image's outer border (x = −0.5 and 799.5) is seen at ±30°.
  EXPECT_NEAR(std::atan2(799.5 - c.K(0, 2), c.K(0, 0)) * 180.0 / CV_PI, 30.0, 1e-9);
  EXPECT_NE(c.source.find("default"), std::string::npos);
  EXPECT_THROW(defaultCalibration({0, 600}), std::invalid_argument);
}

TEST(ScaledTo, HalfSizeHalvesFocalLengthsAndMapsThePrincipalPointAsAPixelPosition) {
  CameraCalibration c;
  c.K = kK;
  c.imageSize = {800, 600};
  c.distortion = (cv::Mat_<double>(1, 5) << -0.21, 0.09, 0.001, -0.002, 0.03);
  const CameraCalibration h = scaledTo(c, {400, 300});
  EXPECT_DOUBLE_EQ(h.K(0, 0), kK(0, 0) / 2);
  EXPECT_DOUBLE_EQ(h.K(1, 1), kK(1, 1) / 2);
  EXPECT_DOUBLE_EQ(h.K(0, 2), kK(0, 2) / 2 - 0.25);  // (cx + 0.5)/2 − 0.5
  EXPECT_DOUBLE_EQ(h.K(1, 2), kK(1, 2) / 2 - 0.25);
  EXPECT_EQ(h.imageSize, cv::Size(400, 300));
  EXPECT_EQ(cv::norm(h.distortion, c.distortion), 0.0);
  // The default calibration stays centred under rescaling, and scaling back restores K.
  const CameraCalibration d = scaledTo(defaultCalibration({800, 600}), {400, 300});
  EXPECT_DOUBLE_EQ(d.K(0, 2), 199.5);
  EXPECT_DOUBLE_EQ(d.K(1, 2), 149.5);
  EXPECT_LT(cv::norm(scaledTo(h, {800, 600}).K - kK), 1e-12);
  EXPECT_THROW(scaledTo(c, {0, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace nft::tracker
