// Tests of the YAML configuration (config/config.h): defaults and config/default.yaml agree, a
// dump reads back equal, partial files override only what they name, the profiles load, and
// every kind of mistake in a file is refused with a message naming the file, the line and the
// key.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"

namespace nft::config {
namespace {

std::string sourcePath(const std::string& relative) { return std::string(NFT_SOURCE_DIR) + "/" + relative; }

// The ConfigError parseConfig(text, "c.yaml") throws (fails the test if it throws none).
ConfigError parseError(const std::string& text) {
  try {
    parseConfig(text, "c.yaml");
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return ConfigError("", "", 0, "");
}

// Asserts the message of parsing `text` begins with "c.yaml:<line>: " and contains each of
// `parts` (the key path among them); returns the message for further checks.
std::string expectError(const std::string& text, int line, const std::string& keyPath,
                        std::initializer_list<std::string> parts) {
  const ConfigError e = parseError(text);
  const std::string message = e.what();
  const std::string prefix = "c.yaml:" + std::to_string(line) + ": ";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
  EXPECT_EQ(e.source(), "c.yaml");
  EXPECT_EQ(e.line(), line) << message;
  EXPECT_EQ(e.keyPath(), keyPath) << message;
  if (!keyPath.empty()) {
    EXPECT_NE(message.find(keyPath), std::string::npos) << message;
  }
  for (const auto& part : parts) EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  return message;
}

// A config with a non-default value for every key.
Config everythingChanged() {
  Config c;
  c.detector = {500, 1.25, 6, 20, 0, 2.5};
  c.detector.targetKeypointFactor = 1.5;
  c.descriptor = {DescriptorType::Surf36, DescriptorOrientation::Upright, DescriptorStorage::Rgba8, 10, 2};
  c.matcher = {MatcherBackend::Cpu, 0.8, true};
  c.descriptor.backend = DescriptorBackend::Gpu;
  c.ransac = {RansacMethod::UsacAccurate, 2.5, 5000, 0.999, 12};
  c.quad = {0.01, 2.0, 4.5, 3.0, 0.25};
  c.tracking = {false, 12, 250, 6, 3, 0.65, 8, 2.0, 50.5, 15, 0.55, 2, false};
  c.motion.model = MotionModel::None;
  c.pose.refine = false;
  c.camera = {"calib/phone \"cam\" \\ é.yml", 72.5};
  c.target = {0.187, 1024, 0};
  c.render = {false, false, false, 0.5, false, 0.25, 0.75, {0.5, 255, 0}, false, false};
  c.output = {29.97, "MJPG"};
  return c;
}

TEST(Config, DefaultYamlEqualsBuiltInDefaults) {
  const Config fromFile = loadConfig(sourcePath("config/default.yaml"));
  EXPECT_TRUE(fromFile == Config{}) << toYaml(fromFile);
}

TEST(Config, DefaultsAreValid) { EXPECT_NO_THROW(validate(Config{})); }

TEST(Config, RoundTripOfNonDefaultValuesInEverySection) {
  const Config changed = everythingChanged();
  EXPECT_NO_THROW(validate(changed));
  const Config defaults;
  // Every section differs from the defaults, so the round trip exercises every writer.
  EXPECT_NE(changed.detector.maxKeypoints, defaults.detector.maxKeypoints);
  EXPECT_TRUE(changed != defaults);
  const std::string yaml = toYaml(changed);
  const Config back = parseConfig(yaml, "dump.yaml");
  EXPECT_TRUE(back == changed) << yaml;
  EXPECT_EQ(back.camera.calibration, changed.camera.calibration);
  EXPECT_EQ(back.render.cubeColor, changed.render.cubeColor);
  EXPECT_EQ(toYaml(back), yaml);
}

TEST(Config, RoundTripKeepsNumbersExact) {
  Config c;
  c.detector.scaleFactor = 1.0 + 1e-15;
  c.tracking.minNcc = 0.1 + 0.2;  // 0.30000000000000004
  c.target.widthM = 1e-7;
  c.output.videoFps = 1e6 / 7.0;
  const Config back = parseConfig(toYaml(c), "dump.yaml");
  EXPECT_EQ(back.detector.scaleFactor, c.detector.scaleFactor);
  EXPECT_EQ(back.tracking.minNcc, c.tracking.minNcc);
  EXPECT_EQ(back.target.widthM, c.target.widthM);
  EXPECT_EQ(back.output.videoFps, c.output.videoFps);
}

TEST(Config, DumpOfDefaultsNamesEveryKeyAndReadsBackEqual) {
  const std::string yaml = toYaml(Config{});
  for (const char* key : {"max_keypoints:", "precision_bits:", "cross_check:", "usac", "max_outside_fraction:",
                          "redetect_every:", "model: constant_velocity", "refine: true", "calibration: \"\"",
                          "max_tracking_patches:", "cube_color: [40, 160, 240]", "codec: \"mp4v\""})
    EXPECT_NE(yaml.find(key), std::string::npos) << key << " not in:\n" << yaml;
  EXPECT_TRUE(parseConfig(yaml, "dump.yaml") == Config{});
}

TEST(Config, PartialFileOverridesOnlyWhatItNames) {
  const Config c = parseConfig("tracking:\n  min_ncc: 0.8\nrender:\n  cube_color: [1, 2, 3]\n", "p.yaml");
  Config expected;
  expected.tracking.minNcc = 0.8;
  expected.render.cubeColor = {1, 2, 3};
  EXPECT_TRUE(c == expected) << toYaml(c);
  EXPECT_EQ(c.tracking.maxPatches, 100);
  EXPECT_EQ(c.detector.maxKeypoints, 0);  // auto: the budget follows target.min_frame_fraction
  EXPECT_EQ(c.target.minFrameFraction, 0.2);
}

TEST(Config, EmptyOrCommentOnlyTextAndEmptySectionsAreDefaults) {
  EXPECT_TRUE(parseConfig("", "e.yaml") == Config{});
  EXPECT_TRUE(parseConfig("# nothing here\n\n# at all\n", "e.yaml") == Config{});
  EXPECT_TRUE(parseConfig("tracking:\n  # min_ncc: 0.9\n", "e.yaml") == Config{});
}

TEST(Config, EnumNamesConvertBothWays) {
  EXPECT_EQ(toString(RansacMethod::UsacAccurate), "usac_accurate");
  EXPECT_EQ(parseRansacMethod("lmeds"), RansacMethod::Lmeds);
  EXPECT_EQ(parseRansacMethod("LMEDS"), std::nullopt);
  EXPECT_EQ(parseDescriptorType(toString(DescriptorType::Surf36)), DescriptorType::Surf36);
  EXPECT_EQ(parseDescriptorOrientation("upright"), DescriptorOrientation::Upright);
  EXPECT_EQ(parseDescriptorStorage("float"), DescriptorStorage::Float);
  EXPECT_EQ(parseMatcherBackend("cpu"), MatcherBackend::Cpu);
  EXPECT_EQ(parseMotionModel("none"), MotionModel::None);
  EXPECT_EQ(toString(MotionModel::ConstantVelocity), "constant_velocity");
}

// --- Profiles -------------------------------------------------------------------------------

TEST(ConfigProfiles, PhoneIsMediumPrecisionSurf36WithFewerKeypointsAndPatches) {
  const Config c = loadConfig(sourcePath("config/profiles/phone.yaml"));
  EXPECT_EQ(c.descriptor.precisionBits, 10);
  EXPECT_EQ(c.descriptor.type, DescriptorType::Surf36);
  EXPECT_EQ(c.detector.maxKeypoints, 300);
  EXPECT_EQ(c.tracking.maxPatches, 60);
  EXPECT_EQ(c.descriptor.backend, DescriptorBackend::Gpu);  // a phone's GPU, even on llvmpipe
  EXPECT_EQ(c.matcher.backend, MatcherBackend::Gpu);
  EXPECT_EQ(c.descriptor.boxTaps, 1);  // fetch-bound: one lookup per box (default 2)
  Config rest = c;
  rest.descriptor = {};
  rest.matcher.backend = Config{}.matcher.backend;
  rest.detector.maxKeypoints = Config{}.detector.maxKeypoints;
  rest.tracking.maxPatches = Config{}.tracking.maxPatches;
  EXPECT_TRUE(rest == Config{}) << "the phone profile changes more than it says";
}

TEST(ConfigProfiles, BoardIsOrientedSurf64AtTheGpusPrecisionWith600Keypoints) {
  const Config c = loadConfig(sourcePath("config/profiles/board.yaml"));
  EXPECT_EQ(c.descriptor.type, DescriptorType::Surf64);
  EXPECT_EQ(c.descriptor.orientation, DescriptorOrientation::Oriented);
  EXPECT_EQ(c.descriptor.precisionBits, 0);
  EXPECT_EQ(c.detector.maxKeypoints, 600);
  Config rest = c;
  rest.detector.maxKeypoints = Config{}.detector.maxKeypoints;
  EXPECT_TRUE(rest == Config{}) << "the board profile changes more than it says";
}

TEST(ConfigProfiles, AccuracyHasMoreKeypointsAndPatchesAndRedetects) {
  const Config c = loadConfig(sourcePath("config/profiles/accuracy.yaml"));
  EXPECT_EQ(c.detector.maxKeypoints, 1500);
  EXPECT_EQ(c.tracking.maxPatches, 150);
  EXPECT_EQ(c.tracking.redetectEvery, 10);
  Config rest = c;
  rest.detector.maxKeypoints = Config{}.detector.maxKeypoints;
  rest.tracking.maxPatches = Config{}.tracking.maxPatches;
  rest.tracking.redetectEvery = Config{}.tracking.redetectEvery;
  EXPECT_TRUE(rest == Config{}) << "the accuracy profile changes more than it says";
}

// --- Errors ---------------------------------------------------------------------------------

TEST(ConfigErrors, UnknownKeySuggestsTheClosest) {
  expectError("tracking:\n  enabled: true\n  min_nnc: 0.7\n", 3, "tracking.min_nnc",
              {"tracking.min_nnc: unknown key; did you mean 'min_ncc'?"});
  // Nothing close: the known keys are listed instead.
  expectError("pose:\n  something_else: 1\n", 2, "pose.something_else", {"unknown key", "known pose keys: refine"});
  // A key of another section says where it belongs.
  expectError("detector:\n  ratio: 0.8\n", 2, "detector.ratio", {"'ratio' belongs to section 'matcher'"});
}

TEST(ConfigErrors, UnknownSectionSuggestsTheClosest) {
  expectError("\n\ntraking:\n  min_ncc: 0.7\n", 3, "traking", {"traking: unknown section; did you mean 'tracking'?"});
}

TEST(ConfigErrors, WrongTypes) {
  expectError("tracking:\n  min_ncc: high\n", 2, "tracking.min_ncc", {"tracking.min_ncc = high", "expected a number"});
  expectError("tracking:\n  min_ncc: \"0.7\"\n", 2, "tracking.min_ncc", {"= \"0.7\"", "expected a number"});
  expectError("tracking:\n  min_ncc:\n    a: 1\n", 2, "tracking.min_ncc", {"= (a map)", "expected a number"});
  expectError("tracking:\n  min_ncc: [1]\n", 2, "tracking.min_ncc", {"= (a list)", "expected a number"});
  expectError("tracking:\n  min_ncc:\n", 2, "tracking.min_ncc", {"= (empty)", "expected a number"});
  expectError("detector:\n  levels: 2.5\n", 2, "detector.levels", {"= 2.5", "expected an integer in [1, 32]"});
  expectError("render:\n  cube: yes please\n", 2, "render.cube", {"expected true or false"});
  expectError("detector: 5\n", 1, "detector", {"detector = 5", "expected a map of detector keys"});
  expectError("camera:\n  calibration: [a, b]\n", 2, "camera.calibration", {"expected a string"});
  expectError("render:\n  cube_color: [1, 2]\n", 2, "render.cube_color", {"expected a list of 3 numbers"});
  expectError("render:\n  cube_color: [1,\n    x, 3]\n", 3, "render.cube_color[1]",
              {"render.cube_color[1] = x", "expected a number in [0, 255]"});
}

TEST(ConfigErrors, OutOfRange) {
  const std::string message = expectError("# header\n\n\n\n\n\n\n\n\n\n\ntracking:\n  min_ncc: 1.5\n", 13,
                                          "tracking.min_ncc", {});
  EXPECT_EQ(message, "c.yaml:13: tracking.min_ncc = 1.5: expected a number in [-1, 1]");
  expectError("detector:\n  max_keypoints: -1\n", 2, "detector.max_keypoints", {"expected an integer in [0, 65535]"});
  expectError("target:\n  min_frame_fraction: 0\n", 2, "target.min_frame_fraction", {"expected a number in (0, 1]"});
  expectError("target:\n  min_frame_fraction: 1.5\n", 2, "target.min_frame_fraction", {"expected a number in (0, 1]"});
  expectError("detector:\n  scale_factor: 1\n", 2, "detector.scale_factor", {"expected a number in (1, 4]"});
  expectError("descriptor:\n  precision_bits: 5\n", 2, "descriptor.precision_bits",
              {"0 (the GPU's precision) or in [8, 23]"});
  expectError("tracking:\n  patch_size: 7\n", 2, "tracking.patch_size", {"expected an even integer in [4, 32]"});
  expectError("ransac:\n  max_iterations: 99999999999\n", 2, "ransac.max_iterations", {"expected an integer in [1, 50000]"});
  expectError("ransac:\n  max_iterations: 50001\n", 2, "ransac.max_iterations", {"expected an integer in [1, 50000]"});
  expectError("render:\n  cube_color: [1, 256, 3]\n", 2, "render.cube_color[1]", {"= 256", "[0, 255]"});
  expectError("output:\n  codec: h264x\n", 2, "output.codec", {"exactly 4"});
}

TEST(ConfigErrors, NanAndInfinity) {
  expectError("tracking:\n  min_ncc: .nan\n", 2, "tracking.min_ncc", {"= .nan", "NaN and infinity are not allowed"});
  expectError("quad:\n  max_area_fraction: .inf\n", 2, "quad.max_area_fraction", {"= .inf", "not allowed"});
  expectError("quad:\n  min_side_px: -.Inf\n", 2, "quad.min_side_px", {"not allowed"});
  expectError("target:\n  width_m: 1e999\n", 2, "target.width_m", {"not allowed"});
  expectError("render:\n  cube_color: [1, .nan, 3]\n", 2, "render.cube_color[1]", {"not allowed"});
}

TEST(ConfigErrors, UnknownEnumValueListsTheAllowedOnes) {
  expectError("ransac:\n  threshold_px: 3\n  method: prosac\n", 3, "ransac.method",
              {"ransac.method = prosac", "expected one of magsac, ransac, usac_default, usac_accurate, lmeds"});
  expectError("descriptor:\n  type: SURF64\n", 2, "descriptor.type", {"one of surf64, surf36"});
}

TEST(ConfigErrors, CrossFieldRules) {
  expectError("tracking:\n  coarse_radius_px: 3\n  fine_radius_px: 7\n", 3, "tracking.fine_radius_px",
              {"= 7", "at most 2 * tracking.coarse_radius_px = 6"});
  // Only one of the two in the file: its line is the one reported.
  expectError("\ntracking:\n  fine_radius_px: 9\n", 3, "tracking.fine_radius_px", {"= 9", "coarse_radius_px = 8"});
  expectError("quad:\n  max_area_fraction: 0.5\n  min_area_fraction: 0.6\n", 3, "quad.max_area_fraction",
              {"expected a number > quad.min_area_fraction = 0.6"});
}

TEST(ConfigErrors, MalformedYamlNamesTheLine) {
  expectError("tracking:\n  min_ncc: [0.7,\nrender:\n  cube: true\n", 4, "", {"malformed YAML"});
  expectError("tracking:\n  min_ncc: 0.7\n bad_indent: 1\n", 3, "", {"malformed YAML"});
}

TEST(ConfigErrors, TopLevelMustBeOneMap) {
  expectError("- detector\n- tracking\n", 1, "", {"the top level must be a map of sections", "(a list)"});
  expectError("just text\n", 1, "", {"the top level must be a map"});
  expectError("pose:\n  refine: true\n---\npose:\n  refine: false\n", 4, "", {"second YAML document"});
  // A stray flow end after a map: yaml-cpp 0.7's LoadAll never returned on it, growing memory
  // (found by tests/fuzz/config_fuzzer.cpp); now an error like any malformed text.
  parseError(",craking:\npu>3]\n");
}

TEST(ConfigErrors, DuplicateKeysAndSections) {
  expectError("tracking:\n  min_ncc: 0.7\n  min_ncc: 0.8\n", 3, "tracking.min_ncc", {"duplicate key", "line 2"});
  expectError("pose:\n  refine: true\npose:\n  refine: false\n", 3, "pose", {"duplicate section", "line 1"});
}

TEST(ConfigErrors, MissingOrUnreadableFile) {
  const std::string missing = (std::filesystem::temp_directory_path() / "nft_no_such_config.yaml").string();
  try {
    loadConfig(missing);
    FAIL() << "no error for a missing file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read config file '" + missing + "': No such file or directory");
    EXPECT_EQ(e.source(), missing);
    EXPECT_EQ(e.line(), 0);
  }
  const std::string folder = std::filesystem::temp_directory_path().string();
  try {
    loadConfig(folder);
    FAIL() << "no error for a directory";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read config file '" + folder + "'"), std::string::npos) << e.what();
  }
}

TEST(ConfigErrors, LoadConfigNamesTheFileInParseErrors) {
  const auto path = std::filesystem::temp_directory_path() / "nft_config_test_bad.yaml";
  {
    std::ofstream out(path);
    out << "detector:\n  levels: 4\n  threshold: 300\n";
  }
  try {
    loadConfig(path.string());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ":3: detector.threshold = 300: expected an integer in [1, 255]");
  }
  std::filesystem::remove(path);
}

TEST(ConfigErrors, ValidateChecksConfigsBuiltInCode) {
  Config c;
  c.matcher.ratio = 0.0;
  try {
    validate(c, "flags");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "flags: matcher.ratio = 0.0: expected a number in (0, 1]");
    EXPECT_EQ(e.line(), 0);
  }
  c = Config{};
  c.tracking.fineRadiusPx = 9;
  EXPECT_THROW(validate(c), ConfigError);
  c = Config{};
  c.output.codec = "x";
  EXPECT_THROW(validate(c), ConfigError);
}

}  // namespace
}  // namespace nft::config
