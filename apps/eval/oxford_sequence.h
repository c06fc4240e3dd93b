#pragma once
// An Oxford "Affine Covariant Regions" sequence (Mikolajczyk et al., IJCV 2005; the data of
// seeds/000 section 5.2): img1 .. img6 and the ground-truth homographies H1to2p .. H1to6p,
// loaded with errors that name the missing or unreadable file.

#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::eval {

/// Number of images in an Oxford sequence (img1 is the reference, img2..img6 the changed views).
inline constexpr int kSequenceImages = 6;

/// One loaded sequence.
struct OxfordSequence {
  std::string name;              ///< the folder's name, e.g. "graf"
  std::filesystem::path folder;  ///< as given
  /// kSequenceImages CV_8UC1 images (colour ones converted to gray): images[0] is img1.
  std::vector<cv::Mat> images;
  /// The image files read, parallel to `images`.
  std::vector<std::filesystem::path> imagePaths;
  /// kSequenceImages − 1 homographies: homographies[k] = H1to(k+2)p, mapping pixel coordinates
  /// of img1 (homogeneous, row-major 3 × 3) to those of img(k+2).
  std::vector<cv::Matx33d> homographies;
};

/// Reads a homography file: 9 whitespace-separated numbers, row-major.
/// @throws std::runtime_error naming the file when it is missing, holds fewer than 9 numbers or
///   something that is not a number, or is singular (|det| < 1e-12) or not finite.
cv::Matx33d readHomography(const std::filesystem::path& file);

/// Loads a sequence folder: imgN.png, else imgN.ppm, else imgN.pgm (N = 1..6, the first that
/// exists), and H1toNp (N = 2..6).
/// @throws std::runtime_error naming the folder when it does not exist or is not a folder, the
///   file (with the extensions tried) when an image or homography is missing, and the file when
///   OpenCV cannot read an image.
OxfordSequence loadOxfordSequence(const std::filesystem::path& folder);

}  // namespace nft::eval
