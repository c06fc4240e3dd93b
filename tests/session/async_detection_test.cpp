// Asynchronous detection (config tracking.async_detection, async_delay_frames;
// session/async_detector.h): the detection lane and the recogniser off the camera thread, a
// found target carried to the current frame by the tracking lane, the replayed delay, and the
// calls that must wait for or cancel a search in flight — on tmt_bookI (../shared/data).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include <opencv2/videoio.hpp>

#include "nft/nft.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
const char* kVideo = "video/tmt_bookI/video.mp4";
const fs::path kOpenCvData = "/usr/share/doc/opencv-doc/examples/data";

std::vector<cv::Mat> readFrames(int n) { return nft::testing::readVideoFrames(kVideo, n); }

std::string bookPath() { return (nft::testing::dataDir() / "video/tmt_bookI/target.png").string(); }

nft::SessionOptions withAsync(nft::config::AsyncDetection mode, int delayFrames = 0) {
  nft::SessionOptions o;
  o.config.tracking.asyncDetection = mode;
  o.config.tracking.asyncDelayFrames = delayFrames;
  return o;
}

/// A still camera: `frame` given to the Session again and again until `name` is reported found
/// (the worker's search of the first call comes back on a later one) or 60 s pass (a failure,
/// not a time limit: the worker's speed is not what is tested). Returns the calls made. With
/// `startsTheSearch` the first call must hand the search to the worker (and report nothing found);
/// false when an earlier call already did, whose search may have come back by now.
int processUntilFound(nft::Session& session, const cv::Mat& frame, const std::string& name,
                      bool startsTheSearch = true) {
  const auto start = std::chrono::steady_clock::now();
  for (int calls = 1;; ++calls) {
    const nft::FrameResult r = session.process(frame);
    if (calls == 1 && startsTheSearch) {
      EXPECT_TRUE(r.searchInFlight) << "the first frame's search was not handed to the worker";
      for (const nft::TargetResult& t : r.targets) EXPECT_FALSE(t.found) << "found before any search came back";
    }
    for (const nft::TargetResult& t : r.targets)
      if (t.name == name && t.found) {
        EXPECT_EQ(t.state, nft::TrackingState::Detecting) << "the frame a search's target is first reported";
        return calls;
      }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) {
      ADD_FAILURE() << name << " not found on a still camera in 60 s (" << calls << " frames)";
      return calls;
    }
  }
}

double largestCornerDistance(const nft::TargetResult& a, const nft::TargetResult& b) {
  double d = 0;
  for (size_t i = 0; i < 4; ++i) d = std::max(d, static_cast<double>(cv::norm(a.corners[i] - b.corners[i])));
  return d;
}

TEST(AsyncDetection, AReplayedDelayReportsTheBookThatManyFramesLaterAndIsDeterministic) {
  NFT_REQUIRE_DATA(kVideo);
  const std::vector<cv::Mat> frames = readFrames(30);
  ASSERT_EQ(frames.size(), 30u);
  constexpr int kDelay = 3;
  nft::Session sync(withAsync(nft::config::AsyncDetection::Off));
  nft::Session delayed(withAsync(nft::config::AsyncDetection::Off, kDelay));
  nft::Session again(withAsync(nft::config::AsyncDetection::On, kDelay));  // the delay wins over "on"
  for (nft::Session* s : {&sync, &delayed, &again}) s->addTarget(bookPath(), "book");
  for (const cv::Mat& f : frames) {
    const nft::FrameResult s = sync.process(f), d = delayed.process(f), a = again.process(f);
    ASSERT_EQ(d.targets.size(), 1u);
    EXPECT_TRUE(s.targets[0].found) << "frame " << s.frame << ": the book is in view in every frame";
    EXPECT_FALSE(s.searchInFlight);
    if (d.frame < kDelay) {
      // Frame 0's detection ran in process() but is applied on frame kDelay.
      EXPECT_FALSE(d.targets[0].found) << "frame " << d.frame;
      EXPECT_EQ(d.targets[0].state, nft::TrackingState::Detecting);
      EXPECT_TRUE(d.searchInFlight) << "frame " << d.frame;
      EXPECT_NE(d.targets[0].rejection.find("in flight"), std::string::npos) << d.targets[0].rejection;
    } else {
      ASSERT_TRUE(d.targets[0].found) << "frame " << d.frame << ": " << d.targets[0].rejection;
      EXPECT_EQ(d.targets[0].state, d.frame == kDelay ? nft::TrackingState::Detecting : nft::TrackingState::Tracking);
      EXPECT_FALSE(d.searchInFlight);
      // Carried from frame 0 to frame kDelay by the tracking lane: where the synchronous lanes
      // see the book.
      EXPECT_LT(largestCornerDistance(d.targets[0], s.targets[0]), 2.0) << "frame " << d.frame;
    }
    // Deterministic: the same frames, the same results.
    ASSERT_EQ(a.targets[0].found, d.targets[0].found) << "frame " << d.frame;
    for (size_t i = 0; i < a.targets[0].corners.size(); ++i)
      EXPECT_EQ(a.targets[0].corners[i], d.targets[0].corners[i]) << "frame " << d.frame;
  }
}

