// Several targets in one Session (session/target_tracking.h): recognition among them by visual
// words, one reported entry per target, a database file, removal while tracked — on tmt_bookI
// with real images of ../shared/data and opencv-doc as the other targets.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <unistd.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "detection/target_database.h"
#include "gpu/capabilities.h"
#include "nft/nft.h"
#include "detection/stored_target.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "session/target_tracking.h"
#include "support/synchronous_session.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
const char* kVideo = "video/tmt_bookI/video.mp4";
const fs::path kOpenCvData = "/usr/share/doc/opencv-doc/examples/data";

std::vector<cv::Mat> readFrames(int n) { return nft::testing::readVideoFrames(kVideo, n); }

/// The book and four other real images: (name, path).
std::vector<std::pair<std::string, std::string>> fiveTargets() {
  return {{"cover", (nft::testing::dataDir() / "video/cmu_book/cv_cover.jpg").string()},
          {"book", (nft::testing::dataDir() / "video/tmt_bookI/target.png").string()},
          {"graf", (nft::testing::dataDir() / "oxford/graf/img1.png").string()},
          {"baboon", (kOpenCvData / "baboon.jpg").string()},
          {"fruits", (kOpenCvData / "fruits.jpg").string()}};
}

/// Names of the targets found in a frame; fails the test if one is reported twice.
std::set<std::string> foundIn(const nft::FrameResult& r) {
  std::set<std::string> names, reported;
  for (const nft::TargetResult& t : r.targets) {
    EXPECT_TRUE(reported.insert(t.name).second) << t.name << " reported twice in frame " << r.frame;
    if (t.found) names.insert(t.name);
  }
  return names;
}

TEST(SessionTargets, FindsTheBookAmongFiveAndReportsOnlyIt) {
  NFT_REQUIRE_DATA(kVideo);
  ASSERT_TRUE(fs::exists(kOpenCvData / "baboon.jpg")) << "opencv-doc missing (scripts/install-deps.sh installs it)";
  const std::vector<cv::Mat> frames = readFrames(40);
  nft::Session session(nft::testing::synchronous());
  for (const auto& [name, path] : fiveTargets()) session.addTarget(path, name);
  ASSERT_EQ(session.targets().size(), 5u);
  int bookFrames = 0;
  for (const cv::Mat& f : frames) {
    const nft::FrameResult r = session.process(f);
    const std::set<std::string> found = foundIn(r);
    EXPECT_TRUE(found.empty() || found == std::set<std::string>{"book"}) << "frame " << r.frame << ": a wrong target";
    bookFrames += found.count("book") ? 1 : 0;
    if (r.frame == 0) {
      ASSERT_EQ(r.targets.size(), 1u);
      EXPECT_EQ(r.targets[0].state, nft::TrackingState::Detecting);
    }
  }
  EXPECT_EQ(bookFrames, 40) << "the book is in view in every frame";
  // Removing the tracked target: it is no longer reported; its id is an error afterwards.
  const nft::TargetId book = session.targets()[1].id;
  session.removeTarget(book);
  EXPECT_TRUE(foundIn(session.process(frames.back())).empty());
  EXPECT_THROW(session.target(book), nft::InputError);
}

TEST(SessionTargets, TheRecogniserRunsOnEitherBackendAndCrossChecks) {
  NFT_REQUIRE_DATA(kVideo);
  ASSERT_TRUE(fs::exists(kOpenCvData / "baboon.jpg")) << "opencv-doc missing (scripts/install-deps.sh installs it)";
  const std::vector<cv::Mat> frames = readFrames(4);
  for (const bool gpu : {true, false}) {
    nft::SessionOptions o;
    o.config.descriptor.backend = gpu ? nft::config::DescriptorBackend::Gpu : nft::config::DescriptorBackend::Cpu;
    o.config.matcher.backend = gpu ? nft::config::MatcherBackend::Gpu : nft::config::MatcherBackend::Cpu;
    o.config.matcher.crossCheck = true;
    o.config.tracking.enabled = false;  // every frame through the recogniser
    nft::Session session(o);
    for (const auto& [name, path] : fiveTargets()) session.addTarget(path, name);
    for (const cv::Mat& f : frames)
      EXPECT_EQ(foundIn(session.process(f)), std::set<std::string>{"book"}) << (gpu ? "gpu" : "cpu");
  }
}

TEST(SessionTargets, LoadsADatabaseAndTracksAsWithImages) {
  NFT_REQUIRE_DATA(kVideo);
  ASSERT_TRUE(fs::exists(kOpenCvData / "baboon.jpg"));
  const std::vector<cv::Mat> frames = readFrames(20);
  // A database made as nft_train makes it: models trained with the default config.
  {
    nft::Session trainer;  // a context for SURF-ES
    const nft::session::PipelineOptions options = nft::session::pipelineOptions(nft::config::Config{});
    std::vector<std::pair<std::string, nft::detection::TargetModel>> models;
    for (const auto& [name, path] : fiveTargets())
      models.emplace_back(name, nft::session::loadTarget(path, options, nft::gpu::probeCapabilities()).model);
    nft::detection::TargetDatabase::build(models).save((fs::temp_directory_path() / "nft_five.nftdb").string());
  }
  nft::Session session(nft::testing::synchronous());
  const std::vector<nft::TargetId> ids = session.loadDatabase((fs::temp_directory_path() / "nft_five.nftdb").string());
  ASSERT_EQ(ids.size(), 5u);
  EXPECT_EQ(session.target(ids[1]).name, "book");
  EXPECT_EQ(session.target(ids[1]).source, (fs::temp_directory_path() / "nft_five.nftdb").string());
  int bookFrames = 0;
  for (const cv::Mat& f : frames) {
    const std::set<std::string> found = foundIn(session.process(f));
    EXPECT_TRUE(found.empty() || found == std::set<std::string>{"book"});
    bookFrames += found.count("book") ? 1 : 0;
  }
  EXPECT_EQ(bookFrames, 20);
  // The same database again: every name is taken.
  try {
    session.loadDatabase((fs::temp_directory_path() / "nft_five.nftdb").string());
    FAIL() << "no error";
  } catch (const nft::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the name 'cover' is taken"), std::string::npos) << e.what();
  }
  EXPECT_EQ(session.targets().size(), 5u) << "nothing was added";
  EXPECT_THROW(session.loadDatabase("/no/such.nftdb"), nft::InputError);
}


