// The files `appell simulate` writes, row by row (README, Command line):
//
//   traj.csv     the columns of appell::traj_schema (appell/output_schema.hpp): t, the
//                bodies' poses and velocities, energy, violations, the joints' q and qd; one
//                row per output instant, %.17g (round-trips every double;
//                appell/number_format.hpp).
//   forces.csv   the columns of appell::forces_schema: t, per constraint and body it names
//                the resultant constraint force on the body and its moment about the body's
//                centre of mass, world frame (docs/architecture.md); then the actuated
//                joints' τ and power, and the limited joints' limit forces.
//
// Outputs are safe (docs/scene-format.md, "Outputs"): every path is checked before the run
// (writable, none of the files the run reads, not another output); a regular file is written to a
// temporary beside it and renamed onto its path only when complete (or, after a numerical failure,
// holding the rows computed until then), so an existing file is never left truncated;
// every write and the close are checked.  Devices and pipes (/dev/stdout, /dev/full) are
// written in place.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "appell/model.hpp"
#include "appell/number_format.hpp"
#include "appell/simulation.hpp"

namespace appell::cli {

// One output file, written to a temporary and committed.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // an uncommitted temporary is removed

  // Creates the temporary beside `path` (or opens a device in place); false with error().
  bool open(const std::string& path);
  explicit operator bool() const { return f_ != nullptr; }
  bool failed() const;  // a write failed
  void text(const std::string& s);
  // For a writer of its own (the HTML report): closes the stream and returns the path to
  // write, the temporary (or the device); commit() then renames it.
  std::string writer_path();
  // Flushes, closes and renames the temporary onto the path; false with error().
  bool commit();
  void discard();
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 protected:
  std::FILE* f_ = nullptr;
  // writes n bytes; the first failure's errno is what commit() reports
  void write(const char* data, size_t n);

 private:
  int write_errno_ = 0;
  std::string path_, temp_, error_;  // temp_ empty: written in place
  // a regular file's stdio buffer: writes of kBuffer bytes (kernels copy 4 KB writes into
  // a file several times slower per byte than 64 KB ones)
  static constexpr size_t kBuffer = size_t{1} << 18;
  std::vector<char> buffer_;
};

// a CSV file written row by row, each row formatted into one buffer and written at once
class Csv : public OutputFile {
 public:
  void row(const std::vector<double>& values);

 private:
  CsvRowBuffer buffer_;
};

// Why the run may not write `path`: it is one of the files the run reads (the same file
// under any spelling of its path, symbolic links followed: device and inode) — the scene
// file ("'P' is the scene file; it is not overwritten") or a file the scene was built
// from, `inputs` (Scene::source_files: an included URDF or MJCF, an MJCF's includes, a
// mesh: "'P' is 'F', a file the scene reads; it is not overwritten"); "" when it may.
std::string input_clash(const std::string& path, const std::string& scene,
                        const std::vector<std::string>& inputs);

// The output paths (option, path; empty paths are not written) are none of the run's
// inputs (input_clash()), distinct from each other, and none is a directory; else prints
// a usage error naming the option and returns false.
bool check_output_paths(const std::string& scene, const std::vector<std::string>& inputs,
                        const std::vector<std::pair<std::string, std::string>>& outputs);

// The files' columns are appell::traj_schema(m) and forces_schema(m) (appell/output_schema.hpp:
// the header is their header()); the rows' values come from appell::SampleRows
// (appell/trajectory.hpp), which walks the same schemas: unit quaternions built from Q (so
// that they hold for every state space) with their sign continuous in time, joint angles
// continuous in time.

}  // namespace appell::cli
