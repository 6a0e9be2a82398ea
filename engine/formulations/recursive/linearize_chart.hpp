// What the linear models of appell/derivatives.hpp linearize() share: the difference
// quotient that stands in where the exact derivatives do not cover a model, the steady turn
// a model is taken in, and the note on spinning quaternion joints.  Private to the library
// (linearize.cpp for trees, linearize_constrained.cpp for constraint rows beyond the tree).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "appell/derivatives.hpp"

namespace appell {
namespace linearization {

// d/dh f(h) at 0: central differences extrapolated twice (Richardson, error O(h⁶))
Eigen::VectorXd richardson(const std::function<Eigen::VectorXd(double)>& f, double h);

// A steady turn (appell/derivatives.hpp): the world-frame blocks of u (a root free joint's
// v and ω, a root ball joint's ω) turn at Ω about the vertical, u̇ = Ω ẑ × u there, while
// every other rate stays, u̇ = 0.  In a frame turning with it the motion is a fixed point,
// and every world-frame 3-vector of x (those blocks of δq and of δu) gains −Ω ẑ × in its
// rate: δq' = Rᵀ δq gives δq̇' = Rᵀ (δq̇ − Ω ẑ × δq) at R = I.  Ω is the least-squares fit;
// a state that no Ω makes steady (to 1e-9 of its rates) is linearized as it is (Ω = 0).
struct Turn {
  double rate = 0;
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
  std::vector<int> blocks;  // where the world-frame 3-vectors start (tree nu indices)
  // Ω ẑ × on the world blocks of v (tree nu), zero elsewhere
  Eigen::VectorXd apply(const Eigen::VectorXd& v) const;
  std::string note() const;
};

// the steady turn of s, whose accelerations are udot (rate 0 when s turns steadily at none)
Turn steady_turn(const Model& m, const State& s, const Eigen::VectorXd& udot);

// what the note says when a quaternion joint spins at s (see appell/derivatives.hpp)
std::string spin_note(const Model& m, const State& s);

// linearize() for a model with constraint rows beyond its tree: x = (δq_I, u_V) over the
// independent coordinates and velocities (coordinate partitioning; linearize_constrained.cpp);
// the inputs are checked by the caller
LinearModel linearize_constrained(const Model& m, const State& s, const std::vector<int>& inputs);

}  // namespace linearization
}  // namespace appell
