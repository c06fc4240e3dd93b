// nft_train --database and nft_replay with several targets, run as a user runs them: a list file
// of real images (../shared/data), the database, a replay of tmt_bookI against it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "detection/target_database.h"
#include "detection/target_model_io.h"
#include "support/program_run.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
using nft::testing::quoted;

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ReplayTargets, TrainsADatabaseAndReplaysAgainstIt) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const fs::path dir = nft::testing::freshTempDir("nft_targets");
  const fs::path data = nft::testing::dataDir();
  {
    std::ofstream list(dir / "targets.txt");
    list << "# name image width_m\n"
         << "cover " << (data / "video/cmu_book/cv_cover.jpg").string() << " 0.187\n"
         << "book " << (data / "video/tmt_bookI/target.png").string() << "\n"
         << "graf " << (data / "oxford/graf/img1.png").string() << " 0.3\n";
  }
  const nft::testing::ProgramRun train =
      nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "three.nftdb") + " --list " +
                                                     quoted(dir / "targets.txt"));
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("[2/3] book:"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("3 targets"), std::string::npos) << train.output;

  const fs::path video = data / "video/tmt_bookI/video.mp4";
  const nft::testing::ProgramRun replay = nft::testing::runProgram(
      NFT_REPLAY_BINARY, "--targets " + quoted(dir / "three.nftdb") + " --video " + quoted(video) + " --gt " +
                             quoted(data / "video/tmt_bookI/gt.tsv") +
                             " --gt-target book --frames 40 --no-render --progress 0 --poses " + quoted(dir / "p.csv") +
                             " --report " + quoted(dir / "r.json"));
  ASSERT_EQ(replay.status, 0) << replay.output;
  EXPECT_NE(replay.output.find("success 100.0% at 5 px"), std::string::npos) << replay.output;
  // The summary names the target its statistics follow, and lists the targets found.
  EXPECT_NE(replay.output.find("target 'book' found in 100.0%"), std::string::npos) << replay.output;
  EXPECT_NE(replay.output.find("frames each target was found in: book 40\n"), std::string::npos) << replay.output;
  std::istringstream csv(readText(dir / "p.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "frame,target,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms");
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(line.substr(line.find(',') + 1, 5), "book,") << line;
  }
  EXPECT_EQ(rows, 40) << "one row per reported target per frame: the book, in every frame";
  const nlohmann::json report = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_EQ(report["targets"]["count"], 3);
  EXPECT_EQ(report["targets"]["found"]["book"]["found_frames"], 40);
  EXPECT_EQ(report["target"]["name"], "book");
}

TEST(ReplayTargets, BadListsAndDatabasesAreErrorsNamingTheFile) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const fs::path dir = nft::testing::freshTempDir("nft_targets_bad");
  { std::ofstream(dir / "twice.txt") << "a x.png\nb y.png\na z.png\n"; }
  nft::testing::ProgramRun run = nft::testing::runProgram(
      NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --list " + quoted(dir / "twice.txt"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("twice.txt:3: the name 'a' is given twice"), std::string::npos) << run.output;
  { std::ofstream(dir / "width.txt") << "a x.png -2\n"; }
  run = nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --list " +
                                                       quoted(dir / "width.txt"));
  EXPECT_NE(run.output.find("width.txt:1: width '-2': expected a positive number of metres"), std::string::npos)
      << run.output;
  { std::ofstream(dir / "missing.txt") << "a no-such-image.png\n"; }
  run = nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --list " +
                                                       quoted(dir / "missing.txt"));
  EXPECT_NE(run.output.find("target 'a': image"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(dir / "db.nftdb")) << "nothing written";
  run = nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --list " +
                                                       quoted(dir / "width.txt") + " --image-quality 101");
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.output.find("--image-quality"), std::string::npos) << run.output;
  { std::ofstream(dir / "junk.nftdb") << "not a database"; }
  run = nft::testing::runProgram(NFT_REPLAY_BINARY, "--targets " + quoted(dir / "junk.nftdb") +
                                                        " --no-render --progress 0 --video " +
                                                        quoted(nft::testing::dataDir() / "video/tmt_bookI/video.mp4"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("not a target database file"), std::string::npos) << run.output;
}

}  // namespace

