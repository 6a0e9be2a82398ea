// DAE, glTF and GLB meshes (scenes/mesh_readers.hpp): assimp, which Debian builds with
// assertions and whose readers can loop on a malformed file, runs in a child process
// (fork) under a CPU-time and an address-space limit, killed after
// MeshLimits::kImportSeconds of wall-clock time; it sends the vertices and triangles back
// through a pipe (scenes/mesh.cpp: why).
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>

#include "scenes/mesh_readers.hpp"

namespace appell::mesh_detail {

namespace {

#if defined(__SANITIZE_ADDRESS__)
#define APPELL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define APPELL_UNDER_ASAN 1
#endif
#endif

// ---- DAE, glTF, GLB: assimp in a child process ----------------------------------------

// what the child sends: a status byte (0: the mesh follows; 1: a message follows), then
// the vertex and triangle counts (uint64 each), the vertices (3 doubles each) and the
// triangles (3 int32 each), or the message's length (uint64) and bytes
bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

[[noreturn]] void import_child(const std::string& path, int fd) {
  // quiet, with the default action for fatal signals (a fuzzer's or an embedder's
  // handlers would report the child's crash as their own), and limited
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU, SIGPIPE})
    ::signal(sig, SIG_DFL);
  rlimit cpu{MeshLimits::kImportSeconds, MeshLimits::kImportSeconds};
  ::setrlimit(RLIMIT_CPU, &cpu);
#ifndef APPELL_UNDER_ASAN
  // (not under AddressSanitizer, whose shadow memory reserves terabytes of addresses)
  rlimit as{static_cast<rlim_t>(MeshLimits::kImportBytes),
            static_cast<rlim_t>(MeshLimits::kImportBytes)};
  ::setrlimit(RLIMIT_AS, &as);
#endif
  std::string message;
  {
    Assimp::Importer importer;
    // the file's node transforms applied (a mesh exported with a unit scale or an axis
    // swap keeps its shape); polygons become triangles
    const aiScene* scene =
        importer.ReadFile(path, aiProcess_PreTransformVertices | aiProcess_Triangulate);
    if (!scene || !scene->HasMeshes()) {
      const char* why = importer.GetErrorString();
      message = (why && *why) ? why : "no mesh in the file";
    } else {
      std::uint64_t nv = 0, nt = 0;
      for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        nv += scene->mMeshes[m]->mNumVertices;
        for (unsigned f = 0; f < scene->mMeshes[m]->mNumFaces; ++f)
          nt += scene->mMeshes[m]->mFaces[f].mNumIndices == 3 ? 1 : 0;
      }
      if (nv > static_cast<std::uint64_t>(MeshLimits::kMaxVertices))
        message = "more than " + std::to_string(MeshLimits::kMaxVertices) + " vertices";
      else if (nt > static_cast<std::uint64_t>(MeshLimits::kMaxTriangles))
        message = "more than " + std::to_string(MeshLimits::kMaxTriangles) + " triangles";
      if (message.empty()) {
        const unsigned char ok = 0;
        bool sent = write_all(fd, &ok, 1) && write_all(fd, &nv, 8) && write_all(fd, &nt, 8);
        for (unsigned m = 0; sent && m < scene->mNumMeshes; ++m) {
          const aiMesh* mesh = scene->mMeshes[m];
          for (unsigned v = 0; sent && v < mesh->mNumVertices; ++v) {
            const double p[3] = {mesh->mVertices[v].x, mesh->mVertices[v].y, mesh->mVertices[v].z};
            sent = write_all(fd, p, sizeof p);
          }
        }
        std::int64_t base = 0;
        for (unsigned m = 0; sent && m < scene->mNumMeshes; ++m) {
          const aiMesh* mesh = scene->mMeshes[m];
          for (unsigned f = 0; sent && f < mesh->mNumFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3) continue;  // points and lines bound no volume
            std::int32_t t[3];
            for (int k = 0; k < 3; ++k)
              t[k] = face.mIndices[k] < mesh->mNumVertices
                         ? static_cast<std::int32_t>(base + face.mIndices[k])
                         : -1;  // refused by the parent
            sent = write_all(fd, t, sizeof t);
          }
          base += mesh->mNumVertices;
        }
        ::_exit(sent ? 0 : 1);
      }
    }
  }
  const unsigned char failed = 1;
  const std::uint64_t n = message.size();
  write_all(fd, &failed, 1) && write_all(fd, &n, 8) && write_all(fd, message.data(), n);
  ::_exit(0);
}

