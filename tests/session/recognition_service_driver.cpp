// The C++ client against the real recognition service (issue 48 item 3): a Session that holds
// no target is shown one frame again and again through nft::SessionRecognition, as a camera
// would show it, until the service's answer is tracked. Run by
// tests/python/test_recognition_service.py, which starts `nft-recognition serve` and checks
// what this prints; the service needs the Python module, so the test lives there.
//
// usage: nft_recognition_service_driver URL TOKEN FRAME MODELS_DIR MAX_FRAMES
//   TOKEN "-" for none; FRAME an image file. Runs until the target is found, a request fails
//   or MAX_FRAMES frames have been shown, and prints one JSON object on stdout:
//   {"found_at": frame index or null, "name", "corners": [[x, y] x4] (pixels),
//    "requests_when_found", "requests_after" (5 frames later), "added": {"catalogue id": session id},
//    "errors": [message, ...]}
#include <chrono>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "nft/recognition.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: " << argv[0] << " URL TOKEN|- FRAME MODELS_DIR MAX_FRAMES\n";
    return 2;
  }
  const std::string token = std::string(argv[2]) == "-" ? "" : argv[2];
  const cv::Mat frame = cv::imread(argv[3], cv::IMREAD_COLOR);
  if (frame.empty()) {
    std::cerr << "cannot read the frame " << argv[3] << "\n";
    return 2;
  }
  const int maxFrames = std::stoi(argv[5]);
  nft::SessionOptions options;
  options.config.tracking.asyncDetection = nft::config::AsyncDetection::Off;  // found on the frame it is added at
  nft::Session session(options);
  auto client = std::make_shared<nft::RecognitionClient>(argv[1], token, 60.0);
  nlohmann::json out = {{"found_at", nullptr}, {"corners", nlohmann::json::array()}};
  {
    //! [session_recognition]
    // With the config's recognition section instead: nft::SessionRecognition recognition(session);
    nft::SessionRecognition recognition(session, client, /*minIntervalS=*/0.0, /*modelsDir=*/argv[4]);
    for (int i = 0; i < maxFrames; ++i) {
      // session.process(frame); when nothing is found, the frame is sent from a worker thread
      const nft::FrameResult result = recognition.process(frame);
      const nft::TargetResult* found = nullptr;
      for (const nft::TargetResult& t : result.targets)
        if (t.found) found = &t;
      if (found) {
        out["found_at"] = i;
        out["name"] = found->name;
        for (const cv::Point2f& c : found->corners) out["corners"].push_back({c.x, c.y});
        out["requests_when_found"] = recognition.requests();
        for (int k = 0; k < 5; ++k) recognition.process(frame);
        break;
      }
      if (!recognition.errors().empty()) break;  // the first failed request ends the run
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a camera's frame period, about
    }
    //! [session_recognition]
    out["requests_after"] = recognition.requests();
    out["added"] = nlohmann::json::object();
    for (const auto& [id, tid] : recognition.added()) out["added"][std::to_string(id)] = tid;
    out["errors"] = recognition.errors();
  }
  std::cout << out.dump() << std::endl;
  return 0;
}
