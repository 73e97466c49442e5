#include "backend/browser/page_reply.h"

#include <algorithm>
#include <cmath>

namespace parity::backend::browser {
namespace {

using nlohmann::json;

// Reads fields of one JSON object, keeping the path of the first field that is not what the
// harness sends. Absent and null fields give the fallback (the page drops undefined values);
// a present field of the wrong type is an error, never a silent default.
class FieldReader {
 public:
  FieldReader(const json& object, std::string path, std::string& first_error)
      : object_(object), path_(std::move(path)), error_(first_error) {
    if (!object_.is_object()) fail_at(path_.empty() ? "the reply" : path_, "an object", object_);
  }

  bool has(const char* key) const {
    return object_.is_object() && object_.contains(key) && !at(key).is_null();
  }

  std::string text(const char* key, std::string fallback = {}) {
    if (!has(key)) return fallback;
    if (!at(key).is_string()) return fail(key, "a string"), fallback;
    return at(key).get<std::string>();
  }
  std::optional<std::string> optional_text(const char* key) {
    if (!has(key)) return std::nullopt;
    return text(key);
  }
  double number(const char* key, double fallback = 0) {
    if (!has(key)) return fallback;
    if (!at(key).is_number() || !std::isfinite(at(key).get<double>()))
      return fail(key, "a finite number"), fallback;
    return at(key).get<double>();
  }
  // A whole number in [lo, hi] (JavaScript has no integers: 1.5 arrives as a number too).
  int64_t whole(const char* key, int64_t lo, int64_t hi, int64_t fallback = 0) {
    if (!has(key)) return fallback;
    return whole_value(at(key), field(key), lo, hi, fallback);
  }
  bool flag(const char* key, bool fallback = false) {
    if (!has(key)) return fallback;
    if (!at(key).is_boolean()) return fail(key, "true or false"), fallback;
    return at(key).get<bool>();
  }
  bool required_flag(const char* key) {
    if (!has(key)) {
      const bool is_null = object_.is_object() && object_.contains(key);
      return fail_text(field(key), "true or false", is_null ? "null" : "absent"), false;
    }
    return flag(key);
  }
  std::optional<bool> optional_flag(const char* key) {
    if (!has(key)) return std::nullopt;
    return flag(key);
  }
  std::vector<std::string> texts(const char* key) {
    std::vector<std::string> out;
    for_each(key, [&](const json& v, const std::string& where) {
      if (v.is_string())
        out.push_back(v.get<std::string>());
      else
        fail_at(where, "a string", v);
    });
    return out;
  }
  Shape dims(const char* key) {
    Shape out;
    for_each(key, [&](const json& v, const std::string& where) {
      out.push_back(whole_value(v, where, 0, int64_t{1} << 53, 0));
    });
    return out;
  }
  // Calls f(FieldReader&) for each object of the array at `key`.
  template <class F>
  void objects(const char* key, F f) {
    for_each(key, [&](const json& v, const std::string& where) {
      FieldReader item(v, where, error_);
      f(item);
    });
  }
  std::optional<FieldReader> child(const char* key) {
    if (!has(key)) return std::nullopt;
    return FieldReader(at(key), field(key), error_);
  }
  const json& object() const { return object_; }
  std::string field(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  const json& at(const char* key) const { return object_.at(key); }

  template <class F>
  void for_each(const char* key, F f) {
    if (!has(key)) return;
    if (!at(key).is_array()) return fail(key, "an array");
    const json& list = at(key);
    for (std::size_t i = 0; i < list.size() && error_.empty(); ++i)
      f(list[i], field(key) + "[" + std::to_string(i) + "]");
  }
  int64_t whole_value(const json& v, const std::string& where, int64_t lo, int64_t hi, int64_t fallback) {
    const bool is_whole = v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                                    std::floor(v.get<double>()) == v.get<double>());
    if (!is_whole) return fail_at(where, "a whole number", v), fallback;
    const double d = v.get<double>();
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
      return fail_at(where, "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", v),
             fallback;
    return static_cast<int64_t>(d);
  }
  void fail(const char* key, const std::string& expected) { fail_at(field(key), expected, at(key)); }
  void fail_at(const std::string& where, const std::string& expected, const json& got) {
    std::string shown = got.dump(-1, ' ', false, json::error_handler_t::replace);
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    fail_text(where, expected, shown);
  }
  void fail_text(const std::string& where, const std::string& expected, const std::string& got) {
    if (error_.empty()) error_ = where + " is " + got + ", not " + expected;
  }