// A database target kept compact has its model decoded when found and dropped again once more
// than kKeptLostModels (4) other database targets were found after it was lost
// (TargetTracking::releaseLostModels): six prints shown one after another, the first is decoded
// again when it comes back, the fifth (among the last four lost) is not, and both are found.
TEST(SessionTargets, LostDatabaseTargetsGiveTheirModelsBackButForTheLastFour) {
  NFT_REQUIRE_DATA("video/tmt_bookI/target.png");
  NFT_REQUIRE_DATA("oxford/bikes/img1.png");
  const std::vector<std::pair<std::string, std::string>> prints = {
      {"graf", "oxford/graf/img1.png"},  {"boat", "oxford/boat/img1.png"},   {"wall", "oxford/wall/img1.png"},
      {"bikes", "oxford/bikes/img1.png"}, {"cover", "video/cmu_book/cv_cover.jpg"}, {"book", "video/tmt_bookI/target.png"}};
  nft::Session context;  // a GL context, current on this thread, for the lanes
  nft::config::Config config;
  config.tracking.asyncDetection = nft::config::AsyncDetection::Off;
  const nft::session::PipelineOptions options = nft::session::pipelineOptions(config);
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  std::vector<std::pair<std::string, nft::detection::TargetModel>> models;
  for (const auto& [name, file] : prints)
    models.emplace_back(name, nft::session::loadTarget((nft::testing::dataDir() / file).string(), options, caps).model);
  const fs::path path = fs::temp_directory_path() / ("nft_six_" + std::to_string(::getpid()) + ".nftdb");
  nft::detection::TargetDatabase::build(models).save(path.string());
  nft::detection::TargetDatabase db = nft::detection::TargetDatabase::load(path.string(), {/*keepCompact=*/true});
  std::vector<std::shared_ptr<const nft::detection::StoredTarget>> stored;
  for (const auto& t : db.targets()) stored.push_back(t.stored);
  ASSERT_TRUE(stored.front() != nullptr);

  nft::session::TargetTracking tracking(options);
  const std::vector<nft::TargetId> ids = tracking.addDatabase(std::move(db), path.string());
  const cv::Size frameSize(640, 480);
  tracking.setCalibration(nft::tracker::defaultCalibration(frameSize), caps);
  // Print k, 400 pixels wide, in the middle of a plain frame; blank frames between prints.
  auto frameOf = [&](int k) {
    cv::Mat frame(frameSize, CV_8UC3, cv::Scalar(128, 128, 128));
    if (k < 0) return frame;
    const cv::Mat image = cv::imread((nft::testing::dataDir() / prints[static_cast<size_t>(k)].second).string());
    cv::Mat scaled;
    const double f = std::min(400.0 / image.cols, 400.0 / image.rows);
    cv::resize(image, scaled, cv::Size(), f, f, cv::INTER_AREA);
    scaled.copyTo(frame(cv::Rect((frameSize.width - scaled.cols) / 2, (frameSize.height - scaled.rows) / 2, scaled.cols, scaled.rows)));
    return frame;
  };
  // Shows print k for four frames and three blank ones; returns on how many of the four it was found.
  auto show = [&](int k) {
    int found = 0;
    for (int i = 0; i < 7; ++i) {
      nft::FrameResult result;
      tracking.track(frameOf(i < 4 ? k : -1), result);
      for (const nft::TargetResult& t : result.targets) {
        if (t.found && i < 4) found += t.id == ids[static_cast<size_t>(k)] ? 1 : 0;
        if (t.found) {
          EXPECT_EQ(t.id, ids[static_cast<size_t>(k)]) << "print " << k << ", frame " << i << ": " << t.name;
        }
      }
    }
    return found;
  };
  for (int k = 0; k < 6; ++k) EXPECT_GE(show(k), 3) << prints[static_cast<size_t>(k)].first;
  const int firstBefore = stored[0]->decodeCount(), fifthBefore = stored[4]->decodeCount();
  EXPECT_GE(firstBefore, 1);
  EXPECT_GE(show(0), 3) << "the first print, its model given back";
  EXPECT_EQ(stored[0]->decodeCount(), firstBefore + 1) << "decoded again when found again";
  EXPECT_GE(show(4), 3) << "the fifth print, among the last four lost";
  EXPECT_EQ(stored[4]->decodeCount(), fifthBefore) << "its model was kept";
  fs::remove(path);
}

}  // namespace
