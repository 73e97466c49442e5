#include "model/proto_io.h"

#include <fcntl.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <system_error>
#include <vector>

namespace parity::model::detail {
namespace {

namespace fs = std::filesystem;
namespace pb = google::protobuf;

// Protobuf's own recursion limit; deeper input fails to parse, and the diagnosis stops there too.
constexpr int kMaxDepth = 100;

Error io_error(Stage stage, std::string message, std::string hint) {
  return make_error(ErrorKind::io, stage, std::move(message), std::move(hint));
}

// Closes the descriptor on every path out of read_file.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

enum class VarintStatus { ok, eof, overlong };

// Reads a base-128 varint from bytes[pos, end); advances pos.
VarintStatus read_varint(std::string_view bytes, std::size_t end, std::size_t& pos, uint64_t& value) {
  value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos >= end) return VarintStatus::eof;
    const auto byte = static_cast<uint8_t>(bytes[pos++]);
    if (i == 9 && byte > 1) return VarintStatus::overlong;  // would not fit in 64 bits
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) return VarintStatus::ok;
  }
  return VarintStatus::overlong;
}

int expected_wire_type(const pb::FieldDescriptor& f) {
  switch (f.type()) {
    case pb::FieldDescriptor::TYPE_DOUBLE:
    case pb::FieldDescriptor::TYPE_FIXED64:
    case pb::FieldDescriptor::TYPE_SFIXED64: return 1;
    case pb::FieldDescriptor::TYPE_FLOAT:
    case pb::FieldDescriptor::TYPE_FIXED32:
    case pb::FieldDescriptor::TYPE_SFIXED32: return 5;
    case pb::FieldDescriptor::TYPE_STRING:
    case pb::FieldDescriptor::TYPE_BYTES:
    case pb::FieldDescriptor::TYPE_MESSAGE: return 2;
    case pb::FieldDescriptor::TYPE_GROUP: return 3;
    default: return 0;
  }
}

// True if `wire` is a way `f` may legally be encoded (repeated scalars may also come packed).
bool wire_fits(const pb::FieldDescriptor& f, int wire) {
  const int expected = expected_wire_type(f);
  return wire == expected || (f.is_repeated() && wire == 2 && expected != 2 && expected != 3);
}

std::string join_path(const std::string& parent, const std::string& child) {
  return parent.empty() ? child : parent + "." + child;
}

struct PendingMessage {
  std::string label;
  std::size_t begin, end;
  const pb::Descriptor* type;
};

// The first of `messages` (found intact by scan at `depth`) whose bytes do not parse on their own,
// diagnosed one level deeper; none when all parse.
WireProblem scan_nested(std::string_view bytes, const std::vector<PendingMessage>& messages,
                        const std::string& path, int depth);

