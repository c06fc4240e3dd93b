// hello: the pose of a planar target in every frame of a video (the README's app).
#include <cstdio>
#include <nft/nft.h>
#include <opencv2/videoio.hpp>

int main(int argc, char** argv) try {
  if (argc != 3) return std::fprintf(stderr, "usage: hello TARGET_IMAGE VIDEO\n"), 2;
  nft::SessionOptions options;  // the defaults, a headless OpenGL ES 2.0 context, and for a file
  options.config.tracking.asyncDetection = nft::config::AsyncDetection::Off;  // frame by frame
  nft::Session session(options);
  session.addTarget(argv[1]);  // an image, trained here, or a model made by nft_train
  cv::VideoCapture video(argv[2]);
  if (!video.isOpened()) return std::fprintf(stderr, "hello: cannot open '%s'\n", argv[2]), 1;
  for (cv::Mat frame; video.read(frame);) {
    const nft::FrameResult r = session.process(frame);
    const nft::TargetResult& t = r.targets[0];
    if (t.found)  // X_camera = R(rvec) X_target + t, metres
      std::printf("frame %lld: t = %.3f %.3f %.3f\n", r.frame, t.pose.t[0], t.pose.t[1], t.pose.t[2]);
    else
      std::printf("frame %lld: not found\n", r.frame);
  }
} catch (const nft::Error& e) {  // every error of the library, naming what is wrong
  return std::fprintf(stderr, "hello: %s\n", e.what()), 1;
}
