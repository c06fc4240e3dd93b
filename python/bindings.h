#pragma once
// The binding functions of the Python module nft (python/module.cpp calls them) and what the
// binding files share.

#include <pybind11/pybind11.h>

#include <string>

#include "config/config.h"
#include "nft/types.h"

namespace nftpy {

/// Session, its results and types (python/session_bindings.cpp).
void bindSession(pybind11::module_& m);
/// GpuContext, SurfEs, CpuSurf, GpuMatcher, FastDetector, train_target
/// (python/detection_bindings.cpp).
void bindDetection(pybind11::module_& m);

/// TargetGeometry (python/geometry_bindings.cpp); bound before the classes that take it.
void bindGeometry(pybind11::module_& m);
/// A geometry argument: None (planar) or an nft.TargetGeometry.
/// @throws TypeError naming `geometry` for another type.
nft::TargetGeometry geometryFrom(const pybind11::handle& geometry);

/// A config argument: None (the defaults), a YAML file path (str or os.PathLike) or a dict of
/// sections (written as YAML and parsed by nft::config::parseConfig, so it is checked as a file
/// is). `source` receives the name errors use ("<defaults>", the path, "<dict>").
/// @throws FileNotFoundError for a missing file, TypeError for another type or a value that
///   cannot be YAML, nft.ConfigError for what the config library refuses.
nft::config::Config configFrom(const pybind11::handle& config, std::string& source);

}  // namespace nftpy
