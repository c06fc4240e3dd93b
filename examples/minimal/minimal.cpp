// minimal: the smallest complete app on the nft library. It follows one planar target (a book
// cover, a poster) through a video and prints, for every frame, where the target's corners are
// in the frame and the camera's pose relative to the target.
//
//   minimal TARGET_IMAGE VIDEO        e.g.  minimal cover.jpg book.mp4
//
// Build it against an installed nft (see CMakeLists.txt beside this file, or pkg-config nft).
#include <cstdio>

#include <nft/nft.h>            // the whole public API: nft::Session, its types and errors
#include <opencv2/videoio.hpp>  // cv::VideoCapture: reading the video is the app's part

//! [main]
int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TARGET_IMAGE VIDEO\n", argv[0]);
    return 1;
  }
  try {
    // 1. The video. Any source cv::VideoCapture reads would do: a file, a camera, a stream.
    cv::VideoCapture video(argv[2]);
    if (!video.isOpened()) {
      std::fprintf(stderr, "minimal: cannot open the video '%s'\n", argv[2]);
      return 1;
    }

    // 2. A Session with the default configuration. It makes its own headless OpenGL ES 2.0
    //    context (EGL) for the GPU parts of the tracker: no window needed. A video file is read
    //    as fast as it decodes, so each search runs in the frame it searches, as nft_replay does
    //    (tracking.async_detection off); from a live camera keep the default, auto: the search on
    //    a worker thread, process() returning after the tracking lane (examples/camera).
    nft::SessionOptions options;
    options.config.tracking.asyncDetection = nft::config::AsyncDetection::Off;
    nft::Session session(options);

    // 3. The target: an image is trained here (keypoints, descriptors, tracking patches), which
    //    takes about a second. Poses come in metres for the configured target width (0.20 m).
    session.addTarget(argv[1]);

    // 4. Every frame in turn: process() finds the target (or follows it from the last frame)
    //    and returns one TargetResult per target, here just ours.
    cv::Mat frame;
    while (video.read(frame)) {
      const auto timestampNs = static_cast<long long>(video.get(cv::CAP_PROP_POS_MSEC) * 1e6);
      const nft::FrameResult result = session.process(frame, timestampNs);
      const nft::TargetResult& target = result.targets.at(0);
      if (!target.found) {
        std::printf("frame %lld: not found\n", result.frame);
        continue;
      }
      // The target image's corners in the frame, pixels: upper left, upper right, lower right,
      // lower left. The pose maps target to camera coordinates: X_cam = R(rvec) · X_target + t.
      const std::vector<cv::Point2f>& c = target.corners;
      const nft::Pose& pose = target.pose;
      std::printf("frame %lld: UL %.4f %.4f UR %.4f %.4f LR %.4f %.4f LL %.4f %.4f"
                  " rvec %.6f %.6f %.6f tvec %.6f %.6f %.6f\n",
                  result.frame, c[0].x, c[0].y, c[1].x, c[1].y, c[2].x, c[2].y, c[3].x, c[3].y,
                  pose.rvec[0], pose.rvec[1], pose.rvec[2], pose.t[0], pose.t[1], pose.t[2]);
    }
  } catch (const nft::Error& e) {
    // Everything the library reports is an nft::Error, with a message naming what is wrong.
    std::fprintf(stderr, "minimal: %s\n", e.what());
    return 1;
  }
  return 0;
}
//! [main]
