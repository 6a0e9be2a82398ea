// The two ways appell/derivatives.hpp computes ∂τ: the analytical derivatives of the
// Newton–Euler recursion (rnea_derivatives.cpp) and automatic differentiation, both for
// every joint type; trees with extra rows always take the automatic one.  Private to the
// library; the tests compare them.
#pragma once

#include "appell/derivatives.hpp"

namespace appell {
namespace detail {

enum class DerivativePath { Automatic, Analytic };

// the path the public functions take: Analytic (extra rows go the automatic way inside)
DerivativePath derivative_path(const Model& m);

// inverse_dynamics_derivatives() and forward_dynamics_derivatives() along the given path
void inverse_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& udot, InverseDerivatives& out,
                                  DerivativePath path);
void forward_dynamics_derivatives(const Model& m, Data& d, const State& s,
                                  const Eigen::VectorXd& tau, ForwardDerivatives& out,
                                  DerivativePath path);

}  // namespace detail
}  // namespace appell