// Walks the fields of one message in bytes[begin, end). At the top level (depth 0) running past the
// end of input means truncation if everything so far looked like `type`; deeper, it is corruption.
WireProblem scan(std::string_view bytes, std::size_t begin, std::size_t end, const pb::Descriptor& type,
                 const std::string& path, int depth) {
  using Kind = WireProblem::Kind;
  const bool top = depth == 0;
  bool all_known = true;   // every field so far has a number and wire type `type` declares
  std::string wrong_wire;  // the first field whose number `type` declares with another wire type
  auto broken = [&](std::string detail) {
    return WireProblem{top ? Kind::not_protobuf : Kind::corrupt, path, std::move(detail)};
  };
  auto ends_early = [&](bool known, std::string detail) {
    if (top)
      return WireProblem{known && all_known ? Kind::truncated : Kind::not_protobuf, path, std::move(detail)};
    return WireProblem{Kind::corrupt, path, std::move(detail) + " (past the end of its enclosing message)"};
  };

  std::map<int, int> occurrences;  // field number -> times seen, to name repeated entries "node[3]"
  std::vector<PendingMessage> messages;
  std::size_t pos = begin;
  while (pos < end) {
    const std::size_t at = pos;
    uint64_t tag = 0;
    const VarintStatus tag_status = read_varint(bytes, end, pos, tag);
    if (tag_status == VarintStatus::eof)
      return ends_early(false, "input ends inside a field tag at byte " + std::to_string(at));
    const auto field_number = static_cast<int>((tag >> 3) & 0x1fffffff);
    const auto wire = static_cast<int>(tag & 7);
    if (tag_status == VarintStatus::overlong || tag > 0xffffffffu || field_number == 0 || wire == 3 ||
        wire == 4 || wire > 5) {
      char shown[8];
      std::snprintf(shown, sizeof shown, "0x%02x", static_cast<unsigned>(static_cast<uint8_t>(bytes[at])));
      return broken("byte " + std::to_string(at) + " (" + shown + ") does not start a valid field tag");
    }
    const pb::FieldDescriptor* field = type.FindFieldByNumber(field_number);
    const bool known = field != nullptr && wire_fits(*field, wire);
    const int index = occurrences[field_number]++;
    std::string label = field ? field->name() : "field " + std::to_string(field_number);
    if (field && field->is_repeated()) label += "[" + std::to_string(index) + "]";
    const std::string quoted = "field '" + join_path(path, label) + "' at byte " + std::to_string(at);

    uint64_t length = 0;
    switch (wire) {
      case 0:
        if (read_varint(bytes, end, pos, length) != VarintStatus::ok)
          return ends_early(known, quoted + " is cut off");
        break;
      case 1:
      case 5: {
        const std::size_t width = wire == 1 ? 8 : 4;
        if (end - pos < width) return ends_early(known, quoted + " is cut off");
        pos += width;
        break;
      }
      default: {  // 2: length-delimited
        const VarintStatus s = read_varint(bytes, end, pos, length);
        if (s == VarintStatus::eof) return ends_early(known, quoted + " is cut off");
        if (s == VarintStatus::overlong) return broken(quoted + " has a malformed length");
        if (length > end - pos)
          return ends_early(known, quoted + " declares " + std::to_string(length) + " bytes but only " +
                                       std::to_string(end - pos) + " remain");
        if (known && field->type() == pb::FieldDescriptor::TYPE_MESSAGE)
          messages.push_back({label, pos, pos + static_cast<std::size_t>(length), field->message_type()});
        pos += static_cast<std::size_t>(length);
      }
    }
    all_known = all_known && known;
    if (field && !known && wrong_wire.empty())
      wrong_wire = quoted + " has the wrong wire type (" + std::to_string(wire) + ")";
  }
  // A declared field with the wrong wire type at the top level means another kind of data (say, a
  // TensorProto given as a model), whatever nested damage it also shows.
  if (top && !wrong_wire.empty()) return {Kind::not_protobuf, path, wrong_wire};

  // Framing is intact here; find the first nested message that does not parse on its own.
  return scan_nested(bytes, messages, path, depth);
}

WireProblem scan_nested(std::string_view bytes, const std::vector<PendingMessage>& messages,
                        const std::string& path, int depth) {
  using Kind = WireProblem::Kind;
  for (const PendingMessage& m : messages) {
    const pb::Message* prototype = pb::MessageFactory::generated_factory()->GetPrototype(m.type);
    if (!prototype) continue;
    std::unique_ptr<pb::Message> probe(prototype->New());
    if (parse_message(bytes.substr(m.begin, m.end - m.begin), *probe)) continue;
    const std::string child = join_path(path, m.label);
    if (depth + 1 >= kMaxDepth) return {Kind::corrupt, child, "nesting deeper than protobuf's limit"};
    WireProblem inner = scan(bytes, m.begin, m.end, *m.type, child, depth + 1);
    if (inner.kind == Kind::none)
      return {Kind::corrupt, child,
              "bytes " + std::to_string(m.begin) + ".." + std::to_string(m.end) + " do not parse as " +
                  m.type->name()};
    return inner;
  }
  return {};
}

}  // namespace

Result<std::uintmax_t> regular_file_size(const fs::path& path, Stage stage, std::string_view what) {
  const std::string shown = path.string();
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found)
    return io_error(stage, shown + ": " + std::string(what) + " not found",
                    "check the path; relative paths start from the current directory");
  if (ec)
    return io_error(stage, shown + ": cannot access " + std::string(what) + ": " + ec.message(),
                    "check that the file and the folders above it are readable");
  if (fs::is_directory(st))
    return io_error(stage, shown + " is a directory, not a " + std::string(what),
                    "pass the file itself, not the folder that holds it");
  if (!fs::is_regular_file(st))
    return io_error(stage, shown + " is not a regular file", "pass a " + std::string(what) + " on disk");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec)
    return io_error(stage, shown + ": cannot read the size: " + ec.message(), "check the file's permissions");
  return size;
}

