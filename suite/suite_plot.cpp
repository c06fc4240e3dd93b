#include "suite/suite_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "suite/suite_collect.h"
#include "suite/suite_files.h"
#include "suite/suite_frame_errors.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

constexpr int kWidth = 1040, kHeight = 640;
constexpr int kLeft = 80, kRight = 300, kTop = 75, kBottom = 70;  // margins; the legend sits on the right
const cv::Scalar kBlack(0, 0, 0), kGrey(200, 200, 200);
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

/// matplotlib's "tab10" colours, BGR.
cv::Scalar colour(size_t i) {
  static const cv::Scalar kTab10[] = {{180, 119, 31}, {14, 127, 255}, {44, 160, 44},   {40, 39, 214},
                                      {189, 103, 148}, {75, 86, 140},  {194, 119, 227}, {127, 127, 127},
                                      {34, 189, 188},  {207, 190, 23}};
  return kTab10[i % 10];
}

/// "0.5", "10", "1000": short tick text.
std::string tickText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", std::abs(v) < 1e-12 ? 0.0 : v);
  return text;
}

/// A tick step of 1, 2 or 5 × 10^k giving about 5-10 ticks over `span`.
double tickStep(double span) {
  const double raw = span / 6.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

/// Text shortened to `chars` characters with "..." (legend entries of long grid names).
std::string shortened(const std::string& text, size_t chars) {
  return text.size() <= chars ? text : text.substr(0, chars - 3) + "...";
}

/// A config's name for a legend: each "section.key=value" of a grid name as "key=value".
std::string legendLabel(const std::string& name) {
  std::string out, token;
  std::istringstream words(name);
  while (words >> token) {
    const size_t eq = token.find('='), dot = token.rfind('.', eq);
    if (eq != std::string::npos && dot != std::string::npos) token = token.substr(dot + 1);
    out += (out.empty() ? "" : " ") + token;
  }
  return out.empty() ? name : out;
}

std::vector<std::string> writeOne(const fs::path& file, const cv::Mat& image, std::vector<std::string> written) {
  std::vector<uchar> png;
  if (!cv::imencode(".png", image, png)) throw std::runtime_error("cannot encode plot '" + file.string() + "'");
  writeTextAtomically(file, std::string(png.begin(), png.end()));
  written.push_back(file.string());
  return written;
}

}  // namespace

cv::Mat drawChart(const ChartSpec& spec, const std::vector<PlotSeries>& series) {
  cv::Mat image(kHeight, kWidth, CV_8UC3, cv::Scalar(255, 255, 255));
  const int x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  const double xSpan = spec.xMax > spec.xMin ? spec.xMax - spec.xMin : 1.0;
  const double ySpan = spec.yMax > spec.yMin ? spec.yMax - spec.yMin : 1.0;
  auto toPixel = [&](double x, double y) {
    return cv::Point(x0 + static_cast<int>(std::lround((x - spec.xMin) / xSpan * (x1 - x0))),
                     y0 - static_cast<int>(std::lround((y - spec.yMin) / ySpan * (y0 - y1))));
  };
  // Grid and ticks.
  const double xStep = tickStep(xSpan), yStep = tickStep(ySpan);
  for (double x = std::ceil(spec.xMin / xStep) * xStep; x <= spec.xMax + 1e-9; x += xStep) {
    const cv::Point p = toPixel(x, spec.yMin);
    cv::line(image, {p.x, y0}, {p.x, y1}, kGrey, 1);
    const std::string t = tickText(x);
    cv::putText(image, t, {p.x - 4 * static_cast<int>(t.size()), y0 + 20}, kFont, 0.45, kBlack, 1, cv::LINE_AA);
  }
  for (double y = std::ceil(spec.yMin / yStep) * yStep; y <= spec.yMax + 1e-9; y += yStep) {
    const cv::Point p = toPixel(spec.xMin, y);
    cv::line(image, {x0, p.y}, {x1, p.y}, kGrey, 1);
    const std::string t = tickText(y);
    cv::putText(image, t, {x0 - 10 - 8 * static_cast<int>(t.size()), p.y + 5}, kFont, 0.45, kBlack, 1, cv::LINE_AA);
  }
  cv::rectangle(image, {x0, y1}, {x1, y0}, kBlack, 1);
  cv::putText(image, spec.title, {x0, 30}, kFont, 0.6, kBlack, 1, cv::LINE_AA);
  cv::putText(image, spec.xLabel, {(x0 + x1) / 2 - 4 * static_cast<int>(spec.xLabel.size()), kHeight - 20}, kFont, 0.5,
              kBlack, 1, cv::LINE_AA);
  // The y label, written horizontally above the axis (Hershey text cannot be rotated).
  cv::putText(image, spec.yLabel, {8, y1 - 14}, kFont, 0.45, kBlack, 1, cv::LINE_AA);

  // Series, clipped to the plot area.
  cv::Mat area = image(cv::Rect(x0, y1, x1 - x0 + 1, y0 - y1 + 1));
  const cv::Point offset(x0, y1);
  for (size_t s = 0; s < series.size(); ++s) {
    std::vector<cv::Point> pts;
    for (const auto& [x, y] : series[s].points)
      if (std::isfinite(x) && std::isfinite(y)) pts.push_back(toPixel(x, y) - offset);
    if (spec.lines) {
      if (pts.size() >= 2) cv::polylines(area, pts, false, colour(s), 2, cv::LINE_AA);
    } else {
      for (const cv::Point& p : pts) {  // numbered as in the legend: names would overlap
        cv::circle(area, p, 6, colour(s), cv::FILLED, cv::LINE_AA);
        cv::putText(image, std::to_string(s + 1), p + offset + cv::Point(8, -8), kFont, 0.45, colour(s), 1,
                    cv::LINE_AA);
      }
    }
  }
  // Legend.
  for (size_t s = 0; s < series.size() && s < 24; ++s) {
    const int y = y1 + 10 + 20 * static_cast<int>(s);
    if (spec.lines) cv::line(image, {x1 + 12, y}, {x1 + 36, y}, colour(s), 2, cv::LINE_AA);
    else cv::circle(image, {x1 + 24, y}, 5, colour(s), cv::FILLED, cv::LINE_AA);
    const std::string label = spec.lines ? series[s].label : std::to_string(s + 1) + " " + series[s].label;
    cv::putText(image, shortened(label, 32), {x1 + 42, y + 5}, kFont, 0.4, kBlack, 1, cv::LINE_AA);
  }
  if (series.size() > 24)
    cv::putText(image, "(" + std::to_string(series.size() - 24) + " more)", {x1 + 42, y1 + 10 + 20 * 24 + 5}, kFont,
                0.4, kBlack, 1, cv::LINE_AA);
  return image;
}