// Reads n bytes from fd before `deadline`; false on the end of the data, an error or the
// deadline (`late` tells which).
bool read_all(int fd, void* data, size_t n, std::chrono::steady_clock::time_point deadline,
              bool& late) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      late = true;
      return false;
    }
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) continue;  // the deadline is checked above
    const ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

bool import_sandboxed(const std::string& path, Sink& sink) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return sink.fail("cannot start the mesh importer (pipe)");
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return sink.fail("cannot start the mesh importer (fork)");
  }
  if (pid == 0) {
    ::close(fds[0]);
    import_child(path, fds[1]);
  }
  ::close(fds[1]);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(MeshLimits::kImportSeconds);
  bool late = false;
  std::string error;
  unsigned char status = 2;
  std::uint64_t a = 0, b = 0;
  if (read_all(fds[0], &status, 1, deadline, late) && read_all(fds[0], &a, 8, deadline, late)) {
    if (status == 1) {
      std::string message(std::min<std::uint64_t>(a, 4096), '\0');
      if (read_all(fds[0], message.data(), message.size(), deadline, late))
        error = "the importer (assimp) refused it: " + message;
    } else if (status == 0 && read_all(fds[0], &b, 8, deadline, late)) {
      if (a > static_cast<std::uint64_t>(MeshLimits::kMaxVertices) ||
          b > static_cast<std::uint64_t>(MeshLimits::kMaxTriangles)) {
        error = "the importer sent more than the limits allow";
      } else {
        std::vector<double> xyz(3 * a);
        std::vector<std::int32_t> ijk(3 * b);
        if (read_all(fds[0], xyz.data(), xyz.size() * sizeof(double), deadline, late) &&
            read_all(fds[0], ijk.data(), ijk.size() * sizeof(std::int32_t), deadline, late)) {
          status = 3;  // complete
          for (std::uint64_t v = 0; v < a && error.empty(); ++v)
            if (!sink.vertex(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2])) error = sink.error;
          for (std::uint64_t t = 0; t < b && error.empty(); ++t)
            if (!sink.triangle(ijk[3 * t], ijk[3 * t + 1], ijk[3 * t + 2])) error = sink.error;
        }
      }
    }
  }
  ::close(fds[0]);
  if (late) ::kill(pid, SIGKILL);
  int ws = 0;
  pid_t w;
  do w = ::waitpid(pid, &ws, 0);
  while (w < 0 && errno == EINTR);
  if (late)
    return sink.fail("the importer (assimp) took longer than " +
                     std::to_string(MeshLimits::kImportSeconds) + " s");
  if (w == pid && WIFSIGNALED(ws)) {
    const int sig = WTERMSIG(ws);
    if (sig == SIGXCPU || sig == SIGKILL)
      return sink.fail("the importer (assimp) took longer than " +
                       std::to_string(MeshLimits::kImportSeconds) + " s of CPU time");
    return sink.fail("the importer (assimp) crashed on it (signal " + std::to_string(sig) + ": " +
                     strsignal(sig) + ")");
  }
  if (!error.empty()) return sink.fail(error);
  if (status != 3) return sink.fail("the importer (assimp) stopped before it sent the mesh");
  return sink.check_indices();
}

// the content a DAE, glTF or GLB file starts with, checked before assimp sees it
std::string assimp_content_defect(const std::string& ext, const std::string& bytes) {
  size_t i = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (ext == "dae") {
    const std::string head = bytes.substr(i, 4096);
    if ((head.compare(0, 5, "<?xml") != 0 && head.compare(0, 8, "<COLLADA") != 0) ||
        head.find("<COLLADA") == std::string::npos)
      return "not a COLLADA file (XML whose root element <COLLADA> starts in its first 4 KiB)";
    return "";
  }
  if (ext == "gltf") {
    if (i >= bytes.size() || bytes[i] != '{') return "not a glTF file (a JSON object)";
    return "";
  }
  // GLB: magic, version 2, the total length equal to the file's size
  std::uint32_t h[3] = {0, 0, 0};
  if (bytes.size() >= 12) std::memcpy(h, bytes.data(), 12);
  if (bytes.size() < 12 || bytes.compare(0, 4, "glTF") != 0 || h[1] != 2 || h[2] != bytes.size())
    return "not a GLB file (the magic 'glTF', version 2, and its length in bytes " +
           std::to_string(bytes.size()) + " in its 12-byte header)";
  return "";
}

}  // namespace appell::mesh_detail
