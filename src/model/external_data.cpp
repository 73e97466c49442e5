#include "model/external_data.h"

#include <onnx/onnx_pb.h>

#include <fstream>

#include "model/proto_io.h"

namespace parity::model {

namespace fs = std::filesystem;

Result<fs::path> external_file_path(const fs::path& model, const std::string& location) {
  const fs::path rel(location);
  auto refuse = [&](const std::string& why) -> Error {
    return make_error(
        ErrorKind::bad_input, Stage::load_model,
        model.string() + ": external data location '" + detail::printable(location) + "' " + why,
        "external data must sit in the model's folder or below it (onnx.save_model(..., "
        "location='weights.data'))");
  };
  if (location.empty()) return refuse("is empty");
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    return refuse("is an absolute path");
  for (const auto& part : rel)
    if (part == "..") return refuse("climbs out of the model's folder");
  const fs::path file = model.parent_path() / rel;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return make_error(ErrorKind::io, Stage::load_model,
                      model.string() + ": its external data file " + file.string() + " is missing",
                      "keep the .data file(s) the model names beside it");
  return file;
}

Status provide_external_files(const fs::path& model, const std::vector<std::string>& locations,
                              const fs::path& dir) {
  for (const std::string& location : locations) {
    PARITY_ASSIGN_OR_RETURN(src, external_file_path(model, location));
    const fs::path dst = dir / location;
    std::error_code ec;
    if (fs::exists(dst, ec)) continue;
    fs::create_directories(dst.parent_path(), ec);
    ec.clear();
    fs::create_hard_link(fs::canonical(src, ec), dst, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(src, dst, ec);
    }
    if (ec)
      return make_error(ErrorKind::io, Stage::write_output,
                        "cannot bring " + src.string() + " beside " + dst.string() + ": " + ec.message(),
                        "check the disk space and the scratch folder's permissions");
  }
  return ok_status();
}

namespace detail {

Status inline_external_data(onnx::TensorProto& t, const fs::path& model) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return ok_status();
  std::string location;
  uint64_t offset = 0;
  int64_t length = -1;
  for (const auto& e : t.external_data()) {
    try {
      if (e.key() == "location") location = e.value();
      if (e.key() == "offset") offset = std::stoull(e.value());
      if (e.key() == "length") length = std::stoll(e.value());
    } catch (const std::exception&) {
      return make_error(ErrorKind::bad_input, Stage::load_model,
                        model.string() + ": tensor '" + printable(t.name()) +
                            "' has a malformed external_data " + printable(e.key()) + " '" +
                            printable(e.value()) + "'",
                        "save the model again with onnx.save_model(..., save_as_external_data=True)");
    }
  }
  PARITY_ASSIGN_OR_RETURN(file, external_file_path(model, location));
  std::error_code ec;
  const uint64_t size = fs::file_size(file, ec);
  const uint64_t n = length < 0 ? (offset <= size ? size - offset : 0) : static_cast<uint64_t>(length);
  if (ec || offset > size || n > size - offset || n > kMaxProtoBytes)
    return make_error(ErrorKind::bad_input, Stage::load_model,
                      model.string() + ": tensor '" + printable(t.name()) + "' reads bytes " +
                          std::to_string(offset) + "+" + std::to_string(n) + " of " + file.string() +
                          ", which holds " + std::to_string(size),
                      "the external data file does not match the model: copy both again");
  std::string bytes(n, '\0');
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in.read(bytes.data(), static_cast<std::streamsize>(n)))
    return make_error(ErrorKind::io, Stage::load_model, "cannot read " + file.string(), "check the file");
  t.set_raw_data(std::move(bytes));
  t.clear_external_data();
  t.clear_data_location();
  return ok_status();
}

}  // namespace detail
}  // namespace parity::model