std::vector<std::string> writePlots(const Collection& c, const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create folder '" + folder.string() + "': " + ec.message());
  std::vector<std::string> written;

  std::vector<PlotSeries> curves;
  for (const ConfigSummary& s : c.configs) {
    if (s.errors.empty()) continue;
    PlotSeries curve{legendLabel(s.name), {}};
    for (int i = 0; i <= 80; ++i) curve.points.emplace_back(0.25 * i, 100.0 * successAt(s.errors, 0.25 * i));
    curves.push_back(curve);
  }
  if (!curves.empty()) {
    ChartSpec spec;
    spec.title = "Suite " + c.plan.suite + ": success rate over all clips' ground-truth frames";
    spec.xLabel = "alignment error threshold (px)";
    spec.yLabel = "success (%)";
    spec.xMax = 20;
    spec.yMax = 101;  // a curve at 100 % stays off the frame
    written = writeOne(folder / "success.png", drawChart(spec, curves), written);
  }

  const bool anyTruth = std::any_of(c.configs.begin(), c.configs.end(), [](const ConfigSummary& s) { return s.success5.has_value(); });
  std::vector<PlotSeries> points;
  double fpsMax = 0, yLow = 100;
  for (const ConfigSummary& s : c.configs) {
    if (s.finished == 0) continue;
    const double y = anyTruth ? 100.0 * s.success5.value_or(0) : 100.0 * s.foundFraction();
    points.push_back({legendLabel(s.name), {{s.trackerFps, y}}});
    fpsMax = std::max(fpsMax, s.trackerFps);
    yLow = std::min(yLow, y);
  }
  if (!points.empty()) {
    ChartSpec spec;
    spec.title = "Suite " + c.plan.suite + ": accuracy against speed, one point per config";
    spec.xLabel = "tracker fps (frames / tracker time)";
    spec.yLabel = anyTruth ? "success at 5 px (%)" : "found (%)";
    spec.xMax = fpsMax > 0 ? fpsMax * 1.15 : 1;
    spec.yMin = std::max(0.0, 10.0 * std::floor((yLow - 2.0) / 10.0));  // room to tell the configs apart
    spec.yMax = 101;
    spec.lines = false;
    written = writeOne(folder / "accuracy_speed.png", drawChart(spec, points), written);
  }
  return written;
}

}  // namespace nft::eval::suite
