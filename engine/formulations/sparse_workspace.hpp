// The sparse formulation's symbolic analysis and numeric workspace (internal to engine/).
//
// Ĝ = D A M⁻¹ Aᵀ D couples rows i and j only through the bodies both name, and M⁻¹ is block
// diagonal (1/m per particle, 1/m and J⁻¹ per rigid body), so
//     G_ij = Σ_{b named by i and j} t_ibᵀ M_b⁻¹ t_jb                                    (S1)
// with t_ib the row term of row i on body b (C2).  Which rows name which bodies is fixed by
// the Model, so the pattern of Ĝ, its fill-reducing order, elimination tree and the
// pattern of L are too: they are computed once, by the first evaluation on a Data, and
// kept in the Data (SparseCache).  For each body the workspace lists the terms naming it
// and, for every pair of them, the place of (S1)'s product in the factor's values: the
// numeric assembly is then one 3- or 6-dot per pair, written straight into the LDLᵀ.
// After the first evaluation nothing is allocated.
#pragma once

#include <vector>

#include "appell/data.hpp"
#include "engine/formulations/ldlt_zero_pivot.hpp"

namespace appell {

struct SparseWorkspace {
  // The symbolic analysis of m's rows.  O(Σ_b k_b² + nnz(L)), k_b the terms naming body b,
  // plus the ordering.
  explicit SparseWorkspace(const Model& m);
  // whether this analysis was made for m's constraints and the bodies they name (a Data
  // serves one Model).  O(constraints + their bodies).
  bool fits(const Model& m) const;

  std::vector<const Constraint*> built_for;  // m.constraints() at analysis
  std::vector<int> built_bodies;             // and the bodies each names, in order
  std::vector<int> term_row, term_body;      // per term: its row, its composite (nterms)
  std::vector<int> body_terms_p;             // terms naming body b: body_terms[p_b, p_b+1)
  std::vector<int> body_terms;               //                              (nterms)
  // per body, per pair x ≤ y of its terms (row-major upper triangle): the slot of
  // G(row x, row y) in ldlt.values(), as −1 − slot when (S1) adds the product twice (two
  // terms of one row on one body, x ≠ y: both orders land on the diagonal)
  std::vector<int> pair_slot;
  ZeroPivotLDLT ldlt;

  // numeric workspace, sized here
  std::vector<Mat3> Jinv;       // J⁻¹ per composite (zero for a particle)      (ncomposite)
  std::vector<SpatialForce> w;  // M_b⁻¹ t per term                                    (nterms)
  Eigen::VectorXd rho, D, e;    // ρ (P1), 1/ρ, ê = D (b − A a)                         (nrows)
  Eigen::VectorXd mu;           // μ = Ĝ⁻ ê                                            (nrows)
  Eigen::VectorXd a;            // M⁻¹ F                                               (nu)
};

// d's workspace, analysed for m on first use (or when d was last used with another model).
SparseWorkspace& sparse_workspace(const Model& m, Data& d);

}  // namespace appell
