// RecognitionClient: the service's HTTP API (service/nft_recognition/http_api.py) over libcurl's
// easy interface, one handle per call; answers parsed with nlohmann-json.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <curl/curl.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "nft/recognition.h"

namespace nft {
namespace {

struct HttpAnswer {
  long status = 0;
  std::string body;
};

size_t appendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// curl_global_init is not thread-safe before 7.84: called once, before any handle is made.
void initCurl() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw RecognitionError("libcurl: curl_global_init failed", 0);
  });
}

// The service's {"error": "..."} message, or the body itself when it is not that.
std::string errorText(const std::string& body) {
  try {
    const auto j = nlohmann::json::parse(body);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  return body.substr(0, 300);
}

HttpAnswer request(const std::string& method, const std::string& url, const std::string& path,
                   const std::string& token, double timeoutS, const std::string* body = nullptr,
                   const std::string& contentType = "") {
  initCurl();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw RecognitionError(method + " " + path + ": libcurl could not make a handle", 0);
  HttpAnswer answer;
  const std::string full = url + path;
  curl_slist* headers = nullptr;
  const std::string auth = "Authorization: Bearer " + token;
  const std::string type = "Content-Type: " + contentType;
  if (!token.empty()) headers = curl_slist_append(headers, auth.c_str());
  if (body) headers = curl_slist_append(headers, type.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headerList(headers, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, full.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: calls come from worker threads
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(std::ceil(timeoutS * 1000)));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer.body);
  if (body) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  }
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK)
    throw RecognitionError(method + " " + path + ": " + curl_easy_strerror(rc) + " (" + full + ")", 0);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  if (answer.status < 200 || answer.status >= 300)
    throw RecognitionError(method + " " + path + ": " + std::to_string(answer.status) + " " + errorText(answer.body),
                           answer.status);
  return answer;
}

Recognition parseRecognition(const std::string& body) {
  Recognition r;
  try {
    const auto j = nlohmann::json::parse(body);
    r.found = j.at("found").get<bool>();
    if (j.contains("time_ms") && j["time_ms"].contains("total")) r.totalMs = j["time_ms"]["total"].get<double>();
    if (!r.found) return r;
    const auto& t = j.at("target");
    r.targetId = t.at("id").get<long long>();
    r.name = t.at("name").get<std::string>();
    if (t.contains("width_m") && t["width_m"].is_number()) r.widthMetres = t["width_m"].get<double>();
    const auto& h = j.at("homography");
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) r.homography(i, k) = h.at(i).at(k).get<double>();
    for (const auto& p : j.at("quad")) r.quad.emplace_back(p.at(0).get<float>(), p.at(1).get<float>());
    if (r.quad.size() != 4) throw RecognitionError("POST /recognize: the answer's quad has " +
                                                       std::to_string(r.quad.size()) + " corners, expected 4", 200);
    r.inliers = j.value("inliers", 0);
    r.score = j.value("score", 0.0);
  } catch (const nlohmann::json::exception& e) {
    throw RecognitionError(std::string("POST /recognize: the answer is not the service's JSON: ") + e.what(), 200);
  }
  return r;
}

}  // namespace

RecognitionClient::RecognitionClient(const std::string& url, const std::string& token, double timeoutS,
                                     int jpegQuality)
    : url_(url), token_(token), timeoutS_(timeoutS), jpegQuality_(jpegQuality) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  const bool http = url_.rfind("http://", 0) == 0 && url_.size() > 7;
  const bool https = url_.rfind("https://", 0) == 0 && url_.size() > 8;
  if (!http && !https)
    throw ConfigError("RecognitionClient: url '" + url + "': expected the service's base URL, http://host:port or "
                      "https://host:port");
  if (!(timeoutS > 0) || !std::isfinite(timeoutS))
    throw ConfigError("RecognitionClient: timeout " + std::to_string(timeoutS) + " s: expected a number > 0");
  if (jpegQuality < 10 || jpegQuality > 100)
    throw ConfigError("RecognitionClient: JPEG quality " + std::to_string(jpegQuality) + ": expected 10 to 100");
  if (token_.find_first_of("\r\n") != std::string::npos)
    throw ConfigError("RecognitionClient: the token has a line break: expected one line");
}

Recognition RecognitionClient::recognize(const cv::Mat& frame) {
  std::vector<unsigned char> jpeg;
  if (frame.empty() || !cv::imencode(".jpg", frame, jpeg, {cv::IMWRITE_JPEG_QUALITY, jpegQuality_}))
    throw RecognitionError("POST /recognize: the frame (" + std::to_string(frame.cols) + "x" +
                               std::to_string(frame.rows) + ", type " + std::to_string(frame.type()) +
                               ") cannot be encoded as JPEG: expected CV_8UC1 or CV_8UC3",
                           0);
  return recognizeEncoded(jpeg, "image/jpeg");
}

Recognition RecognitionClient::recognizeEncoded(const std::vector<unsigned char>& encoded,
                                                const std::string& contentType) {
  const std::string body(encoded.begin(), encoded.end());
  return parseRecognition(request("POST", url_, "/recognize", token_, timeoutS_, &body, contentType).body);
}

std::string RecognitionClient::downloadModel(long long targetId, const std::string& folder) {
  namespace fs = std::filesystem;
  const std::string path = "/targets/" + std::to_string(targetId);
  const HttpAnswer answer = request("GET", url_, path, token_, timeoutS_);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError("downloadModel: cannot make the folder '" + folder + "': " + ec.message());
  const fs::path file = fs::path(folder) / (std::to_string(targetId) + ".nftm");
  const fs::path tmp = file.string() + ".part" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(answer.body.data(), static_cast<std::streamsize>(answer.body.size()));
    if (!out) {
      fs::remove(tmp, ec);
      throw InputError("downloadModel: cannot write '" + tmp.string() + "'");
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError("downloadModel: cannot rename '" + tmp.string() + "' to '" + file.string() + "'");
  }
  return file.string();
}

void RecognitionClient::waitReady(double timeoutS) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  std::string last;
  for (;;) {
    try {
      request("GET", url_, "/health", "", std::min(timeoutS_, 2.0));
      return;
    } catch (const RecognitionError& e) {
      last = e.what();
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw RecognitionError("the service at " + url_ + " did not answer /health within " +
                                 std::to_string(static_cast<int>(timeoutS)) + " s (last: " + last + ")",
                             0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}

std::shared_ptr<RecognitionClient> makeRecognitionClient(const config::Config& config) {
  const config::RecognitionConfig& r = config.recognition;
  if (r.url.empty())
    throw ConfigError("recognition.url: expected the service's URL (http://host:port), got \"\"", "<config>", 0,
                      "recognition.url");
  std::string token;
  if (!r.tokenFile.empty()) {
    std::ifstream in(r.tokenFile);
    if (!in || !std::getline(in, token) || token.empty())
      throw ConfigError("recognition.token_file '" + r.tokenFile + "': expected a readable file whose first line is "
                        "the service's token", "<config>", 0, "recognition.token_file");
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  } else if (const char* env = std::getenv("NFT_RECOGNITION_TOKEN")) {
    token = env;
  }
  return std::make_shared<RecognitionClient>(r.url, token, r.timeoutS, r.jpegQuality);
}

}  // namespace nft
