#include "suite/suite_slurm.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "suite/suite_files.h"
#include "suite/suite_process.h"

namespace nft::eval::suite {
namespace fs = std::filesystem;

namespace {

/// `text` in single quotes for sh ('\'' for a quote inside).
std::string shellQuoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// One #SBATCH line; a value with a newline would end the directive early: refused.
std::string directive(const std::string& option, const std::string& value) {
  if (value.find('\n') != std::string::npos) throw std::invalid_argument("sbatch option " + option + " has a line break");
  return "#SBATCH " + option + "=" + value + "\n";
}

}  // namespace

std::string batchScript(const Plan& plan, const SlurmOptions& options, const std::string& planFile,
                        const std::string& logFolder, size_t offset, size_t count) {
  const SlurmSpec& s = options.spec;
  std::ostringstream out;
  out << "#!/bin/sh\n";
  out << "# nft_eval suite '" << plan.suite << "' (" << plan.source << "): pairs " << offset << ".."
      << offset + count - 1 << " of " << planFile << ", one array task each.\n";
  out << "# Written by `nft_eval suite run --slurm`; `sbatch` this file to submit it again.\n";
  out << directive("--job-name", "nft-suite-" + plan.suite);
  std::string array = "0-" + std::to_string(count - 1);
  if (s.maxParallel > 0) array += "%" + std::to_string(s.maxParallel);
  out << directive("--array", array);
  out << directive("--output", logFolder + "/task-%A_%a.log");
  out << directive("--cpus-per-task", std::to_string(s.cpusPerTask));
  out << directive("--ntasks", "1");
  if (!s.partition.empty()) out << directive("--partition", s.partition);
  if (!s.time.empty()) out << directive("--time", s.time);
  if (!s.mem.empty()) out << directive("--mem", s.mem);
  out << "NFT_SUITE_T0=$(date +%s.%N)\nexport NFT_SUITE_T0\n";
  out << "exec " << shellQuoted(options.evalBinary) << " suite task " << (options.force ? "--force " : "")
      << shellQuoted(planFile) << " \"$((" << offset << " + SLURM_ARRAY_TASK_ID))\"\n";
  return out.str();
}

std::string parseJobId(const std::string& sbatchOutput) {
  // --parsable prints "<id>" or "<id>;<cluster>" as its last line (warnings may come first).
  std::istringstream lines(sbatchOutput);
  std::string line, id;
  while (std::getline(lines, line)) {
    const std::string first = line.substr(0, line.find(';'));
    if (!first.empty() && std::all_of(first.begin(), first.end(), [](unsigned char c) { return std::isdigit(c); }))
      id = first;
  }
  if (id.empty()) throw std::runtime_error("sbatch printed no job id: '" + sbatchOutput + "'");
  return id;
}

SlurmSubmission submitSlurm(const Plan& plan, const std::vector<size_t>& pending, const SlurmOptions& options) {
  if (pending.empty()) throw std::invalid_argument("no pairs to submit");
  if (options.spec.maxArraySize < 1) throw std::invalid_argument("max_array_size must be at least 1");
  Plan part = plan;
  part.pairs.clear();
  for (const size_t i : pending) part.pairs.push_back(plan.pairs.at(i));
  const std::string planText = planToJson(part).dump(2) + "\n";
  const fs::path folder = fs::path(plan.outDir) / "slurm" / stableHash(planText).substr(0, 12);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create folder '" + folder.string() + "': " + ec.message());
  const std::string planFile = (folder / "plan.json").string();
  writeTextAtomically(planFile, planText);

  SlurmSubmission submission;
  submission.folder = folder.string();
  submission.tasks = part.pairs.size();
  const size_t chunk = static_cast<size_t>(options.spec.maxArraySize);
  for (size_t offset = 0, k = 0; offset < part.pairs.size(); offset += chunk, ++k) {
    const size_t count = std::min(chunk, part.pairs.size() - offset);
    const fs::path script = folder / ("array-" + std::to_string(k) + ".sbatch");
    writeTextAtomically(script, batchScript(part, options, planFile, folder.string(), offset, count));
    std::vector<std::string> argv = {options.sbatch, "--parsable"};
    argv.insert(argv.end(), options.spec.extraArgs.begin(), options.spec.extraArgs.end());
    argv.push_back(script.string());
    CommandResult r;
    try {
      r = runCaptured(argv);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string(e.what()) +
                               ": --slurm needs Slurm's client programs (Debian: slurm-client) on this host");
    }
    std::string already;
    for (const std::string& id : submission.jobIds) already += (already.empty() ? "" : ", ") + id;
    if (!r.exit.succeeded())
      throw std::runtime_error("sbatch refused the job array " + script.string() + " (" + r.exit.describe() +
                               "): " + r.output + (already.empty() ? "" : " (already submitted: " + already + ")"));
    submission.jobIds.push_back(parseJobId(r.output));
  }
  return submission;
}

}  // namespace nft::eval::suite
