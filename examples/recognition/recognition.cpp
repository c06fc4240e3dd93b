// recognition: an app whose targets live in a catalogue on a recognition service (issue 48;
// docs/catalogue_recognition.md) rather than on the device. The Session starts with no target;
// while it finds none, frames go to the service (off the camera thread, at most one a second),
// and the target the service recognises is downloaded and tracked on the device.
//
//   recognition URL VIDEO [MAX_FRAMES]   e.g.  recognition http://10.0.0.2:8080 book.mp4
//
// The service's token comes from $NFT_RECOGNITION_TOKEN (none for a service started with
// --no-auth). Prints "frame N: found NAME (catalogue id K)" when a target is first found and
// "frame N: lost" when it is lost, then "frames F, found in G, requests R, errors E", and each
// failed request's message on stderr. Exits 1 on a bad argument or an unreadable video.
//
// Build it against an installed nft with its recognition component (CMakeLists.txt beside this
// file: find_package(nft COMPONENTS recognition), or pkg-config nft-recognition).
#include <cstdio>
#include <string>

#include <nft/nft.h>
#include <nft/recognition.h>    // nft::SessionRecognition: libnft-recognition
#include <opencv2/videoio.hpp>  // cv::VideoCapture: reading the video is the app's part

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s URL VIDEO [MAX_FRAMES]\n", argv[0]);
    return 1;
  }
  try {
    cv::VideoCapture video(argv[2]);
    if (!video.isOpened()) {
      std::fprintf(stderr, "recognition: cannot open the video '%s'\n", argv[2]);
      return 1;
    }
    const long maxFrames = argc == 4 ? std::stol(argv[3]) : -1;

    //! [recognition_config]
    // The service is part of the configuration (in a YAML file: recognition: {url: ...});
    // SessionRecognition reads its url, token, rate limit and timeout there.
    nft::SessionOptions options;
    options.config.recognition.url = argv[1];
    options.config.tracking.asyncDetection = nft::config::AsyncDetection::Off;  // a file, not a camera
    nft::Session session(options);  // no target of its own
    nft::SessionRecognition recognition(session);
    //! [recognition_config]

    long frames = 0, foundIn = 0;
    bool wasFound = false;
    cv::Mat frame;
    while ((maxFrames < 0 || frames < maxFrames) && video.read(frame)) {
      const nft::FrameResult result = recognition.process(frame);
      const nft::TargetResult* found = nullptr;
      for (const nft::TargetResult& t : result.targets)
        if (t.found) found = &t;
      if (found && !wasFound) {
        long long catalogueId = 0;
        for (const auto& [id, sessionId] : recognition.added())
          if (sessionId == found->id) catalogueId = id;
        std::printf("frame %ld: found %s (catalogue id %lld)\n", frames, found->name.c_str(), catalogueId);
      } else if (!found && wasFound) {
        std::printf("frame %ld: lost\n", frames);
      }
      wasFound = found != nullptr;
      foundIn += wasFound ? 1 : 0;
      ++frames;
    }
    std::printf("frames %ld, found in %ld, requests %d, errors %zu\n", frames, foundIn, recognition.requests(),
                recognition.errors().size());
    for (const std::string& e : recognition.errors()) std::fprintf(stderr, "recognition: %s\n", e.c_str());
    return 0;
  } catch (const nft::Error& e) {  // a bad URL or token file (nft::ConfigError), no GPU context, ...
    std::fprintf(stderr, "recognition: %s\n", e.what());
    return 1;
  }
}
