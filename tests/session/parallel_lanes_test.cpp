// The per-target work of one frame side by side (session/parallel_each.h): parallelEach itself,
// and the 8-print grid tracked with the lanes and refinements on several threads, which must
// report exactly what one thread reports (each lane has its own state; they share only the frame
// and its pyramid, read). Under the tsan preset the lanes run on std::threads: TSan checks them.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <opencv2/core/utility.hpp>

#include "nft/nft.h"
#include "session/parallel_each.h"
#include "support/synchronous_session.h"
#include "synthetic/multi_target_sequence.h"

namespace nft::session {
namespace {

// The threads of OpenCV's pool for the runs side by side: 2 (what the 2-core CI machine has).
// Under TSan, 1: parallelEach runs std::threads there regardless, and OpenCV's own loops stay on
// the calling thread (support/serial_opencv_under_tsan.cpp).
#if defined(__SANITIZE_THREAD__)
constexpr int kSeveralThreads = 1;
#else
constexpr int kSeveralThreads = 2;
#endif

/// cv::setNumThreads(n) for a scope.
class OpenCvThreads {
 public:
  explicit OpenCvThreads(int n) : before_(cv::getNumThreads()) { cv::setNumThreads(n); }
  ~OpenCvThreads() { cv::setNumThreads(before_); }
  OpenCvThreads(const OpenCvThreads&) = delete;
  OpenCvThreads& operator=(const OpenCvThreads&) = delete;

 private:
  int before_;
};

TEST(ParallelEach, CallsEveryIndexOnce) {
  const OpenCvThreads threads(kSeveralThreads);
  for (const size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{64}}) {
    std::vector<std::atomic<int>> calls(count);
    parallelEach(count, [&](size_t i) { ++calls[i]; });
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i].load(), 1) << "index " << i << " of " << count;
  }
}

TEST(ParallelEach, RethrowsTheLowestIndexsExceptionWithItsTypeAfterEveryCall) {
  const OpenCvThreads threads(kSeveralThreads);
  std::atomic<int> calls{0};
  try {
    parallelEach(8, [&](size_t i) {
      ++calls;
      if (i == 5) throw std::runtime_error("five");
      if (i == 3) throw std::invalid_argument("three");
    });
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "three");
  }
  EXPECT_EQ(calls.load(), 8) << "every call ends before the rethrow";
}

/// Every target result of every frame of the grid's first `frames` frames, tracked by a
/// synchronous Session with OpenCV's pool at `threads` threads.
std::vector<FrameResult> trackGrid(int threads, int frames) {
  const OpenCvThreads scope(threads);
  replay::MultiTargetSequenceOptions o;
  o.layout = replay::MultiTargetLayout::Grid;
  o.frames = frames;
  const replay::MultiTargetSequence grid(o);
  Session session(nft::testing::synchronous());
  for (const replay::MultiTargetPrint& p : grid.prints()) session.addTarget(p.image, p.name, p.widthM);
  std::vector<FrameResult> results;
  for (int i = 0; i < grid.frameCount(); ++i) results.push_back(session.process(grid.render(i)));
  return results;
}

TEST(ParallelLanes, TheGridTrackedOnSeveralThreadsIsReportedAsOnOne) {
  ASSERT_TRUE(std::filesystem::exists(std::string(replay::kOpencvDocData) + "/baboon.jpg"))
      << "opencv-doc missing (scripts/install-deps.sh installs it)";
  const int frames = 12;
  const std::vector<FrameResult> one = trackGrid(1, frames), several = trackGrid(kSeveralThreads, frames);
  ASSERT_EQ(one.size(), several.size());
  int tracked = 0;
  for (size_t f = 0; f < one.size(); ++f) {
    ASSERT_EQ(one[f].targets.size(), several[f].targets.size()) << "frame " << f;
    for (size_t k = 0; k < one[f].targets.size(); ++k) {
      const TargetResult &a = one[f].targets[k], &b = several[f].targets[k];
      ASSERT_EQ(a.name, b.name) << "frame " << f;
      ASSERT_EQ(a.found, b.found) << a.name << ", frame " << f;
      if (!a.found) continue;
      tracked += a.state == TrackingState::Tracking ? 1 : 0;
      ASSERT_EQ(a.corners.size(), 4u);
      ASSERT_EQ(b.corners.size(), 4u);
      for (size_t c = 0; c < 4; ++c) EXPECT_EQ(a.corners[c], b.corners[c]) << a.name << ", frame " << f << ", corner " << c;
      EXPECT_EQ(cv::norm(a.pose.t - b.pose.t), 0.0) << a.name << ", frame " << f;
      EXPECT_EQ(a.inliers, b.inliers) << a.name << ", frame " << f;
    }
  }
  // The lanes ran side by side: 8 prints tracked on most of the frames after the first two.
  EXPECT_GE(tracked, 8 * (frames - 4)) << "print-frames tracked by the lanes";
}

}  // namespace
}  // namespace nft::session
