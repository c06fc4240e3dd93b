#include "detection/keypoint_io.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace nft::detection {

namespace {

std::vector<std::string> splitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

KeypointCsv readKeypointsCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open keypoint file '" + path + "'");
  KeypointCsv out;
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("keypoint file '" + path + "' is empty (expected a header)");
  const std::string header = trim(line);
  if (header == "x,y,scale") {
    out.hasAngle = false;
  } else if (header == "x,y,scale,angle") {
    out.hasAngle = true;
  } else {
    throw std::runtime_error("keypoint file '" + path + "' line 1: header '" + header +
                             "' (expected 'x,y,scale' or 'x,y,scale,angle')");
  }
  const size_t columns = out.hasAngle ? 4 : 3;
  const char* names[4] = {"x", "y", "scale", "angle"};
  for (int lineNumber = 2; std::getline(in, line); ++lineNumber) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = splitFields(trim(line));
    if (fields.size() != columns)
      throw std::runtime_error("keypoint file '" + path + "' line " + std::to_string(lineNumber) + ": " +
                               std::to_string(fields.size()) + " values (expected " + std::to_string(columns) + ")");
    float values[4] = {0, 0, 0, kNoAngle};
    for (size_t c = 0; c < columns; ++c) {
      const std::string text = trim(fields[c]);
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      // Finite as a float too: 1e39 is a finite double but no float (the cast would give inf).
      if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) ||
          std::abs(v) > static_cast<double>(std::numeric_limits<float>::max()))
        throw std::runtime_error("keypoint file '" + path + "' line " + std::to_string(lineNumber) + ", column " +
                                 names[c] + ": '" + text + "' is not a finite number");
      values[c] = static_cast<float>(v);
    }
    Keypoint k;
    k.x = values[0];
    k.y = values[1];
    k.scale = values[2];
    k.angle = values[3] < 0.0f ? kNoAngle : values[3];
    out.keypoints.push_back(k);
    out.lines.push_back(lineNumber);
  }
  if (in.bad()) throw std::runtime_error("error reading keypoint file '" + path + "'");
  return out;
}

void writeDescriptorsCsv(const std::string& path, const cv::Mat& descriptors, const std::vector<Keypoint>* keypoints) {
  if (descriptors.type() != CV_32F && !descriptors.empty())
    throw std::invalid_argument("writeDescriptorsCsv: descriptors must be CV_32F, got " +
                                cv::typeToString(descriptors.type()));
  if (keypoints != nullptr && static_cast<int>(keypoints->size()) != descriptors.rows)
    throw std::invalid_argument("writeDescriptorsCsv: " + std::to_string(keypoints->size()) + " keypoints for " +
                                std::to_string(descriptors.rows) + " descriptor rows");
  const std::string temporary = path + ".part";
  {
    std::ofstream out(temporary);
    if (!out) throw std::runtime_error("cannot write '" + temporary + "' (for '" + path + "')");
    if (keypoints != nullptr) out << "x,y,scale,angle" << (descriptors.cols > 0 ? "," : "");
    for (int c = 0; c < descriptors.cols; ++c) out << (c ? "," : "") << 'd' << c;
    out << '\n';
    char buffer[32];
    for (int r = 0; r < descriptors.rows; ++r) {
      if (keypoints != nullptr) {
        const Keypoint& k = (*keypoints)[static_cast<size_t>(r)];
        for (float v : {k.x, k.y, k.scale, k.angle}) {
          std::snprintf(buffer, sizeof buffer, "%.9g,", static_cast<double>(v));
          out << buffer;
        }
      }
      const float* row = descriptors.ptr<float>(r);
      for (int c = 0; c < descriptors.cols; ++c) {
        std::snprintf(buffer, sizeof buffer, "%s%.9g", c ? "," : "", static_cast<double>(row[c]));
        out << buffer;
      }
      out << '\n';
    }
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(temporary);
      throw std::runtime_error("error writing '" + path + "' (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary);
    throw std::runtime_error("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace nft::detection
