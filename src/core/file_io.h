// core/file_io.h: the one checked writer for every file Parity writes (reports, repro folders,
// saved tensors, models). A full disk or a missing folder is an io error naming the file and the
// OS's reason, never a silent half-written file; and no target is ever replaced unless it is a
// plain file (docs/security.md, "How Parity writes its outputs"):
//
//  - a regular file or a new name: written to a temporary created exclusively beside it
//    (O_CREAT|O_EXCL|O_NOFOLLOW, a random name: a planted link is never followed), fsynced and
//    renamed over the path on commit, so readers see the old file or the whole new one;
//  - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: Parity's own descriptor N;
//  - a FIFO or character device (/dev/null, a terminal, /dev/full): opened and written in place;
//  - a symlink: written through, in place (the file it names is truncated and rewritten), by choice:
//    a user who links report.json into a served folder keeps the link. Not atomic;
//  - a directory, block device or socket: refused, saying what it is.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "parity/result.h"

namespace parity {

// An output being written. Streaming writers (a model of hundreds of MB serialized straight
// into fd(), a kernel copy) write to it and commit(); destroyed uncommitted, its temporary is
// removed and the target left as it was. Move-only; not shared between threads.
class OutputFile {
 public:
  // Opens `path` for writing as above. io error at write_output naming the path.
  static Result<OutputFile> open(const std::filesystem::path& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // The descriptor to write to (the temporary, or the target itself when written in place).
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }

  // Writes all of `bytes` (retrying short writes).
  Status write(std::string_view bytes);
  // Appends the whole of file `src` by a kernel copy (no user-space buffer).
  Status copy_from(const std::filesystem::path& src);
  // Makes the output final: fsync and rename over the path (in place: close). Once only.
  Status commit();

  // An io error at write_output for this output: "cannot write PATH: WHAT (strerror(err))".
  Error failure(std::string_view what, int err) const;

 private:
  OutputFile() = default;
  void discard();

  std::filesystem::path path_;  // the target as given
  std::filesystem::path temp_;  // the temporary beside it; empty when written in place
  int fd_ = -1;
};

// Writes `bytes` to `path` through OutputFile (open, write, commit).
Status write_text_file(const std::filesystem::path& path, std::string_view bytes);

// Copies the whole file `src` to `path` through OutputFile (a kernel copy, no user-space buffer).
Status copy_file_to(const std::filesystem::path& src, const std::filesystem::path& path);

// Appends `bytes` to `path` (a journal, a results file), creating it: one write() with O_APPEND,
// so lines of parallel writers stay whole on a local disk, then fsync. A link is written through;
// a directory, block device or socket is refused as in OutputFile::open.
Status append_text_file(const std::filesystem::path& path, std::string_view bytes);

// The target `path` names when it is Parity's standard output ("-", /dev/stdout, /dev/fd/1,
// /proc/self/fd/1), so a verb whose --json goes there prints its text to stderr instead.
bool names_stdout(std::string_view path);

// `name` (a tensor, output, backend label or record id: text from a model or a user) as one
// safe file-name component: letters, digits, '.', '-' and '_' kept, anything else '_', never
// "", "." or "..", never leading '.' or '-', at most 80 bytes. A name that had to change gets a
// short hash of the original appended, so two names never collapse into one file.
std::string safe_file_name(std::string_view name);

}  // namespace parity