Result<std::string> read_file(const fs::path& path, Stage stage, std::string_view what) {
  PARITY_ASSIGN_OR_RETURN(size, regular_file_size(path, stage, what));
  const std::string shown = path.string();
  const FdCloser fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0)
    return io_error(stage, shown + ": cannot open " + std::string(what) + ": " + std::strerror(errno),
                    "check the file's permissions");
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (true) {  // read to EOF rather than trusting `size`: the file may change underneath us
    const ssize_t n = ::read(fd.fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(stage, shown + ": read failed: " + std::strerror(errno),
                      "check the disk or network mount");
    }
    bytes.append(chunk, static_cast<std::size_t>(n));
  }
  return bytes;
}

bool parse_message(pb::io::ZeroCopyInputStream& in, pb::Message& msg) {
  pb::io::CodedInputStream coded(&in);
  coded.SetTotalBytesLimit(static_cast<int>(kMaxProtoBytes));
  // ParseFromCodedStream stops at a stray end-group tag and still reports success.
  return msg.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

bool parse_message(std::string_view bytes, pb::Message& msg) {
  if (bytes.size() > kMaxProtoBytes) return false;
  pb::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
  return parse_message(in, msg);
}

std::string printable(std::string_view name) {
  constexpr std::size_t kMaxShown = 80;
  std::string out(name.substr(0, kMaxShown));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  if (name.size() > kMaxShown) out += "...";
  return out;
}

WireProblem find_wire_problem(std::string_view bytes, const pb::Descriptor& type) {
  return scan(bytes, 0, bytes.size(), type, "", 0);
}

Error parse_failure(std::string_view bytes, const pb::Descriptor& type, const std::string& origin,
                    Stage stage, std::string_view what) {
  const std::string kind(what);
  auto bad = [&](std::string message, std::string hint) {
    return make_error(ErrorKind::bad_input, stage, origin + ": " + std::move(message), std::move(hint));
  };
  if (bytes.empty()) return bad("the file is empty (0 bytes), not " + kind, "export or save the file again");
  if (bytes.size() > kMaxProtoBytes)
    return bad(
        "the file is " + std::to_string(bytes.size()) + " bytes; protobuf cannot parse more than 2 GiB",
        "keep large tensors as external data");
  const WireProblem p = find_wire_problem(bytes, type);
  switch (p.kind) {
    case WireProblem::Kind::truncated:
      return bad("the file is truncated: " + p.detail,
                 "the file is incomplete (interrupted download or export?): fetch or export it again");
    case WireProblem::Kind::not_protobuf:
      return bad("not " + kind + " (" + p.detail + ")",
                 "expected " + kind + " in binary protobuf form; text and other formats are not read");
    case WireProblem::Kind::corrupt:
      return bad("the file is corrupt at '" + p.where + "': " + p.detail,
                 "the file is damaged: export it again");
    case WireProblem::Kind::none: break;
  }
  return bad("could not be parsed as " + kind + " (malformed protobuf)",
             "the file is damaged: export it again");
}

Status serialize_into(const google::protobuf::MessageLite& m, OutputFile& out) {
  errno = 0;
  if (m.SerializeToFileDescriptor(out.fd())) return ok_status();
  return out.failure("cannot write the model", errno);
}

Status save_model(const onnx::ModelProto& m, const std::filesystem::path& dst) {
  // Serialized straight into the file: a model of 330 MB is not first held twice in memory.
  PARITY_ASSIGN_OR_RETURN(f, OutputFile::open(dst));
  PARITY_TRY(serialize_into(m, f));
  return f.commit();
}

Error model_border_error(const std::filesystem::path& path, const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return make_error(ErrorKind::oom, Stage::load_model,
                      path.string() + ": out of memory analysing the model",
                      "free memory or use a machine with more RAM");
  return make_error(ErrorKind::internal, Stage::load_model, path.string() + ": unexpected error: " + e.what(),
                    "this is a bug in Parity: please report it with the file");
}

}  // namespace parity::model::detail
