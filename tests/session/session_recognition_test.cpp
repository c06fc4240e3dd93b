// nft::SessionRecognition with a stand-in for the service (issue 48, item 3): asked only when the
// Session finds nothing, from another thread while process() goes on, at most once per
// interval; what comes back is added and tracked; failures are kept, never thrown. The real
// service answers the same calls in recognition_service_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "config/config.h"
#include "config/config_error.h"
#include "nft/recognition.h"
#include "support/program_run.h"
#include "support/synchronous_session.h"

namespace {

const std::string kSamples = "/usr/share/doc/opencv-doc/examples/data/";
const std::vector<cv::Point2f> kQuad = {{150, 90}, {470, 70}, {500, 400}, {120, 380}};

cv::Mat sample(const std::string& name) {
  cv::Mat m = cv::imread(kSamples + name, cv::IMREAD_GRAYSCALE);
  if (m.empty()) ADD_FAILURE() << kSamples + name << " is missing: install Debian's opencv-doc (scripts/install-deps.sh)";
  return m;
}

// graf1.png warped onto kQuad over leuvenA.jpg (which shows none of it), 640×480 grey.
cv::Mat viewOfGraf() {
  const cv::Mat target = sample("graf1.png");
  cv::Mat frame;
  cv::resize(sample("leuvenA.jpg"), frame, {640, 480});
  const std::vector<cv::Point2f> corners = {{0, 0}, {float(target.cols), 0}, {float(target.cols), float(target.rows)},
                                            {0, float(target.rows)}};
  const cv::Mat H = cv::getPerspectiveTransform(corners, kQuad);
  cv::warpPerspective(target, frame, H, frame.size(), cv::INTER_LINEAR, cv::BORDER_TRANSPARENT);
  return frame;
}

// The service's stand-in: recognize() blocks until the test opens the gate, records the thread
// it runs on, and answers what the test set; downloadModel() "downloads" graf1.png.
class FakeService : public nft::RemoteRecognizer {
 public:
  nft::Recognition recognize(const cv::Mat& frame) override {
    std::unique_lock<std::mutex> lock(mutex_);
    threads.push_back(std::this_thread::get_id());
    frameSizes.push_back(frame.size());
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    ++answered_;
    changed_.notify_all();
    if (!failure.empty()) throw nft::RecognitionError(failure, 503);
    return answer;
  }
  std::string downloadModel(long long targetId, const std::string& folder) override {
    ++downloads;
    std::filesystem::create_directories(folder);
    const std::string path = folder + "/" + std::to_string(targetId) + ".png";
    std::filesystem::copy_file(kSamples + "graf1.png", path, std::filesystem::copy_options::overwrite_existing);
    return path;
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  void waitEntered() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return entered_; });
  }
  void waitAnswered(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return answered_ >= n; });
  }

  nft::Recognition answer;  // set before the gate opens
  std::string failure;      // non-empty: recognize() throws it
  std::vector<std::thread::id> threads;
  std::vector<cv::Size> frameSizes;
  std::atomic<int> downloads{0};

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool entered_ = false, open_ = false;
  int answered_ = 0;
};

nft::Recognition grafFound() {
  nft::Recognition r;
  r.found = true;
  r.targetId = 42;
  r.name = "graf";
  r.widthMetres = 0.2;
  r.quad = kQuad;
  return r;
}

// process() until the request in flight is collected (it finished on the worker).
void processUntilCollected(nft::SessionRecognition& recognition, const cv::Mat& frame) {
  for (int i = 0; i < 200 && recognition.pending(); ++i) {
    recognition.process(frame);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(recognition.pending());
}

}  // namespace

TEST(SessionRecognition, AsksFromAWorkerOnlyWhileNothingIsFoundThenTracksWhatComesBack) {
  nft::Session session(nft::testing::synchronous());
  auto service = std::make_shared<FakeService>();
  service->answer = grafFound();
  const auto models = nft::testing::freshTempDir("session_recognition_models");
  nft::SessionRecognition recognition(session, service, 0.0, models.string());
  const cv::Mat frame = viewOfGraf();

  // The Session has no target: the first frame is sent; process() returns while the request is
  // held in the stand-in (so it cannot run on this thread), and no second request is made.
  nft::FrameResult r = recognition.process(frame);
  EXPECT_TRUE(r.targets.empty());
  service->waitEntered();
  EXPECT_EQ(recognition.requests(), 1);
  EXPECT_TRUE(recognition.pending());
  recognition.process(frame);
  recognition.process(frame);
  EXPECT_EQ(recognition.requests(), 1) << "a second request while one is in flight";
  ASSERT_EQ(service->threads.size(), 1u);
  EXPECT_NE(service->threads[0], std::this_thread::get_id()) << "the request ran on the camera thread";
  EXPECT_EQ(service->frameSizes[0], frame.size());

  // The answer: the model is downloaded on the worker and added on this thread.
  service->open();
  service->waitAnswered(1);
  processUntilCollected(recognition, frame);
  ASSERT_EQ(recognition.added().size(), 1u) << (recognition.errors().empty() ? "" : recognition.errors().back());
  EXPECT_EQ(recognition.added().begin()->first, 42);
  EXPECT_EQ(service->downloads.load(), 1);
  EXPECT_TRUE(std::filesystem::exists(models / "42.png"));

  // From then on the Session finds the target itself, where it is in the frame, and the service
  // is not asked again.
  int found = 0;
  double worst = 0;
  for (int i = 0; i < 8; ++i) {
    r = recognition.process(frame);
    ASSERT_EQ(r.targets.size(), 1u);
    EXPECT_EQ(r.targets[0].name, "graf");
    if (!r.targets[0].found) continue;
    ++found;
    for (int k = 0; k < 4; ++k) worst = std::max(worst, cv::norm(r.targets[0].corners[k] - kQuad[k]));
  }
  EXPECT_GE(found, 7);
  EXPECT_LT(worst, 3.0) << "corners off the known quad, pixels";
  EXPECT_EQ(recognition.requests(), 1);
  EXPECT_TRUE(recognition.errors().empty());
}