namespace {

TEST(ReplayTargets, FindsTheCoverAmongDistractorsMadeByTheScript) {
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  const fs::path dir = nft::testing::freshTempDir("nft_distractors");
  const nft::testing::ProgramRun crops = nft::testing::runProgram(
      std::string(NFT_SOURCE_DIR) + "/scripts/make-distractors.py",
      quoted(dir) + " --count 40 --data " + quoted(nft::testing::dataDir()));
  ASSERT_EQ(crops.status, 0) << crops.output;
  {
    std::ofstream list(dir / "targets.txt", std::ios::app);
    list << "cover " << (nft::testing::dataDir() / "video/cmu_book/cv_cover.jpg").string() << " 0.187\n";
  }
  // Trained as a catalogue an app ships (docs/programs/nft_train.md): 300 keypoints a target, no
  // tilted views, JPEG images — at most 60 KB a target besides the vocabulary.
  const nft::testing::ProgramRun train =
      nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "41.nftdb") + " --list " +
                                                     quoted(dir / "targets.txt") + " --keypoints 300 --view-tilt 0");
  ASSERT_EQ(train.status, 0) << train.output;
  EXPECT_NE(train.output.find("41 targets"), std::string::npos) << train.output;
  EXPECT_NE(train.output.find("[41/41] cover: 300 keypoints"), std::string::npos) << train.output;
  const size_t words = train.output.find(" visual words");
  ASSERT_NE(words, std::string::npos) << train.output;
  const int vocabulary = std::stoi(train.output.substr(train.output.rfind(' ', words - 1) + 1));
  EXPECT_LE(fs::file_size(dir / "41.nftdb"), 41u * 60000u + static_cast<size_t>(vocabulary) * 64u * 4u + 1000u)
      << vocabulary << " words";
  // Detection alone on every frame (the hard case for recognition), 60 frames.
  { std::ofstream(dir / "detect.yaml") << "tracking:\n  enabled: false\n"; }
  const nft::testing::ProgramRun replay = nft::testing::runProgram(
      NFT_REPLAY_BINARY, "--targets " + quoted(dir / "41.nftdb") + " --config " + quoted(dir / "detect.yaml") +
                             " --video " + quoted(nft::testing::dataDir() / "video/cmu_book/book.mp4") +
                             " --frames 60 --no-render --progress 0 --poses " + quoted(dir / "p.csv"));
  ASSERT_EQ(replay.status, 0) << replay.output;
  std::istringstream csv(readText(dir / "p.csv"));
  std::string line;
  std::getline(csv, line);
  int cover = 0, wrong = 0;
  while (std::getline(csv, line)) {
    const bool found = line.find(",detecting,,") == std::string::npos && line.find(",lost,,") == std::string::npos;
    if (!found) continue;
    (line.find(",cover,") != std::string::npos ? cover : wrong) += 1;
  }
  EXPECT_EQ(wrong, 0) << "a distractor was reported";
  EXPECT_GE(cover, 59) << "the cover is in view in all 60 frames";
}

}  // namespace

