// traj.csv and forces.csv rows on a writer thread (cli/sample_writer.hpp).
#include "cli/sample_writer.hpp"

#include <algorithm>
#include <utility>

namespace appell::cli {

SampleWriter::SampleWriter(const Model& m, Csv& traj, Csv& forces, bool threaded, JointFrame frame)
    : traj_(traj),
      forces_(forces),
      write_traj_(static_cast<bool>(traj)),
      write_forces_(static_cast<bool>(forces)),
      threaded_(threaded && (write_traj_ || write_forces_)),
      rows_(m, frame),
      data_(m) {
  if (!threaded_) return;
  // as many samples per batch as about kBatchBytes of their numbers hold
  Snapshot proto;
  proto.body = data_.body;
  if (write_forces_) {
    proto.reaction = data_.reaction;
    proto.lambda = data_.lambda;
  }
  const std::size_t bytes = sizeof(Snapshot) + proto.body.size() * sizeof(BodyState) +
                            proto.reaction.size() * sizeof(SpatialForce) +
                            static_cast<std::size_t>(proto.lambda.size()) * sizeof(double);
  capacity_ = std::clamp<std::size_t>(kBatchBytes / bytes, 1, 256);
  batches_.resize(kBatches);
  for (Batch& b : batches_) b.samples.assign(capacity_, proto);
  thread_ = std::thread([this] { run(); });
}

SampleWriter::~SampleWriter() {
  finish();
}

void SampleWriter::observe(const Sample& s) {
  if (!threaded_) {
    if (write_traj_ || write_forces_) write(s);
    return;
  }
  // batch produced_ % kBatches is ours until publish()
  Batch& b = batches_[produced_ % kBatches];
  Snapshot& c = b.samples[b.size++];
  c.t = s.t;
  c.kinetic = s.kinetic_energy;
  c.potential = s.potential_energy;
  c.energy = s.energy;
  c.position = s.violation_position;
  c.velocity = s.violation_velocity;
  c.index = s.index;
  c.body = s.data.body;  // same sizes every time: copies, no allocation
  c.has_state = s.state != nullptr;
  if (c.has_state) {  // allocates on the snapshot's first use only
    c.state.t = s.state->t;
    c.state.q = s.state->q;
    c.state.u = s.state->u;
  }
  if (write_forces_) {
    c.reaction = s.data.reaction;
    c.lambda = s.data.lambda;
    c.has_contacts = s.contacts != nullptr;
    if (c.has_contacts) c.contacts = *s.contacts;  // allocates only when the rows grow
  }
  if (b.size == capacity_) publish(true);
}

void SampleWriter::publish(bool wait_for_room) {
  std::unique_lock<std::mutex> lock(mutex_);
  ++produced_;
  ready_.notify_one();
  if (!wait_for_room) return;
  room_.wait(lock, [this] { return produced_ - consumed_ < kBatches; });
  batches_[produced_ % kBatches].size = 0;  // the writer is done with it
}

void SampleWriter::finish() {
  if (!thread_.joinable()) return;
  threaded_ = false;
  if (batches_[produced_ % kBatches].size > 0) publish(false);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  ready_.notify_one();
  thread_.join();
}

void SampleWriter::run() {
  for (;;) {
    std::size_t next;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return consumed_ < produced_ || closed_; });
      if (consumed_ == produced_) return;  // closed, and every batch written
      next = consumed_ % kBatches;
    }
    Batch& b = batches_[next];
    for (std::size_t i = 0; i < b.size; ++i) write(b.samples[i]);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++consumed_;
    }
    room_.notify_one();
  }
}

void SampleWriter::write(Snapshot& c) {
  // the copy's vectors become data_'s and data_'s old ones (the same sizes) go back to be
  // overwritten: no copy here, no allocation there
  data_.t = c.t;
  data_.body.swap(c.body);
  if (write_forces_) {
    data_.reaction.swap(c.reaction);
    data_.lambda.swap(c.lambda);
  }
  write(Sample{c.t, data_, c.kinetic, c.potential, c.energy, c.position, c.velocity, c.index,
               c.has_state ? &c.state : nullptr, c.has_contacts ? &c.contacts : nullptr});
}

void SampleWriter::write(const Sample& s) {
  const bool skip = failed();
  if (write_traj_) {
    rows_.traj(s, row_);
    if (!skip) traj_.row(row_);
  }
  if (write_forces_) {
    rows_.forces(s, row_);
    if (!skip) forces_.row(row_);
  }
  if (!skip && (traj_.failed() || forces_.failed())) failed_.store(true, std::memory_order_relaxed);
}

}  // namespace appell::cli
