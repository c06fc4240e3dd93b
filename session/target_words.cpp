#include "session/target_words.h"

#include <stdexcept>
#include <string>

namespace nft::session {

detection::Vocabulary trainTargetsVocabulary(const std::vector<cv::Mat>& descriptors, const std::vector<int>& frontal) {
  if (descriptors.size() != frontal.size())
    throw std::invalid_argument("trainTargetsVocabulary: " + std::to_string(descriptors.size()) +
                                " descriptor matrices but " + std::to_string(frontal.size()) + " frontal counts");
  std::vector<cv::Mat> all;
  for (size_t i = 0; i < descriptors.size(); ++i) {
    if (frontal[i] < 0 || frontal[i] > descriptors[i].rows)
      throw std::invalid_argument("trainTargetsVocabulary: target " + std::to_string(i) + " has " +
                                  std::to_string(descriptors[i].rows) + " descriptors, frontal count " +
                                  std::to_string(frontal[i]) + " is out of [0, " + std::to_string(descriptors[i].rows) + "]");
    all.push_back(descriptors[i].rowRange(0, frontal[i]));
  }
  cv::Mat stacked;
  cv::vconcat(all, stacked);
  detection::VocabularyOptions options;
  options.depth = stacked.rows > 20000 ? 3 : 2;
  return detection::Vocabulary::train(stacked, options);
}

}  // namespace nft::session
