// nft.TargetGeometry (C++ nft::TargetGeometry, include/nft/types.h): the surface a target is
// printed on, which Session.add_target() and nft.train_target() take (issue 47).
#include <pybind11/pybind11.h>

#include <sstream>
#include <string>

#include "nft/types.h"
#include "python/bindings.h"
#include "python/common.h"

namespace nftpy {
namespace {

nft::GeometryKind kindFrom(const std::string& name) {
  for (const nft::GeometryKind k : {nft::GeometryKind::Planar, nft::GeometryKind::Cylinder, nft::GeometryKind::Cone})
    if (name == nft::toString(k)) return k;
  valueError("kind '" + name + "': expected 'planar', 'cylinder' or 'cone'");
}

nft::ConeLabel labelFrom(const std::string& name) {
  for (const nft::ConeLabel l : {nft::ConeLabel::Sector, nft::ConeLabel::Rectangle})
    if (name == nft::toString(l)) return l;
  valueError("cone_label '" + name + "': expected 'sector' or 'rectangle'");
}

std::string reprOf(const nft::TargetGeometry& g) {
  std::ostringstream s;
  s << "nft.TargetGeometry.";
  if (g.kind == nft::GeometryKind::Cylinder)
    s << "cylinder(radius_m=" << g.radiusMetres << ")";
  else if (g.kind == nft::GeometryKind::Cone)
    s << "cone(top_radius_m=" << g.topRadiusMetres << ", bottom_radius_m=" << g.bottomRadiusMetres
      << ", side_length_m=" << g.sideLengthMetres << ", label='" << nft::toString(g.coneLabel) << "')";
  else
    s << "planar()";
  return s.str();
}

}  // namespace

nft::TargetGeometry geometryFrom(const py::handle& geometry) {
  if (geometry.is_none()) return {};
  if (!py::isinstance<nft::TargetGeometry>(geometry))
    throw py::type_error("geometry: expected None or an nft.TargetGeometry (e.g. nft.TargetGeometry.cylinder(0.033)), got " +
                         py::str(py::type::handle_of(geometry).attr("__name__")).cast<std::string>());
  return geometry.cast<nft::TargetGeometry>();
}

void bindGeometry(py::module_& m) {
  py::class_<nft::TargetGeometry>(m, "TargetGeometry", R"doc(The surface a target is printed on (C++ nft::TargetGeometry). Metres.

- planar: a flat print (the default).
- cylinder: a label around a can or a bottle; the target image is the label unrolled, its width
  (width_m) the label's arc length, at most 2π·radius_m.
- cone: a sleeve on a cup, between top_radius_m and bottom_radius_m (one may be 0) over
  side_length_m along the slant; the image is the unrolled sector as printed (cone_label 'sector')
  or a rectangle as wide as the bottom edge's arc ('rectangle').
Made with TargetGeometry.cylinder(r), TargetGeometry.cone(top, bottom, side) or TargetGeometry(kind=...,
...); the sizes are checked against the label when a target is trained (nft.InputError naming the field).)doc")
      .def(py::init([](const std::string& kind, double radius, double top, double bottom, double side,
                       const std::string& label) {
             nft::TargetGeometry g;
             g.kind = kindFrom(kind);
             g.radiusMetres = radius;
             g.topRadiusMetres = top;
             g.bottomRadiusMetres = bottom;
             g.sideLengthMetres = side;
             g.coneLabel = labelFrom(label);
             return g;
           }),
           py::arg("kind") = "planar", py::arg("radius_m") = 0.0, py::arg("top_radius_m") = 0.0,
           py::arg("bottom_radius_m") = 0.0, py::arg("side_length_m") = 0.0, py::arg("cone_label") = "sector")
      .def_static("planar", &nft::TargetGeometry::planar, "A flat print (the default).")
      .def_static("cylinder", &nft::TargetGeometry::cylinder, py::arg("radius_m"),
                  "A label around a cylinder of radius_m metres.")
      .def_static(
          "cone",
          [](double top, double bottom, double side, const std::string& label) {
            return nft::TargetGeometry::cone(top, bottom, side, labelFrom(label));
          },
          py::arg("top_radius_m"), py::arg("bottom_radius_m"), py::arg("side_length_m"), py::arg("label") = "sector",
          "A label on a cone between the radii top_radius_m and bottom_radius_m, side_length_m along the slant; "
          "label 'sector' or 'rectangle'.")
      .def_property_readonly("kind", [](const nft::TargetGeometry& g) { return nft::toString(g.kind); },
                             "'planar', 'cylinder' or 'cone'.")
      .def_readonly("radius_m", &nft::TargetGeometry::radiusMetres, "cylinder: its radius, metres (else 0).")
      .def_readonly("top_radius_m", &nft::TargetGeometry::topRadiusMetres,
                    "cone: the radius at the label's top edge, metres (else 0).")
      .def_readonly("bottom_radius_m", &nft::TargetGeometry::bottomRadiusMetres,
                    "cone: the radius at the label's bottom edge, metres (else 0).")
      .def_readonly("side_length_m", &nft::TargetGeometry::sideLengthMetres,
                    "cone: the label's length along the slant, metres (else 0).")
      .def_property_readonly("cone_label", [](const nft::TargetGeometry& g) { return nft::toString(g.coneLabel); },
                             "cone: 'sector' or 'rectangle', the label image's layout.")
      .def_property_readonly("curved", &nft::TargetGeometry::curved, "True for a cylinder or a cone.")
      .def("__repr__", &reprOf);
}

}  // namespace nftpy