TEST(AsyncDetection, TheWorkerFindsTheBookAndTheTrackingLaneKeepsIt) {
  NFT_REQUIRE_DATA(kVideo);
  const std::vector<cv::Mat> frames = readFrames(80);
  ASSERT_EQ(frames.size(), 80u);
  nft::Session sync(withAsync(nft::config::AsyncDetection::Off));
  nft::Session async(withAsync(nft::config::AsyncDetection::On));
  sync.addTarget(bookPath(), "book");
  async.addTarget(bookPath(), "book");
  const nft::FrameResult first = async.process(frames[0]);
  EXPECT_EQ(first.timings.describe, 0.0) << "the search ran in process()";
  EXPECT_EQ(first.targets[0].state, nft::TrackingState::Detecting);
  EXPECT_TRUE(first.searchInFlight) << "the first frame's search was not handed to the worker";
  EXPECT_FALSE(first.targets[0].found) << "found before any search came back";
  EXPECT_GE(processUntilFound(async, frames[0], "book", false), 1);  // the search above may be back already
  sync.process(frames[0]);
  // Then the camera moves: the tracking lane keeps the book, where the synchronous lanes see it.
  for (size_t i = 1; i < frames.size(); ++i) {
    const nft::FrameResult s = sync.process(frames[i]), a = async.process(frames[i]);
    ASSERT_TRUE(a.targets[0].found) << "frame " << i << ": " << a.targets[0].rejection;
    EXPECT_EQ(a.targets[0].state, nft::TrackingState::Tracking) << "frame " << i;
    EXPECT_FALSE(a.searchInFlight) << "frame " << i << ": a search while the book is tracked";
    EXPECT_LT(largestCornerDistance(a.targets[0], s.targets[0]), 2.0) << "frame " << i;
  }
}

TEST(AsyncDetection, RemoveResetReleaseAndDestroyWaitForASearchInFlight) {
  NFT_REQUIRE_DATA(kVideo);
  const std::vector<cv::Mat> frames = readFrames(60);
  ASSERT_EQ(frames.size(), 60u);
  {
    nft::Session s(withAsync(nft::config::AsyncDetection::On));
    s.addTarget(bookPath(), "book");
    s.process(frames[0]);  // a search in flight, destroyed with the Session
  }
  nft::Session s(withAsync(nft::config::AsyncDetection::On));
  nft::TargetId id = s.addTarget(bookPath(), "book");
  s.process(frames[0]);
  s.removeTarget(id);  // the search of the removed target is dropped
  EXPECT_TRUE(s.process(frames[1]).targets.empty());
  id = s.addTarget(bookPath(), "book again");
  s.process(frames[2]);
  s.resetTracking();
  EXPECT_FALSE(s.process(frames[3]).targets[0].found) << "a search from before the reset was reported";
  s.releaseGpu();
  s.restoreGpu();
  // Afterwards it works as before: found, and kept.
  processUntilFound(s, frames[4], "book again");
  for (size_t i = 5; i < frames.size(); ++i) EXPECT_TRUE(s.process(frames[i]).targets[0].found) << "frame " << i;
  EXPECT_EQ(s.target(id).name, "book again");
}