namespace {

TEST(ReplayTargets, CurvedTargetsAreTrainedWithTheirGeometry) {
  // Issue 47, item 1: nft_train --geometry writes the geometry into the model (the label's width
  // from --height-m and the image's aspect), refuses incomplete or mismatched options naming
  // them, and nft_replay takes the curved model.
  const fs::path dir = nft::testing::freshTempDir("nft_curved");
  const std::string graf = "/usr/share/doc/opencv-doc/examples/data/graf1.png";  // 800 × 640
  const auto train = [&](const std::string& options) {
    return nft::testing::runProgram(NFT_TRAIN_BINARY, quoted(fs::path(graf)) + " -o " + quoted(dir / "can.nftm") +
                                                          " --extractor cpu --keypoints 200 " + options);
  };
  nft::testing::ProgramRun run = train("--geometry cylinder --radius-m 0.033 --height-m 0.08");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("Geometry:   cylinder, radius 0.0330 m, the label 0.080 m high around 174 degrees"),
            std::string::npos)
      << run.output;
  const nft::detection::TargetModel can = nft::detection::loadTargetModel((dir / "can.nftm").string());
  EXPECT_EQ(can.geometry.kind, nft::detection::GeometryKind::Cylinder);
  EXPECT_EQ(can.geometry.radiusM, 0.033);
  EXPECT_NEAR(can.widthMetres, 0.1, 1e-12) << "0.08 m high at 800 × 640";  // 0.1 / 0.033 rad: 174°

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--geometry cylinder", "--geometry cylinder needs --radius-m"},
      {"--radius-m 0.05", "--radius-m is not used by a planar target"},
      {"--geometry cylinder --radius-m 0.01", "longer than the cylinder's circumference"},
      {"--geometry cone --top-radius-m 0.04 --bottom-radius-m 0.03", "--geometry cone needs --side-length-m"},
      {"--geometry cylinder --radius-m 0.05 --width-m 0.2 --height-m 0.1", "--height-m 0.1 and --width-m 0.2 disagree"},
      {"--geometry cylinder --radius-m -1", "--radius-m -1: expected a positive number of metres"},
      {"--geometry barrel", "--geometry 'barrel': expected planar, cylinder or cone"}};
  fs::remove(dir / "can.nftm");
  for (const auto& [options, message] : refused) {
    run = train(options);
    EXPECT_EQ(run.status, 1) << options << "\n" << run.output;
    EXPECT_NE(run.output.find(message), std::string::npos) << options << "\n" << run.output;
    EXPECT_FALSE(fs::exists(dir / "can.nftm")) << options << ": nothing written";
  }
  run = nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --folder " +
                                                       quoted(dir) + " --geometry cylinder --radius-m 0.05");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("--geometry is for one target: with --database give each target's geometry on its line"),
            std::string::npos)
      << run.output;

  // nft_replay takes the can's model (a clip without it: searched on each frame, not found).
  ASSERT_EQ(train("--geometry cylinder --radius-m 0.033 --height-m 0.08").status, 0);
  run = nft::testing::runProgram(NFT_REPLAY_BINARY,
                                 "--target " + quoted(dir / "can.nftm") +
                                     " --video /usr/share/doc/opencv-doc/examples/data/vtest.avi --frames 2 "
                                     "--no-render --progress 0");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("target found in 0.0% (detecting 2"), std::string::npos) << run.output;
}

