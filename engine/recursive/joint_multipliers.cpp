// Tree joints' multipliers [HO21 §6]: the force through joint i on its subtree is
//   R_i = IA_i a_i + pA_i                                                          (R15)
// and the joint's canonical rows get the λ_j with A_jᵀ λ_j = R_i on the child (R16).
#include <Eigen/Cholesky>

#include "engine/recursive/workspace.hpp"

namespace appell {

namespace {

// λ of one joint's R rows (R16).  The joint's rows restricted to the child C have full
// row rank for every joint type (appell/joint_type.hpp), so A_jᵀ λ = (wrenches on P
// and C) has exactly one solution, and it already solves the child's block
// A_Cᵀ λ = R_i: (A_C A_Cᵀ) λ = A_C R_i, R × 6, fixed sizes, no heap.
template <int R>
void joint_lambda(const Model& m, Data& d, const TreeJoint& t, const SpatialForce& Rc) {
  const Constraint& con = *m.constraints()[t.constraint];
  const int nb = static_cast<int>(con.bodies().size());
  const int j = con.slot(t.body);
  Eigen::Matrix<double, R, 6> A;
  const RowTerm* terms = d.terms.data() + m.term_offset(t.constraint);
  for (int k = 0; k < R; ++k) {
    const RowTerm& rt = terms[k * nb + j];
    A.template block<1, 3>(k, 0) = rt.lin.transpose();
    A.template block<1, 3>(k, 3) = rt.ang.transpose();
  }
  // small fixed sizes: Cholesky (LDLT when rows degenerate)
  const Eigen::Matrix<double, R, R> G = A.lazyProduct(A.transpose());
  const Eigen::Matrix<double, R, 1> AW = A.lazyProduct(Rc.vec);
  const Eigen::LLT<Eigen::Matrix<double, R, R>> llt(G);
  auto lam = d.lambda.segment<R>(m.row_offset(t.constraint));
  if (llt.info() == Eigen::Success)
    lam = llt.solve(AW);  // (R16)
  else
    lam = G.ldlt().solve(AW);
}

}  // namespace

void joint_multipliers(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws) {
  for (int i = 0; i < static_cast<int>(ws.w.size()); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint < 0) continue;
    const TreeBodyWork& w = ws.w[i];
    const SpatialForce R = w.IA * w.a + w.pA;  // on C, at C's centre         (R15)
    switch (t.type->rows()) {
      case 3:
        joint_lambda<3>(m, d, t, R);
        break;
      case 4:
        joint_lambda<4>(m, d, t, R);
        break;
      case 5:
        joint_lambda<5>(m, d, t, R);
        break;
      case 6:
        joint_lambda<6>(m, d, t, R);
        break;
      default:
        break;
    }
  }
}

}  // namespace appell
