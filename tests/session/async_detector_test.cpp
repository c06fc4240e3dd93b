// The detection worker itself (session/async_detector.h), below the Session: the recogniser of
// several targets is built on the worker without the caller waiting for it (a build error comes
// back from poll()), and a compact database target found comes with its model decoded there, so
// that the camera thread starts its tracking lane without decoding it (unless it holds it already).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/stored_target.h"
#include "detection/target_database.h"
#include "gpu/capabilities.h"
#include "nft/nft.h"
#include "session/async_detector.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"
#include "support/test_data.h"
#include "tracker/camera_calibration.h"

namespace {

namespace fs = std::filesystem;
using nft::session::AsyncDetector;
using nft::session::RecognizerSpec;
using nft::session::SearchOutcome;
using nft::session::SearchRequest;

const cv::Size kFrameSize(640, 480);

/// Polls until the search in flight is handed out (a failure after 60 s: the worker's speed is not
/// what is tested). Rethrows what poll() throws.
SearchOutcome waitForOutcome(AsyncDetector& detector) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (std::optional<SearchOutcome> o = detector.poll(1)) return std::move(*o);
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) {
      ADD_FAILURE() << "no outcome in 60 s";
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

SearchRequest requestFor(const cv::Mat& gray) {
  SearchRequest q;
  q.frame = 0;
  q.gray = gray.clone();
  return q;
}

TEST(AsyncDetector, TheRecognisersBuildErrorComesBackFromPollWithAWorkerAndFromSetSeveralWithoutOne) {
  nft::Session context;  // a GL context, current on this thread, for the probe
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  const nft::tracker::CameraCalibration calibration = nft::tracker::defaultCalibration(kFrameSize);
  RecognizerSpec spec;  // an empty vocabulary: MultiTargetDetector's constructor refuses it
  const cv::Mat gray(kFrameSize, CV_8UC1, cv::Scalar(128));

  AsyncDetector worker(0);
  EXPECT_NO_THROW(worker.setSeveral(caps, calibration, spec)) << "the worker builds it, the caller does not wait";
  EXPECT_TRUE(worker.ready());
  worker.submit(requestFor(gray));
  try {
    waitForOutcome(worker);
    ADD_FAILURE() << "the search after a failed build handed out an outcome";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vocabulary is empty"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(worker.busy()) << "the failed search is taken";

  AsyncDetector replayed(1);  // no worker: the error comes from setSeveral itself
  try {
    replayed.setSeveral(caps, calibration, spec);
    ADD_FAILURE() << "setSeveral without a worker did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vocabulary is empty"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(replayed.ready());
}

TEST(AsyncDetector, AFoundCompactTargetComesWithItsModelDecodedOnTheWorker) {
  NFT_REQUIRE_DATA("video/tmt_bookI/target.png");
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  nft::Session context;
  nft::config::Config config;
  const nft::session::PipelineOptions options = nft::session::pipelineOptions(config);
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  const fs::path book = nft::testing::dataDir() / "video/tmt_bookI/target.png";
  const fs::path graf = nft::testing::dataDir() / "oxford/graf/img1.png";
  std::vector<std::pair<std::string, nft::detection::TargetModel>> models;
  models.emplace_back("book", nft::session::loadTarget(book.string(), options, caps).model);
  models.emplace_back("graf", nft::session::loadTarget(graf.string(), options, caps).model);
  const fs::path path = fs::temp_directory_path() / ("nft_async_detector_" + std::to_string(::getpid()) + ".nftdb");
  nft::detection::TargetDatabase::build(models).save(path.string());
  const nft::detection::TargetDatabase db = nft::detection::TargetDatabase::load(path.string(), {/*keepCompact=*/true});
  ASSERT_EQ(db.targets().size(), 2u);
  const std::shared_ptr<const nft::detection::StoredTarget> bookStored = db.targets()[0].stored;
  ASSERT_TRUE(bookStored != nullptr);

  RecognizerSpec spec{db.vocabulary(), bookStored->descriptorType(), bookStored->orientation(), {}, {}};
  spec.options.lane = options.tracker.detection;
  spec.options.shortlist = options.shortlist;
  for (size_t i = 0; i < db.targets().size(); ++i)
    spec.targets.push_back({static_cast<int>(i), nullptr, db.targets()[i].words, db.targets()[i].stored});

  // The book, 300 pixels high, in the middle of a plain frame.
  cv::Mat gray(kFrameSize, CV_8UC1, cv::Scalar(128));
  cv::Mat image = cv::imread(book.string(), cv::IMREAD_GRAYSCALE), scaled;
  cv::resize(image, scaled, cv::Size(), 300.0 / image.rows, 300.0 / image.rows, cv::INTER_AREA);
  scaled.copyTo(gray(cv::Rect((kFrameSize.width - scaled.cols) / 2, (kFrameSize.height - scaled.rows) / 2,
                              scaled.cols, scaled.rows)));

  AsyncDetector worker(0);
  worker.setSeveral(caps, nft::tracker::defaultCalibration(kFrameSize), spec);
  worker.submit(requestFor(gray));
  const SearchOutcome o = waitForOutcome(worker);
  ASSERT_EQ(o.detections.size(), 1u) << o.rejection;
  EXPECT_EQ(o.detections.front().target, 0) << "the book";
  ASSERT_EQ(o.models.size(), 1u) << "the found target's model, and only its";
  ASSERT_EQ(o.models.count(0), 1u);
  const nft::detection::TargetModel expected = bookStored->decode();
  const nft::detection::TargetModel& got = *o.models.at(0);
  EXPECT_EQ(got.keypoints.size(), expected.keypoints.size());
  ASSERT_EQ(got.image.size(), expected.image.size());
  EXPECT_EQ(cv::norm(got.image, expected.image, cv::NORM_INF), 0.0) << "the same decoded image";
  EXPECT_EQ(cv::norm(got.descriptors, expected.descriptors, cv::NORM_INF), 0.0) << "the same descriptors";

  // Found again while the caller still holds its model: not decoded a second time.
  SearchRequest again = requestFor(gray);
  again.decoded = {0};
  worker.submit(std::move(again));
  const SearchOutcome second = waitForOutcome(worker);
  ASSERT_EQ(second.detections.size(), 1u) << second.rejection;
  EXPECT_TRUE(second.models.empty()) << "a model the caller holds was decoded again";
  fs::remove(path);
}

}  // namespace