TEST(ReplayTargets, AListFileGivesEachTargetItsGeometry) {
  // Issue 47, item 1: a list line's key=value fields give a curved target's surface, as
  // nft_train's options do for one target; the database stores each target's geometry; a bad key
  // or size is refused naming the line and the key, and nothing is written.
  const fs::path dir = nft::testing::freshTempDir("nft_curved_list");
  const std::string data = "/usr/share/doc/opencv-doc/examples/data/";
  {
    std::ofstream(dir / "targets.txt") << "# name image [width_m] [key=value ...]\n"
                                       << "poster " << data << "graf1.png 0.30\n"
                                       << "can " << data << "box.png geometry=cylinder radius_m=0.033 height_m=0.08\n"
                                       << "cup " << data << "baboon.jpg 0.15 geometry=cone top_radius_m=0.045 "
                                       << "bottom_radius_m=0.03 side_length_m=0.2 cone_label=rectangle\n";
  }
  nft::testing::ProgramRun run = nft::testing::runProgram(
      NFT_TRAIN_BINARY, "--database " + quoted(dir / "db.nftdb") + " --list " + quoted(dir / "targets.txt") +
                            " --keypoints 200");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("[2/3] can: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("patches, cylinder, "), std::string::npos) << run.output;
  const nft::detection::TargetDatabase db = nft::detection::TargetDatabase::load((dir / "db.nftdb").string());
  ASSERT_EQ(db.targets().size(), 3u);
  const auto geometryOf = [](const nft::detection::DatabaseTarget& t) {
    return t.stored ? t.stored->geometry() : t.model.geometry;
  };
  const auto widthOf = [](const nft::detection::DatabaseTarget& t) {
    return t.stored ? t.stored->widthMetres() : t.model.widthMetres;
  };
  EXPECT_EQ(geometryOf(db.targets()[0]).kind, nft::detection::GeometryKind::Planar);
  const nft::detection::TargetGeometry can = geometryOf(db.targets()[1]);
  EXPECT_EQ(can.kind, nft::detection::GeometryKind::Cylinder);
  EXPECT_EQ(can.radiusM, 0.033);
  EXPECT_NEAR(widthOf(db.targets()[1]), 0.08 * 324 / 223, 1e-9) << "box.png is 324 x 223: the width from height_m";
  const nft::detection::TargetGeometry cup = geometryOf(db.targets()[2]);
  EXPECT_EQ(cup.kind, nft::detection::GeometryKind::Cone);
  EXPECT_EQ(cup.topRadiusM, 0.045);
  EXPECT_EQ(cup.bottomRadiusM, 0.03);
  EXPECT_EQ(cup.sideLengthM, 0.2);
  EXPECT_EQ(cup.coneLabel, nft::detection::ConeLabel::Rectangle);

  // A database's targets, curved and flat, are recognised among each other: nft_replay takes it
  // (tests/session/curved_beside_flat_test.cpp finds and follows a can and a poster of one).
  run = nft::testing::runProgram(NFT_REPLAY_BINARY,
                                 "--targets " + quoted(dir / "db.nftdb") + " --video " + data +
                                     "vtest.avi --frames 2 --no-render --progress 0");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("3 targets loaded"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("frames each target was found in: none found"), std::string::npos) << run.output;

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"can " + data + "box.png 0.1 geometry=cylinder", "bad.txt:1: target 'can': geometry=cylinder needs radius_m"},
      {"can " + data + "box.png 0.1 radius_m=0.05", "bad.txt:1: target 'can': radius_m is not used by a planar target "
                                                    "(give geometry=cylinder or cone)"},
      {"can " + data + "box.png 0.5 geometry=cylinder radius_m=0.033", "longer than the cylinder's circumference"},
      {"can " + data + "box.png geometry=cylinder radius_m=abc", "bad.txt:1: radius_m 'abc': expected a number of metres"},
      {"can " + data + "box.png geometry=cylinder diameter_m=0.06", "bad.txt:1: unknown key 'diameter_m'"},
      {"can " + data + "box.png geometry=cylinder geometry=cone", "bad.txt:1: key 'geometry' is given twice"},
      {"cup " + data + "box.png 0.1 geometry=cone top_radius_m=0.04 bottom_radius_m=0.03 side_length_m=-1",
       "bad.txt:1: target 'cup': side_length_m -1: expected a positive number of metres"}};
  for (const auto& [line, message] : refused) {
    { std::ofstream(dir / "bad.txt") << line << "\n"; }
    run = nft::testing::runProgram(NFT_TRAIN_BINARY, "--database " + quoted(dir / "bad.nftdb") + " --list " +
                                                         quoted(dir / "bad.txt") + " --keypoints 100");
    EXPECT_EQ(run.status, 1) << line << "\n" << run.output;
    EXPECT_NE(run.output.find(message), std::string::npos) << line << "\n" << run.output;
    EXPECT_FALSE(fs::exists(dir / "bad.nftdb")) << line << ": nothing written";
  }
}

}  // namespace
