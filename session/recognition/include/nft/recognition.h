#pragma once
// The client of the catalogue recognition service (issue 48, item 3; the service is service/,
// docs/catalogue_recognition.md): a Session that finds none of its own targets sends the frame
// to the service, off the camera thread and at most once per interval, and adds and tracks on
// the device the target the service recognises, as any target added with addTarget().
//
//   nft::Session session("app.yaml");          // recognition.url: http://10.0.0.2:8080
//   nft::SessionRecognition cloud(session);    // a RecognitionClient for recognition.url
//   for (;;) {
//     nft::FrameResult r = cloud.process(frame, timestampNs);   // session.process(), and the service
//     for (const nft::TargetResult& t : r.targets) if (t.found) use(t.pose);
//   }
//
// A separate library (nft_recognition: libcurl for HTTP, nlohmann-json for the answers), so an
// app that does not use the service links libnft alone and needs neither.

#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "nft/error.h"
#include "nft/session.h"

namespace nft {

/// A request to the service that failed: it could not be reached, timed out, or answered with
/// an HTTP error. The message names the method, the path and the service's answer, e.g.
/// "POST /recognize: 401 a bearer token is required (Authorization: Bearer TOKEN)".
class RecognitionError : public Error {
 public:
  /// `status`: the HTTP status, 0 when no answer came (connection refused, timeout).
  RecognitionError(const std::string& message, long status) : Error(message), status_(status) {}
  /// The HTTP status of the answer; 0 when there was none.
  long status() const noexcept { return status_; }

 private:
  long status_;
};

/// What the service answered to one frame (POST /recognize).
struct Recognition {
  bool found = false;  ///< A catalogue target was recognised and verified.
  long long targetId = 0;  ///< Its catalogue id (>= 1; ids are never reused); 0 when not found.
  std::string name;        ///< Its name in the catalogue.
  double widthMetres = 0;  ///< Its printed width, metres; 0 when the catalogue does not say.
  /// Target working-image pixels → frame pixels (the service's verification); identity when not
  /// found.
  cv::Matx33d homography = cv::Matx33d::eye();
  /// The target's corners in the frame, pixels (upper left, upper right, lower right, lower
  /// left); empty when not found.
  std::vector<cv::Point2f> quad;
  int inliers = 0;     ///< RANSAC inliers of the verification.
  double score = 0;    ///< inliers / matches of the verification, in [0, 1].
  double totalMs = 0;  ///< The service's own time for the query, milliseconds.
};

/// What SessionRecognition calls on its worker thread: the service, or a stand-in in tests.
/// Implementations are called from one worker thread at a time, never the camera thread.
class RemoteRecognizer {
 public:
  virtual ~RemoteRecognizer() = default;
  /// Which catalogue target `frame` (CV_8UC1 grey or CV_8UC3 BGR, a copy the call may keep)
  /// shows. @throws RecognitionError.
  virtual Recognition recognize(const cv::Mat& frame) = 0;
  /// Writes the target's model (.nftm) into `folder` (made when missing) and returns its path;
  /// the file appears whole or not at all. @throws RecognitionError; nft::InputError when the
  /// folder cannot be written.
  virtual std::string downloadModel(long long targetId, const std::string& folder) = 0;
};

/// The HTTP calls of `nft-recognition serve` (service/nft_recognition/http_api.py), over libcurl.
/// Each call is independent (its own connection); one client may be used from several threads.
class RecognitionClient : public RemoteRecognizer {
 public:
  /// @param url        the service's base URL, "http://host:port" (a trailing / is dropped).
  /// @param token      its bearer token; "" for a service started with --no-auth.
  /// @param timeoutS   the longest one call may take, seconds (> 0).
  /// @param jpegQuality the JPEG quality of the frames recognize() sends, in [10, 100].
  /// @throws nft::ConfigError for a url that is not http:// or https://, a timeout <= 0 or a
  ///   quality out of range.
  explicit RecognitionClient(const std::string& url, const std::string& token = "", double timeoutS = 10.0,
                             int jpegQuality = 90);