  const json& object_;
  std::string path_;
  std::string& error_;
};

template <class T, class Decode>
Result<T> decode(std::string_view function, const json& reply, Stage stage, Decode body) {
  std::string error;
  T out{};
  {
    FieldReader r(reply, "", error);
    if (error.empty()) body(r, out);
  }
  if (error.empty()) return out;
  return make_error(
      ErrorKind::internal, stage,
      "the page's reply to parity." + std::string(function) + " is malformed: " + error,
      "the page answered what Parity's harness never sends (a changed onnxruntime-web, a custom "
      "--chromium, or a bug in Parity); PARITY_BROWSER_TRACE=FILE records the whole exchange");
}

}  // namespace

bool AdapterInfo::has_feature(std::string_view feature) const {
  return std::find(features.begin(), features.end(), feature) != features.end();
}

Result<std::optional<PageFailure>> decode_envelope(std::string_view function, const json& reply,
                                                   Stage stage) {
  return decode<std::optional<PageFailure>>(
      function, reply, stage, [](FieldReader& r, std::optional<PageFailure>& out) {
        if (r.required_flag("ok")) return;
        PageFailure failure;
        if (auto err = r.child("error")) {
          failure.message = err->text("message");
          failure.numeric = err->flag("numeric");
        }
        if (failure.message.empty()) failure.message = "the page reported a failure without a message";
        out = failure;
      });
}

Result<LoadReply> decode_load(const json& reply, Stage stage) {
  return decode<LoadReply>("load", reply, stage, [](FieldReader& r, LoadReply& out) {
    out.version = r.text("version");
    out.threads = static_cast<int>(r.whole("threads", 0, 1024));
    out.isolated = r.flag("isolated");
    out.warmup_error = r.optional_text("warmup_error");
  });
}

Result<AdapterReply> decode_adapter(const json& reply, Stage stage) {
  return decode<AdapterReply>("adapter", reply, stage, [](FieldReader& r, AdapterReply& out) {
    out.gpu = r.flag("gpu");
    auto a = r.child("adapter");
    if (!a) return;
    AdapterInfo info;
    info.vendor = a->text("vendor");
    info.architecture = a->text("architecture");
    info.description = a->text("description");
    info.is_fallback = a->flag("is_fallback");
    info.features = a->texts("features");
    if (auto limits = a->child("limits"); limits && limits->object().is_object()) {
      for (auto it = limits->object().begin(); it != limits->object().end(); ++it)
        info.limits.emplace_back(it.key(), it.value().dump());
      if (limits->has("maxBufferSize")) info.max_buffer_size = limits->number("maxBufferSize");
    }
    out.adapter = std::move(info);
  });
}

Result<CreateReply> decode_create(const json& reply, Stage stage) {
  return decode<CreateReply>("create", reply, stage, [](FieldReader& r, CreateReply& out) {
    out.create_ms = r.number("create_ms");
    if (r.has("placement")) {
      out.placement.emplace();
      r.objects("placement", [&](FieldReader& p) {
        out.placement->push_back({p.text("ep"), p.whole("nodes", 0, int64_t{1} << 40)});
      });
    }
    out.output_names = r.texts("output_names");
    out.device_f16 = r.optional_flag("device_f16");
    out.validation = r.texts("validation");
  });
}

Result<RunReply> decode_run(const json& reply, Stage stage) {
  return decode<RunReply>("run", reply, stage, [](FieldReader& r, RunReply& out) {
    out.run_ms = r.number("run_ms");
    r.objects("outputs", [&](FieldReader& o) {
      out.outputs.push_back({o.text("name"), o.text("type"), o.dims("dims")});
    });
    out.validation = r.texts("validation");
    out.device_lost = r.optional_text("device_lost");
  });
}

Result<DiagnosticsReply> decode_diagnostics(const json& reply, Stage stage) {
  return decode<DiagnosticsReply>("diagnostics", reply, stage, [](FieldReader& r, DiagnosticsReply& out) {
    // Log lines are shown as they are; a non-string entry is shown as its JSON text.
    if (r.has("ort_log") && r.object()["ort_log"].is_array())
      for (const auto& v : r.object()["ort_log"])
        out.ort_log.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    else
      (void)r.texts("ort_log");
  });
}

}  // namespace parity::backend::browser
