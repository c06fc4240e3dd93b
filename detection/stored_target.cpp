#include "detection/stored_target.h"

#include <utility>

#include "detection/binary_io.h"
#include "detection/compact_target.h"
#include "detection/surf_cpu.h"

namespace nft::detection {

StoredTarget::StoredTarget(std::shared_ptr<const MappedFile> file, const unsigned char* record, size_t bytes,
                           std::string what, std::string name, const TargetModel& decoded,
                           std::shared_ptr<const ResidualQuantizer> quantizer, bool geometry)
    : file_(std::move(file)),
      quantizer_(std::move(quantizer)),
      record_(record),
      bytes_(bytes),
      what_(std::move(what)),
      name_(std::move(name)),
      imageSize_(decoded.image.size()),
      originalScale_(decoded.originalScale),
      widthMetres_(decoded.widthMetres),
      descriptorType_(decoded.descriptorType),
      orientation_(decoded.orientation),
      keypointCount_(static_cast<int>(decoded.keypoints.size())),
      tiltedKeypoints_(decoded.tiltedKeypoints),
      patchCount_(static_cast<int>(decoded.patches.size())),
      quality_(decoded.quality),
      geometry_(decoded.geometry),
      geometryInRecord_(geometry) {}

TargetModel StoredTarget::decodeRecord(bool image) const {
  ++decodes_;
  // A copy read from the file, not the mapping (MappedFile::copy): a target decoded now and
  // then costs no memory between decodes (its decoded model is the caller's).
  const std::vector<unsigned char> record = file_->copy(record_, bytes_);
  binary::Reader reader(record.data(), record.size(), what_);
  return decodeCompactTarget(reader, name_, image, quantizer_.get(), nullptr, geometryInRecord_);
}

TargetModel StoredTarget::decode() const {
  TargetModel m = decodeRecord(true);
  if (quantizer_) describeOwnKeypointsAgain(m);
  return m;
}

TargetModel StoredTarget::decodeStored() const { return decodeRecord(true); }

cv::Mat StoredTarget::decodeDescriptors() const { return decodeRecord(false).descriptors; }

StoredKeypoints StoredTarget::decodeKeypoints() const {
  TargetModel m = decodeRecord(false);
  StoredKeypoints k;
  k.descriptors = std::move(m.descriptors);
  k.points.reserve(m.keypoints.size());
  for (const Keypoint& p : m.keypoints) k.points.emplace_back(p.x, p.y);
  return k;
}

void describeOwnKeypointsAgain(TargetModel& model) {
  if (model.image.empty() || model.frontalKeypoints() <= 0) return;
  SurfCpuOptions o;
  o.type = model.descriptorType;
  o.orientation = model.orientation;
  std::vector<Keypoint> own(model.keypoints.begin(), model.keypoints.begin() + model.frontalKeypoints());
  SurfCpu(o).describe(model.image, own).copyTo(model.descriptors.rowRange(0, model.frontalKeypoints()));
}

}  // namespace nft::detection
