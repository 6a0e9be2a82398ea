// rosenbrock: Kaps–Rentrop rosenbrock4, linearly implicit, order 4(3), under Boost.Odeint's
// controller on ublas copies of x, with the exact ∂ẋ/∂x of the tree
// (appell/derivatives.hpp state_jacobian); steps clipped to hit every output instant.
// Trees only (no loops or constraint rows), in the recursive formulation.
#include "appell/derivatives.hpp"
#include "appell/forward.hpp"
#include "engine/model/tree.hpp"
#include "engine/run/integrators/integrator.hpp"

namespace appell {

namespace {

// its Jacobian is the tree's exact derivatives: a tree in the recursive formulation
void check_rosenbrock(const Model& m, SimulationOptions& o,
                      const std::function<void(const std::string&)>& bad) {
  if (o.formulation == Formulation::Auto) o.formulation = Formulation::Recursive;
  const Formulation f = resolve_formulation(m, o.formulation);
  if (f != Formulation::Recursive || m.tree().nrows_extra > 0)
    bad("integrator.method 'rosenbrock' runs trees (no loops or constraint rows) in the "
        "recursive formulation");
  Data probe(m);
  Eigen::MatrixXd J;
  try {
    state_jacobian(m, probe, m.initial_state(), J);
  } catch (const std::invalid_argument& e) {
    bad(std::string("integrator.method 'rosenbrock': ") + e.what());
  }
}

class Rosenbrock final : public Stepper {
 public:
  explicit Rosenbrock(Simulation::Impl& s)
      : rosenbrock_(s.o.integrator.atol, s.o.integrator.rtol) {}

  bool step(Simulation::Impl& s) override {
    namespace ublas = boost::numeric::ublas;
    using UVector = ublas::vector<double>;
    using UMatrix = ublas::matrix<double>;
    using Vector = Eigen::VectorXd;
    using Trial = Simulation::Impl::Trial;
    const Eigen::Index n = s.x.size();
    Eigen::MatrixXd J;
    Vector xe(n), fe(n);
    auto system = [&](const UVector& xu, UVector& fu, double ts) {
      for (Eigen::Index i = 0; i < n; ++i) xe(i) = xu(i);
      s.rhs(xe, fe, ts);
      for (Eigen::Index i = 0; i < n; ++i) fu(i) = fe(i);
    };
    // ∂ẋ/∂x exact; ∂ẋ/∂t (servo targets and torques of time: a stiff servo makes it large,
    // and leaving it out would cost the method its order) by central differences in t,
    // extrapolated twice (Richardson)
    Vector fp(n), fm(n);
    auto jac = [&](const UVector& xu, UMatrix& Ju, double ts, UVector& dfdt) {
      for (Eigen::Index i = 0; i < n; ++i) xe(i) = xu(i);
      jacobian(s, xe, ts, J);
      const double h0 = 1e-3 * std::max(1.0, std::abs(ts));
      Vector slope[3];
      for (int l = 0; l < 3; ++l) {
        const double hl = h0 / (1 << l);
        s.rhs(xe, fp, ts + hl);
        s.rhs(xe, fm, ts - hl);
        slope[l] = (fp - fm) / (2 * hl);
      }
      const Vector e0 = (4 * slope[1] - slope[0]) / 3, e1 = (4 * slope[2] - slope[1]) / 3;
      const Vector ft = (16 * e1 - e0) / 15;
      for (Eigen::Index i = 0; i < n; ++i) {
        dfdt(i) = ft(i);
        for (Eigen::Index j = 0; j < n; ++j) Ju(i, j) = J(i, j);
      }
    };
    UVector xu(n);
    for (;;) {
      const double t_target = s.instant(s.k + 1);
      const double h_before = s.h, h_attempt = std::min(s.h, t_target - s.t);
      double t_try = s.t, h_try = h_attempt;
      for (Eigen::Index i = 0; i < n; ++i) xu(i) = s.x(i);
      s.rhs_failure = {};
      const auto res = rosenbrock_.try_step(std::make_pair(system, jac), xu, t_try, h_try);
      s.h = h_try;
      s.x_new.resize(n);
      for (Eigen::Index i = 0; i < n; ++i) s.x_new(i) = xu(i);
      const Trial trial = s.judge(res, s.x_new, h_attempt);
      if (trial == Trial::Failed) return false;
      if (trial == Trial::Rejected) continue;
      return s.end_clipped_step(h_before, h_attempt, t_target, t_try);
    }
  }

 private:
  odeint::rosenbrock4_controller<odeint::rosenbrock4<double>> rosenbrock_;

  // ∂ẋ/∂x at (t, xi) into J; false (rhs_failure set) when it cannot be evaluated
  static bool jacobian(Simulation::Impl& s, const Eigen::VectorXd& xi, double t_at,
                       Eigen::MatrixXd& J) {
    const TreeModel& tree = s.m.tree();
    State st;
    st.t = t_at;
    st.q = xi.head(tree.nq);
    st.u = xi.tail(tree.nu);
    try {
      state_jacobian(s.m, s.d, st, J);
    } catch (const std::exception& e) {
      if (!s.rhs_failure.happened) s.rhs_failure = {true, SolveStatus::NotFinite, e.what(), t_at};
      J.setConstant(s.x.size(), s.x.size(), std::numeric_limits<double>::quiet_NaN());
      return false;
    }
    return true;
  }
};

}  // namespace

const Integrator& rosenbrock_integrator() {
  static const Integrator kRosenbrock{
      {"rosenbrock", "Rosenbrock 4(3), linearly implicit with the exact Jacobian, for stiff trees",
       true, false, false, false},
      check_rosenbrock,
      [](Simulation::Impl& s) -> std::unique_ptr<Stepper> {
        return std::make_unique<Rosenbrock>(s);
      }};
  return kRosenbrock;
}

}  // namespace appell