TEST(AsyncDetection, TheGpuBackendsRunOnTheWorkersOwnContext) {
  NFT_REQUIRE_DATA(kVideo);
  const std::vector<cv::Mat> frames = readFrames(10);
  nft::SessionOptions o = withAsync(nft::config::AsyncDetection::On);
  o.config.descriptor.backend = nft::config::DescriptorBackend::Gpu;
  o.config.matcher.backend = nft::config::MatcherBackend::Gpu;
  nft::Session s(o);
  s.addTarget(bookPath(), "book");
  processUntilFound(s, frames[0], "book");
  for (const cv::Mat& f : frames) EXPECT_TRUE(s.process(f).targets[0].found);
  // The Session's own context is still the one current here (the worker's is current there).
  const cv::Mat drawn = s.renderToImage(s.process(frames.back()));
  EXPECT_EQ(drawn.size(), frames.back().size());
}

TEST(AsyncDetection, SeveralTargetsAreRecognisedOnTheWorker) {
  NFT_REQUIRE_DATA(kVideo);
  ASSERT_TRUE(fs::exists(kOpenCvData / "baboon.jpg")) << "opencv-doc missing (scripts/install-deps.sh installs it)";
  const std::vector<cv::Mat> frames = readFrames(40);
  nft::Session s(withAsync(nft::config::AsyncDetection::On));
  s.addTarget((nft::testing::dataDir() / "video/cmu_book/cv_cover.jpg").string(), "cover");
  s.addTarget(bookPath(), "book");
  s.addTarget((kOpenCvData / "baboon.jpg").string(), "baboon");
  processUntilFound(s, frames[0], "book");
  for (const cv::Mat& f : frames) {
    const nft::FrameResult r = s.process(f);
    std::set<std::string> found;
    for (const nft::TargetResult& t : r.targets)
      if (t.found) found.insert(t.name);
    EXPECT_EQ(found, std::set<std::string>{"book"}) << "frame " << r.frame;
  }
}

TEST(AsyncDetection, FourSessionsOnFourThreadsAddAndRemoveTargetsWhileFramesFlow) {
  // The stress test of issue 33 (run under ThreadSanitizer by the tsan preset): four Sessions, each
  // on its own thread with its own context and detection worker, targets added, removed and the
  // tracking reset while frames flow and searches are in flight.
  NFT_REQUIRE_DATA(kVideo);
  const std::vector<cv::Mat> frames = readFrames(40);
  ASSERT_EQ(frames.size(), 40u);
  const std::string cover = (nft::testing::dataDir() / "video/cmu_book/cv_cover.jpg").string();
  std::vector<std::string> failures(4);
  std::vector<int> foundAtEnd(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      try {
        nft::Session s(withAsync(nft::config::AsyncDetection::On));
        nft::TargetId book = s.addTarget(bookPath(), "book");
        std::optional<nft::TargetId> second;
        for (size_t i = 0; i < frames.size(); ++i) {
          // Each thread changes its targets on other frames, so that the four are not in step.
          const size_t j = (i + 3 * static_cast<size_t>(k)) % frames.size();
          if (j == 8) second = s.addTarget(cover, "cover");
          if (j == 16) s.removeTarget(book);
          if (j == 24) book = s.addTarget(bookPath(), "book");
          if (j == 30 && second) {
            s.removeTarget(*second);
            second.reset();
          }
          if (j == 34) s.resetTracking();
          s.process(frames[i]);
        }
        // Still usable: the book is found and tracked.
        nft::Session& session = s;
        const auto start = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
          const nft::FrameResult r = session.process(frames.back());
          bool found = false;
          for (const nft::TargetResult& t : r.targets) found = found || (t.id == book && t.found);
          if (found) {
            foundAtEnd[static_cast<size_t>(k)] = 1;
            break;
          }
        }
      } catch (const std::exception& e) {
        failures[static_cast<size_t>(k)] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(failures[static_cast<size_t>(k)], "") << "thread " << k;
    EXPECT_EQ(foundAtEnd[static_cast<size_t>(k)], 1) << "thread " << k << ": the book was not found again";
  }
}

}  // namespace
