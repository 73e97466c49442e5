#include "core/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

namespace parity {

Result<std::string> sha256_file(const std::filesystem::path& path, Stage stage) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return make_error(ErrorKind::io, stage, path.string() + ": cannot read the file to hash it",
                      "check the path and its permissions");
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return make_error(ErrorKind::internal, stage, "OpenSSL could not start a SHA-256 digest");
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0 &&
        EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(in.gcount())) != 1)
      return make_error(ErrorKind::internal, stage, "OpenSSL failed while hashing " + path.string());
  }
  if (in.bad()) return make_error(ErrorKind::io, stage, path.string() + ": read failed while hashing it");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
    return make_error(ErrorKind::internal, stage, "OpenSSL could not finish the SHA-256 digest");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) out += {hex[digest[i] >> 4], hex[digest[i] & 15]};
  return out;
}

}  // namespace parity
