// A reference track from per-frame SIFT refined by masked ECC (see reference_track.h).
#include "apps/eval/reference_track.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include "apps/eval/feature_baseline.h"
#include "apps/replay/frame_source.h"

namespace nft::eval {
namespace {

cv::Point2d apply(const cv::Matx33d& H, double x, double y) {
  const cv::Vec3d p = H * cv::Vec3d(x, y, 1);
  return {p[0] / p[2], p[1] / p[2]};
}

}  // namespace

ReferenceReport makeReferenceTrack(const ReferenceRequest& request) {
  namespace fs = std::filesystem;
  if (!fs::is_regular_file(request.target)) throw std::runtime_error("target '" + request.target + "' does not exist");
  const cv::Mat target = cv::imread(request.target, cv::IMREAD_GRAYSCALE);
  if (target.empty()) throw std::runtime_error("cannot read target '" + request.target + "' (not an image?)");
  std::unique_ptr<replay::FrameSource> source = replay::openFrameSource(request.video);
  const fs::path out(request.out), temporary(request.out + ".partial");
  std::ofstream file(temporary);
  if (!file) throw std::runtime_error("cannot write reference '" + request.out + "'");
  file << "frame\tulx\tuly\turx\tury\tlrx\tlry\tllx\tlly\n";

  FeatureBaseline sift(BaselineKind::Sift, target);
  cv::Mat templ;
  target.convertTo(templ, CV_32F);
  const double w = target.cols, h = target.rows;
  const cv::Point2d corners[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  ReferenceReport report;
  cv::Mat frame, gray;
  for (; (request.maxFrames <= 0 || report.frames < request.maxFrames) && source->read(frame); ++report.frames) {
    char name[32];
    std::snprintf(name, sizeof name, "frame%05d.jpg", report.frames + 1);
    std::ostringstream line;
    line << name;
    bool referenced = false;
    const FrameOutcome found = sift.find(frame);
    if (found.found && found.inliers >= request.minInliers) {
      ++report.sift;
      if (frame.channels() == 3)
        cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
      else
        gray = frame;
      gray.convertTo(gray, CV_32F);  // ECC takes the template's type
      // The mask: the target's quad under SIFT's homography (ECC compares only pixels there).
      cv::Mat mask = cv::Mat::zeros(gray.size(), CV_8U);
      std::vector<cv::Point> quad;
      for (const cv::Point2d& c : corners) {
        const cv::Point2d p = apply(found.homography, c.x, c.y);
        quad.emplace_back(cvRound(p.x), cvRound(p.y));
      }
      cv::fillConvexPoly(mask, quad, cv::Scalar(255));
      cv::Mat warp;
      cv::Mat(found.homography).convertTo(warp, CV_32F);
      double rho = -1;
      try {
        rho = cv::findTransformECC(templ, gray, warp, cv::MOTION_HOMOGRAPHY,
                                   cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-6), mask, 5);
      } catch (const cv::Exception&) {  // ECC did not converge: no reference for this frame
      }
      if (rho >= request.minCorrelation) {
        const cv::Matx33d refined(static_cast<cv::Matx33f>(warp));
        double shift = 0;
        for (const cv::Point2d& c : corners) {
          const double d = cv::norm(apply(refined, c.x, c.y) - apply(found.homography, c.x, c.y));
          shift = std::isfinite(d) ? std::max(shift, d) : HUGE_VAL;
        }
        if (shift <= request.maxShiftPx) {
          referenced = true;
          line.precision(6);
          for (const cv::Point2d& c : corners) {
            const cv::Point2d p = apply(refined, c.x, c.y);
            line << '\t' << std::fixed << p.x << '\t' << p.y;
          }
        }
      }
    }
    if (referenced) {
      ++report.referenced;
    } else {
      for (int k = 0; k < 8; ++k) line << "\tnan";
    }
    file << line.str() << '\n';
    if (request.progressEvery > 0 && (report.frames + 1) % request.progressEvery == 0)
      std::fprintf(stderr, "nft_eval: reference frame %d: SIFT %d, referenced %d\n", report.frames + 1, report.sift,
                   report.referenced);
  }
  file.close();
  if (!file) throw std::runtime_error("error while writing reference '" + request.out + "'");
  fs::rename(temporary, out);
  return report;
}

}  // namespace nft::eval