TEST(SessionRecognition, TheRateLimitSpacesRequestsAndFailuresAreKeptNotThrown) {
  nft::Session session(nft::testing::synchronous());
  const cv::Mat frame = viewOfGraf();
  {  // An hour between requests: one request for many frames that show nothing known.
    auto service = std::make_shared<FakeService>();
    service->open();
    nft::SessionRecognition recognition(session, service, 3600.0);
    for (int i = 0; i < 6; ++i) {
      recognition.process(frame);
      service->waitAnswered(1);
    }
    EXPECT_EQ(recognition.requests(), 1);
    EXPECT_TRUE(recognition.added().empty()) << "a not-found answer added a target";
  }
  {  // No interval, a failing service: each failure is kept, and the frame that collects it
     // sends the next request.
    auto service = std::make_shared<FakeService>();
    service->failure = "POST /recognize: 503 the catalogue is loading";
    service->open();
    nft::SessionRecognition recognition(session, service, 0.0);
    ASSERT_NO_THROW(recognition.process(frame));
    for (size_t n = 1; n <= 3; ++n)
      for (int i = 0; i < 400 && recognition.errors().size() < n; ++i) {
        ASSERT_NO_THROW(recognition.process(frame));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    ASSERT_EQ(recognition.errors().size(), 3u);
    EXPECT_EQ(recognition.requests(), 4);
    EXPECT_EQ(recognition.errors()[0], service->failure);
    EXPECT_EQ(service->downloads.load(), 0);
  }
}

TEST(SessionRecognition, BadSettingsAreConfigErrorsNamingThem) {
  nft::Session session(nft::testing::synchronous());
  const auto message = [](auto&& call) {
    try {
      call();
    } catch (const nft::ConfigError& e) {  // the public API's error
      return std::string(e.what());
    } catch (const nft::config::ConfigError& e) {  // the config module's own, from parseConfig
      return std::string(e.what());
    }
    return std::string("no ConfigError");
  };
  EXPECT_NE(message([&] { nft::SessionRecognition r(session); }).find("recognition.url"), std::string::npos)
      << "a Session without recognition.url";
  EXPECT_NE(message([&] { nft::RecognitionClient c("ftp://host"); }).find("ftp://host"), std::string::npos);
  EXPECT_NE(message([&] { nft::RecognitionClient c("http://host", "", 0.0); }).find("timeout"), std::string::npos);
  EXPECT_NE(message([&] { nft::SessionRecognition r(session, nullptr, 1.0); }).find("null"), std::string::npos);
  EXPECT_NE(message([&] { nft::SessionRecognition r(session, std::make_shared<FakeService>(), -1.0); })
                .find("min interval"),
            std::string::npos);
  nft::config::Config c;
  c.recognition.url = "http://127.0.0.1:9";
  c.recognition.tokenFile = "/nonexistent/token";
  EXPECT_NE(message([&] { nft::makeRecognitionClient(c); }).find("/nonexistent/token"), std::string::npos);
  EXPECT_NE(message([] { nft::config::parseConfig("recognition:\n  url: ftp://x\n", "r.yaml"); })
                .find("recognition.url"),
            std::string::npos);
}

TEST(RecognitionClient, AServiceThatIsNotThereIsARecognitionErrorNamingTheUrl) {
  // Port 9 (discard) on localhost: nothing listens there on a test machine.
  nft::RecognitionClient client("http://127.0.0.1:9/", "", 2.0);
  EXPECT_EQ(client.url(), "http://127.0.0.1:9");
  try {
    client.recognize(viewOfGraf());
    FAIL() << "no RecognitionError";
  } catch (const nft::RecognitionError& e) {
    EXPECT_EQ(e.status(), 0);
    EXPECT_NE(std::string(e.what()).find("POST /recognize"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("http://127.0.0.1:9/recognize"), std::string::npos) << e.what();
  }
  EXPECT_THROW(client.downloadModel(1, nft::testing::freshTempDir("no_service").string()), nft::RecognitionError);
}
