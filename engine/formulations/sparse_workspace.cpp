#include "engine/formulations/sparse_workspace.hpp"

namespace appell {

SparseCache::SparseCache() = default;
SparseCache::~SparseCache() = default;
SparseCache::SparseCache(const SparseCache& o)
    : workspace(o.workspace ? std::make_unique<SparseWorkspace>(*o.workspace) : nullptr) {}
SparseCache& SparseCache::operator=(const SparseCache& o) {
  workspace = o.workspace ? std::make_unique<SparseWorkspace>(*o.workspace) : nullptr;
  return *this;
}

namespace {

// every term's row and composite (its body's, stages.hpp W1), and the terms naming each
// composite (a counting sort)
void incidence(const Model& m, SparseWorkspace& ws) {
  ws.term_row.assign(m.nterms(), 0);
  ws.term_body.assign(m.nterms(), 0);
  ws.body_terms_p.assign(m.ncomposite() + 1, 0);
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    const int nb = static_cast<int>(con.bodies().size());
    for (int i = 0; i < con.rows(); ++i)
      for (int j = 0; j < nb; ++j) {
        const int t = m.term_offset(c) + i * nb + j;
        ws.term_row[t] = m.row_offset(c) + i;
        ws.term_body[t] = m.composite(con.bodies()[j]);
        ++ws.body_terms_p[ws.term_body[t] + 1];
      }
  }
  for (int b = 0; b < m.ncomposite(); ++b) ws.body_terms_p[b + 1] += ws.body_terms_p[b];
  ws.body_terms.assign(m.nterms(), 0);
  std::vector<int> next(ws.body_terms_p.begin(), ws.body_terms_p.end() - 1);
  for (int t = 0; t < m.nterms(); ++t) ws.body_terms[next[ws.term_body[t]]++] = t;
}

// calls fn(x, y) for every pair x ≤ y of the terms naming body b (S1)
template <typename Fn>
void for_body_pairs(const SparseWorkspace& ws, int b, Fn&& fn) {
  for (int p = ws.body_terms_p[b]; p < ws.body_terms_p[b + 1]; ++p)
    for (int q = p; q < ws.body_terms_p[b + 1]; ++q) fn(ws.body_terms[p], ws.body_terms[q]);
}

}  // namespace

SparseWorkspace::SparseWorkspace(const Model& m) {
  built_for.reserve(m.constraints().size());
  for (const ConstraintPtr& c : m.constraints()) {
    built_for.push_back(c.get());
    built_bodies.insert(built_bodies.end(), c->bodies().begin(), c->bodies().end());
  }
  incidence(m, *this);

  // the pattern of G: every row's diagonal, and the rows that share a body (S1)
  std::vector<Eigen::Triplet<double>> entries;
  for (int r = 0; r < m.nrows(); ++r) entries.emplace_back(r, r, 1.0);
  for (int b = 0; b < m.ncomposite(); ++b)
    for_body_pairs(*this, b, [&](int x, int y) {
      entries.emplace_back(term_row[x], term_row[y], 1.0);
      entries.emplace_back(term_row[y], term_row[x], 1.0);
    });
  Eigen::SparseMatrix<double> G(m.nrows(), m.nrows());
  G.setFromTriplets(entries.begin(), entries.end());
  ldlt.analyze(G);

  // where each pair's product goes in the factor's values
  for (int b = 0; b < m.ncomposite(); ++b)
    for_body_pairs(*this, b, [&](int x, int y) {
      const int slot = ldlt.slot(term_row[x], term_row[y]);
      pair_slot.push_back(x != y && term_row[x] == term_row[y] ? -1 - slot : slot);
    });

  Jinv.assign(m.ncomposite(), Mat3::Zero());
  w.assign(m.nterms(), SpatialForce{});
  rho.setZero(m.nrows());
  D.setZero(m.nrows());
  e.setZero(m.nrows());
  mu.setZero(m.nrows());
  a.setZero(m.nu());
}

bool SparseWorkspace::fits(const Model& m) const {
  if (built_for.size() != m.constraints().size() ||
      static_cast<int>(built_bodies.size()) != m.nslots())
    return false;
  const int* body = built_bodies.data();
  for (size_t c = 0; c < built_for.size(); ++c) {
    const Constraint& con = *m.constraints()[c];
    if (built_for[c] != &con) return false;
    for (int b : con.bodies())
      if (*body++ != b) return false;
  }
  return static_cast<int>(term_row.size()) == m.nterms() && ldlt.size() == m.nrows();
}

SparseWorkspace& sparse_workspace(const Model& m, Data& d) {
  if (!d.sparse.workspace || !d.sparse.workspace->fits(m))
    d.sparse.workspace = std::make_unique<SparseWorkspace>(m);
  return *d.sparse.workspace;
}

}  // namespace appell
