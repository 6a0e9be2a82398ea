// The rows of traj.csv and forces.csv (cli/outputs.hpp), written on a thread of their own so
// that a machine with a spare core integrates while it writes.
//
// The integrating thread only copies each sample's numbers (t, body states, energies,
// violations; with forces.csv also the reactions and multipliers) into a bounded ring of
// kBatches batches, reused from run start to end (no allocation per sample).  The writer
// thread takes the batches in order and, sample after sample, builds the rows' values
// (appell::SampleRows: quaternion signs and joint angles continued from the previous
// sample), formats them (appell/number_format.hpp) and writes them.  When the writer falls
// behind, observe() waits for a free batch: memory stays bounded.
//
// The bytes written are those of the synchronous writer (threaded = false: every row is
// built and written inside observe(), the thread and the copies skipped), and so those of
// the Python module's to_csv.  A write that fails raises failed(), which the run polls to
// stop early; later rows are still built (the summary's quaternion signs follow every
// sample) but not written, and the file's commit() reports the first error.  After a
// numerical failure, finish() writes every row observed until then.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "appell/data.hpp"
#include "appell/simulation.hpp"
#include "appell/trajectory.hpp"
#include "cli/outputs.hpp"

namespace appell::cli {

class SampleWriter {
 public:
  // traj and forces may be closed (not written); both must outlive the writer, and between
  // construction and finish() only the writer touches them
  SampleWriter(const Model& m, Csv& traj, Csv& forces, bool threaded,
               JointFrame frame = JointFrame::Parent);
  ~SampleWriter();  // finish()
  SampleWriter(const SampleWriter&) = delete;
  SampleWriter& operator=(const SampleWriter&) = delete;

  // the rows of sample s, written now (synchronous) or queued (threaded)
  void observe(const Sample& s);
  // a write has failed (the run may stop)
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Writes every queued row and joins the thread; idempotent.  The files may then be
  // committed (a sample observed later is written at once).
  void finish();
  // the rows' running state (the quaternion signs of the last sample); only after finish()
  SampleRows& rows() { return rows_; }

  static constexpr std::size_t kBatches = 4;
  static constexpr std::size_t kBatchBytes = std::size_t{1} << 18;  // numbers per batch

 private:
  // one sample's numbers, as the writer needs them
  struct Snapshot {
    double t = 0, kinetic = 0, potential = 0, energy = 0, position = 0, velocity = 0;
    int index = 0;
    std::vector<BodyState> body;
    std::vector<SpatialForce> reaction;   // forces.csv only
    Eigen::VectorXd lambda;               // forces.csv only
    std::vector<ContactSample> contacts;  // forces.csv only: Sample::contacts' copy
    bool has_contacts = false;
    State state;  // Sample::state's copy, when it has one
    bool has_state = false;
  };
  struct Batch {
    std::vector<Snapshot> samples;
    std::size_t size = 0;
  };

  void write(const Sample& s);       // the rows of s, built and (unless failed) written
  void write(Snapshot& snapshot);    // the same from a copy (its vectors are swapped out)
  void publish(bool wait_for_room);  // hands the filling batch to the writer
  void run();                        // the writer thread

  Csv& traj_;
  Csv& forces_;
  const bool write_traj_, write_forces_;
  bool threaded_;            // until finish(): later samples are written at once
  SampleRows rows_;          // writer side
  std::vector<double> row_;  // writer side: one row's values
  Data data_;                // writer side: the Data a copied sample is read from
  std::atomic<bool> failed_{false};

  // the ring: batch produced_ % kBatches is being filled by observe() while
  // produced_ − consumed_ < kBatches; the writer takes batches consumed_ .. produced_ − 1
  std::vector<Batch> batches_;
  std::size_t capacity_ = 1;  // samples per batch
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::size_t produced_ = 0, consumed_ = 0;  // guarded by mutex_
  bool closed_ = false;                      // guarded by mutex_
  std::thread thread_;
};

}  // namespace appell::cli