  /// POST /recognize with the frame as a JPEG. @throws RecognitionError (the service's status and
  /// message for a refused request; a frame the service cannot read is a 400).
  Recognition recognize(const cv::Mat& frame) override;
  /// POST /recognize with an encoded frame (`contentType` "image/jpeg" or "image/png").
  /// @throws RecognitionError.
  Recognition recognizeEncoded(const std::vector<unsigned char>& encoded, const std::string& contentType);
  /// GET /targets/ID into folder/ID.nftm (written to a temporary name, then renamed). Returns
  /// the path. @throws RecognitionError (404 for an id not in the catalogue); nft::InputError
  /// for a folder that cannot be made or written.
  std::string downloadModel(long long targetId, const std::string& folder) override;
  /// Polls GET /health until it answers 200 or `timeoutS` seconds have passed.
  /// @throws RecognitionError naming the last failure when the time is up.
  void waitReady(double timeoutS);

  /// The base URL, without a trailing /.
  const std::string& url() const noexcept { return url_; }

 private:
  std::string url_, token_;
  double timeoutS_;
  int jpegQuality_;
};

/// The Session's options for the service: a RecognitionClient for `config.recognition` (url,
/// the token of token_file or of $NFT_RECOGNITION_TOKEN, timeout_s, jpeg_quality).
/// @throws nft::ConfigError when recognition.url is "" ("recognition.url: expected the service's
///   URL ...") or the token file cannot be read (naming it).
std::shared_ptr<RecognitionClient> makeRecognitionClient(const config::Config& config);

/// A Session with the recognition service behind it. process() is session.process(); when no
/// target of the Session is found in a frame, a copy of that frame is sent to the service on a
/// worker thread (one request at a time, at most one per min_interval_s), and a target the
/// service recognises is downloaded there and added to the Session at a later process(), on the
/// camera thread (the Session belongs to the thread that made it); from then on the Session
/// detects and tracks it as its own. A target once added is never asked for again.
///
/// Failed requests do not throw from process(): they are kept (errors()) and the next request is
/// made after the interval, as a phone app would go on with a flaky network.
class SessionRecognition {
 public:
  /// Uses makeRecognitionClient(session.config()) and the config's min_interval_s and
  /// models_dir. @throws nft::ConfigError (see makeRecognitionClient).
  explicit SessionRecognition(Session& session);
  /// @param session        used from the thread that calls process(); it must outlive this.
  /// @param recognizer     the service (or a stand-in); must not be null.
  /// @param minIntervalS   the rate limit, seconds between two requests (>= 0).
  /// @param modelsDir      where models are downloaded; "" = a new folder in the temporary
  ///                       directory.
  /// @throws nft::ConfigError for a null recognizer or a negative or non-finite interval.
  SessionRecognition(Session& session, std::shared_ptr<RemoteRecognizer> recognizer, double minIntervalS,
                     const std::string& modelsDir = "");
  /// Waits for a request in flight (at most the client's timeout).
  ~SessionRecognition();
  SessionRecognition(const SessionRecognition&) = delete;
  SessionRecognition& operator=(const SessionRecognition&) = delete;

  /// Adds the target of a finished request, then session.process(frame, timestampNs), then
  /// sends the frame when nothing was found and the rate limit allows. Frames as
  /// Session::process() takes them (CV_8UC1, CV_8UC3 or CV_8UC4).
  /// @throws what Session::process() throws. A model that Session::addTarget() refuses is kept
  ///   in errors(), as a failed request is.
  FrameResult process(const cv::Mat& frame, long long timestampNs = 0);

  /// Requests sent so far.
  int requests() const noexcept { return requests_; }
  /// The catalogue targets added to the Session: catalogue id → the Session's TargetId.
  const std::map<long long, TargetId>& added() const noexcept { return added_; }
  /// The failed requests' messages, oldest first (at most the last 32).
  const std::vector<std::string>& errors() const noexcept { return errors_; }
  /// True while a request is in flight.
  bool pending() const noexcept { return pending_.valid(); }
  /// The folder models are downloaded into.
  const std::string& modelsDir() const noexcept { return modelsDir_; }

 private:
  /// @cond PRIVATE
  // (Doxygen lists a private nested type in the class page's index without its page.)
  struct Answer {
    Recognition recognition;
    std::string modelPath;  // "" when nothing new was found
  };
  /// @endcond
  void collect();

  Session& session_;
  std::shared_ptr<RemoteRecognizer> recognizer_;
  double minIntervalS_;
  std::string modelsDir_;
  std::future<Answer> pending_;
  double lastRequestS_ = -1e300;
  int requests_ = 0;
  std::map<long long, TargetId> added_;
  std::vector<std::string> errors_;
};

}  // namespace nft
