#include "suite/pose_csv.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace nft::replay {
namespace {

void append(std::string& row, const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  row += ',';
  row += buffer;
}

}  // namespace

namespace {

/// The fields after `state`: corners, pose, inliers, error (empty when not found), then ms.
void appendResult(std::string& row, const TargetResult& r, const FrameResult& frame) {
  const bool found = r.found && r.corners.size() == 4;
  if (found) {
    for (const cv::Point2f& c : r.corners) {
      append(row, "%.3f", c.x);
      append(row, "%.3f", c.y);
    }
    for (int i = 0; i < 3; ++i) append(row, "%.6f", r.pose.rvec[i]);
    for (int i = 0; i < 3; ++i) append(row, "%.6f", r.pose.t[i]);
    row += "," + std::to_string(r.inliers);
    append(row, "%.3f", r.reprojectionErrorPx);
  } else {
    row += std::string(8 + 6 + 2, ',');
  }
  append(row, "%.3f", frame.timings.total);
}

}  // namespace

std::string poseCsvRow(int index, const FrameResult& frame) {
  static const TargetResult kNone;
  const TargetResult& r = frame.targets.empty() ? kNone : frame.targets.front();
  std::string row = std::to_string(index) + "," + toString(r.state);
  appendResult(row, r, frame);
  return row;
}

std::string multiTargetPoseCsvRow(int index, const TargetResult& target, const FrameResult& frame) {
  std::string row = std::to_string(index) + "," + target.name + "," + toString(target.state);
  appendResult(row, target, frame);
  return row;
}

PoseCsvWriter::PoseCsvWriter(const std::string& path, bool severalTargets) : path_(path), several_(severalTargets) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) throw std::runtime_error("cannot create poses file '" + path + "': " + std::strerror(errno));
  if (std::fprintf(file_, "%s\n", severalTargets ? kMultiTargetPoseCsvHeader : kPoseCsvHeader) < 0 || std::fflush(file_) != 0)
    throw std::runtime_error("cannot write poses file '" + path + "': " + std::strerror(errno));
}

PoseCsvWriter::~PoseCsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

PoseCsvWriter::PoseCsvWriter(PoseCsvWriter&& other) noexcept
    : path_(std::move(other.path_)), file_(std::exchange(other.file_, nullptr)), several_(other.several_) {}

void PoseCsvWriter::write(int index, const FrameResult& frame) {
  std::string row;
  if (several_)
    for (const TargetResult& t : frame.targets) row += multiTargetPoseCsvRow(index, t, frame) + "\n";
  else
    row = poseCsvRow(index, frame) + "\n";
  // One fwrite of the whole row, then a flush: a crash leaves complete rows only.
  if (std::fwrite(row.data(), 1, row.size(), file_) != row.size() || std::fflush(file_) != 0)
    throw std::runtime_error("cannot write poses file '" + path_ + "': " + std::strerror(errno));
}

}  // namespace nft::replay
